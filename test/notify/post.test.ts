import { afterEach, describe, expect, it } from "vitest";
import { postHere } from "../../src/notify/post.js";
import { closedPort, closeReceivers, serve, silent, status } from "../helpers/webhook-receiver.js";

afterEach(closeReceivers);

const never = (): AbortSignal => new AbortController().signal;

describe("postHere, one POST against a real receiver on 127.0.0.1", () => {
  it("sends the body with its headers, and calls a 2xx answer sent", async () => {
    const server = await serve(status(204));
    const outcome = await postHere({ url: server.url, headers: { "content-type": "application/json", authorization: "Bearer t" }, body: '{"kind":"captured"}', timeoutMs: 5_000 }, never());
    expect(outcome).toEqual({ ok: true, status: 204 });
    expect(server.received).toEqual([expect.objectContaining({ method: "POST", contentType: "application/json", authorization: "Bearer t", body: '{"kind":"captured"}' })]);
  });

  it("retries what may pass (5xx, 408, 429) and not an answer that will not (4xx)", async () => {
    const outcomes = [];
    for (const code of [500, 503, 408, 429, 400, 404, 410]) {
      const server = await serve(status(code));
      outcomes.push(await postHere({ url: server.url, headers: {}, body: "{}", timeoutMs: 5_000 }, never()));
    }
    expect(outcomes).toEqual([
      { ok: false, retry: true, error: "HTTP 500" }, { ok: false, retry: true, error: "HTTP 503" },
      { ok: false, retry: true, error: "HTTP 408" }, { ok: false, retry: true, error: "HTTP 429" },
      { ok: false, retry: false, error: "HTTP 400" }, { ok: false, retry: false, error: "HTTP 404" }, { ok: false, retry: false, error: "HTTP 410" },
    ]);
  });

  it("names the error of a port nothing listens on, to be retried", async () => {
    const outcome = await postHere({ url: `http://127.0.0.1:${await closedPort()}/hook`, headers: {}, body: "{}", timeoutMs: 5_000 }, never());
    expect(outcome).toMatchObject({ ok: false, retry: true, error: expect.stringMatching(/ECONNREFUSED/) });
  });

  it("reads a long answer no further than 64 KiB, and still calls it sent", async () => {
    const server = await serve((_n, res) => void res.writeHead(200).end("x".repeat(1 << 20)));
    expect(await postHere({ url: server.url, headers: {}, body: "{}", timeoutMs: 5_000 }, never())).toEqual({ ok: true, status: 200 });
  });

  it("times out an attempt however much garbage is collected meanwhile", async () => {
    // AbortSignal.timeout, held only weakly inside AbortSignal.any, was collected and never fired:
    // each request to a silent receiver stayed open for good.
    const receiver = await silent();
    const busy = setInterval(() => void Array.from({ length: 20_000 }, () => ({})), 2);
    try {
      const outcome = await Promise.race([
        postHere({ url: receiver.url, headers: {}, body: "{}", timeoutMs: 300 }, new AbortController().signal),
        new Promise((resolve) => setTimeout(() => resolve("still waiting after 5 s"), 5_000)),
      ]);
      expect(outcome).toEqual({ ok: false, retry: true, error: "no answer within 300 ms" });
    } finally {
      clearInterval(busy);
      receiver.close();
    }
  });

  it("ends at once when abandoned (sessionpin is exiting), and does not call that a timeout", async () => {
    const receiver = await silent();
    const abandon = new AbortController();
    try {
      const started = Date.now();
      const outcome = postHere({ url: receiver.url, headers: {}, body: "{}", timeoutMs: 30_000 }, abandon.signal);
      setTimeout(() => abandon.abort(), 100);
      const result = await outcome;
      expect(Date.now() - started).toBeLessThan(5_000);
      expect(result).toMatchObject({ ok: false, retry: true });
      expect(result.ok === false && result.error).not.toMatch(/no answer within/);
    } finally {
      receiver.close();
    }
  });
});
