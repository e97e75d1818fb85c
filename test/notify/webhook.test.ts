/**
 * Webhook deliveries against real HTTP servers on 127.0.0.1, sent from the test's thread (the
 * webhook thread itself: post-thread.test.ts): the JSON arrives; a slow receiver
 * times out and is retried while notify() has long returned; a failing one is retried with
 * backoff and given up on after N attempts; an unreachable port is logged; settled() is bounded.
 */
import { afterEach, describe, expect, it } from "vitest";
import { SessionpinError } from "../../src/errors.js";
import type { Logger } from "../../src/log/logger.js";
import { postHere } from "../../src/notify/post.js";
import { Notifier, notifyUrls, type NotifierOptions, type NotifyEvent } from "../../src/notify/webhook.js";
import { closedPort, closeReceivers, EVENT, memoryLog, serve, silent, status } from "../helpers/webhook-receiver.js";

const notifierFor = (urls: readonly string[], log: Logger, options: NotifierOptions = {}): Notifier => new Notifier(urls, log, { post: postHere, ...options });

afterEach(closeReceivers);


/** notify() and how long it took to return. */
/**
 * Calls notify() and says whether it returned before the receiver saw anything: a call that
 * waited for the delivery would find the request already received. Causal, not timed: timings
 * belong in the benchmarks.
 */
function returnsBeforeDelivery(notifier: Notifier, event: NotifyEvent, server: { received: unknown[] }): boolean {
  const before = server.received.length;
  const result: unknown = notifier.notify(event);
  return result === undefined && server.received.length === before;
}

describe("a receiver that answers", () => {
  it("gets the event as a JSON POST, and the log says it was sent", async () => {
    const server = await serve(status(204));
    const log = memoryLog();
    const notifier = notifierFor([server.url], log);
    notifier.notify(EVENT);
    await notifier.settled();
    expect(server.received).toHaveLength(1);
    expect(server.received[0]).toMatchObject({ method: "POST", contentType: "application/json" });
    expect(JSON.parse(server.received[0]?.body ?? "")).toEqual(EVENT);
    expect(log.lines).toEqual([`info notify: sent captured ${EVENT.id} to webhook 1 (http://${new URL(server.url).host}/…): HTTP 204`]);
  });

  it("sends a URL's credentials as basic auth, and never logs them", async () => {
    const server = await serve(status(204));
    const log = memoryLog();
    const url = new URL(server.url);
    url.username = "bot";
    url.password = "s3cret:x";
    const notifier = notifierFor([url.toString()], log);
    notifier.notify(EVENT);
    await notifier.settled();
    expect(server.received.map((r) => r.authorization)).toEqual([`Basic ${Buffer.from("bot:s3cret:x").toString("base64")}`]);
    expect(log.lines.join("\n")).not.toMatch(/bot|s3cret/);
    // Without credentials, no header.
    const plain = await serve(status(204));
    const other = notifierFor([plain.url], memoryLog());
    other.notify(EVENT);
    await other.settled();
    expect(plain.received.map((r) => r.authorization)).toEqual([undefined]);
  });

  it("sends every event to every URL, and never logs a URL's path or query (they hold secrets)", async () => {
    const [a, b] = [await serve(status(200)), await serve(status(200))];
    const log = memoryLog();
    const notifier = notifierFor([a.url, b.url], log);
    notifier.notify(EVENT);
    notifier.notify({ ...EVENT, kind: "changed", id: "T-019c479a-0000-72af-a2d1-65a965c076ec", previous: EVENT.id });
    await notifier.settled();
    for (const server of [a, b]) {
      expect(server.received.map((r) => JSON.parse(r.body).kind).sort()).toEqual(["captured", "changed"]);
    }
    expect(JSON.parse(a.received.find((r) => r.body.includes("changed"))?.body ?? "")).toMatchObject({ previous: EVENT.id });
    expect(log.lines).toHaveLength(4);
    expect(log.lines.join("\n")).not.toMatch(/secret-token|key=abc/);
  });

  it("does nothing without URLs", async () => {
    const log = memoryLog();
    const notifier = notifierFor([], log);
    expect(notifier.enabled).toBe(false);
    notifier.notify(EVENT);
    await notifier.settled();
    expect(log.lines).toEqual([]);
  });
});

describe("a slow receiver", () => {
  it("times out each attempt and retries, while notify() has returned at once", async () => {
    // Never answers: every attempt ends at the timeout.
    const server = await serve(() => undefined);
    const log = memoryLog();
    const notifier = notifierFor([server.url], log, { timeoutMs: 200, backoffMs: 20, attempts: 3 });
    expect(returnsBeforeDelivery(notifier, EVENT, server)).toBe(true);
    // The caller's event loop is free while the delivery waits.
    const ticks = await new Promise<number>((resolve) => {
      let n = 0;
      const timer = setInterval(() => (++n === 5 ? (clearInterval(timer), resolve(n)) : undefined), 10);
    });
    expect(ticks).toBe(5);
    await notifier.settled();
    expect(server.received).toHaveLength(3);
    expect(log.lines.filter((l) => l.startsWith("warn"))).toEqual([
      expect.stringMatching(/attempt 1 of 3 sending captured .* failed: no answer within 200 ms; retrying in 20 ms$/),
      expect.stringMatching(/attempt 2 of 3 sending captured .* failed: no answer within 200 ms; retrying in 40 ms$/),
      expect.stringMatching(/gave up sending captured .* after 3 attempt\(s\): no answer within 200 ms$/),
    ]);
  });

  it("settled() waits no longer than its deadline, then abandons the delivery and logs it", async () => {
    const server = await serve(() => undefined);
    const log = memoryLog();
    const notifier = notifierFor([server.url], log, { timeoutMs: 30_000 });
    notifier.notify(EVENT);
    const start = Date.now();
    await notifier.settled(300);
    const waited = Date.now() - start;
    expect(waited).toBeGreaterThanOrEqual(250);
    expect(waited).toBeLessThan(2_000);
    expect(server.received).toHaveLength(1);
    expect(log.lines).toEqual(["warn notify: 1 delivery(ies) still running after 300 ms at exit: abandoned"]);
  });

  it("settled() also ends a backoff wait at its deadline", async () => {
    const server = await serve(status(503));
    const log = memoryLog();
    const notifier = notifierFor([server.url], log, { backoffMs: 60_000 });
    notifier.notify(EVENT);
    const start = Date.now();
    await notifier.settled(500);
    expect(Date.now() - start).toBeLessThan(2_000);
    expect(server.received).toHaveLength(1);
    expect(log.lines.at(-1)).toBe("warn notify: 1 delivery(ies) still running after 500 ms at exit: abandoned");
  });
});

describe("a failing receiver", () => {
  it("is retried after a 500, and the second attempt's success is logged", async () => {
    const server = await serve((n, res) => void res.writeHead(n === 1 ? 500 : 200).end());
    const log = memoryLog();
    const notifier = notifierFor([server.url], log, { backoffMs: 50 });
    notifier.notify(EVENT);
    await notifier.settled();
    expect(server.received).toHaveLength(2);
    expect(server.received[1]?.body).toBe(server.received[0]?.body);
    expect(log.lines).toEqual([
      expect.stringMatching(/^warn notify: attempt 1 of 3 sending captured .* failed: HTTP 500; retrying in 50 ms$/),
      expect.stringMatching(/^info notify: sent captured .*: HTTP 200 \(attempt 2\)$/),
    ]);
  });

  it("always 500: gives up after N attempts, waiting twice as long before each retry", async () => {
    const server = await serve(status(500));
    const log = memoryLog();
    const notifier = notifierFor([server.url], log, { attempts: 4, backoffMs: 100 });
    notifier.notify(EVENT);
    await notifier.settled();
    expect(server.received).toHaveLength(4);
    const gaps = server.received.slice(1).map((r, i) => r.at - (server.received[i]?.at ?? 0));
    expect(gaps[0]).toBeGreaterThanOrEqual(90);
    expect(gaps[1]).toBeGreaterThanOrEqual(190);
    expect(gaps[2]).toBeGreaterThanOrEqual(390);
    expect(log.lines.at(-1)).toMatch(/^warn notify: gave up sending captured .* after 4 attempt\(s\): HTTP 500$/);
  });

  it("a 4xx is not retried: the request itself is wrong", async () => {
    const server = await serve(status(404));
    const log = memoryLog();
    const notifier = notifierFor([server.url], log, { backoffMs: 10 });
    notifier.notify(EVENT);
    await notifier.settled();
    expect(server.received).toHaveLength(1);
    expect(log.lines).toEqual([expect.stringMatching(/^warn notify: gave up sending captured .* after 1 attempt\(s\): HTTP 404$/)]);
  });

  it("429 and 408 are retried", async () => {
    const server = await serve((n, res) => void res.writeHead(n === 1 ? 429 : n === 2 ? 408 : 201).end());
    const notifier = notifierFor([server.url], memoryLog(), { backoffMs: 10 });
    notifier.notify(EVENT);
    await notifier.settled();
    expect(server.received).toHaveLength(3);
  });
});

describe("an unreachable receiver", () => {
  it("is retried, then given up on, with the connection error in the log; other URLs still get the event", async () => {
    const port = await closedPort();
    const good = await serve(status(200));
    const log = memoryLog();
    const notifier = notifierFor([`http://127.0.0.1:${port}/hook`, good.url], log, { backoffMs: 10 });
    expect(returnsBeforeDelivery(notifier, EVENT, good)).toBe(true);
    await notifier.settled();
    expect(good.received).toHaveLength(1);
    const warnings = log.lines.filter((l) => l.startsWith("warn"));
    expect(warnings).toHaveLength(3);
    expect(warnings.at(-1)).toMatch(new RegExp(`^warn notify: gave up sending captured .* to webhook 1 \\(http://127\\.0\\.0\\.1:${port}/…\\) after 3 attempt\\(s\\): .*ECONNREFUSED`));
  });
});

describe("configuration", () => {
  it("refuses a URL that is not http(s), naming the flag and the value", () => {
    expect(() => new Notifier(["ftp://example.com/x"], memoryLog())).toThrow(SessionpinError);
    expect(() => new Notifier(["not a url"], memoryLog())).toThrow("sessionpin: --notify not a url: expected an http:// or https:// URL");
  });

  // Torture suite, hostile webhook servers: a refused URL was echoed whole on stderr, with the
  // credentials and the path where webhook secrets live.
  it("shows a refused URL without its credentials, path or query", () => {
    const refusal = (url: string): string => {
      try {
        new Notifier([url], memoryLog());
      } catch (error) {
        return (error as Error).message;
      }
      throw new Error(`${url} was accepted`);
    };
    expect(refusal("ftp://user:s3cret@127.0.0.1/x")).toBe("sessionpin: --notify ftp://127.0.0.1/…: expected an http:// or https:// URL");
    expect(refusal("file://user:s3cret@localhost/etc/passwd")).toBe("sessionpin: --notify file://localhost/…: expected an http:// or https:// URL");
    expect(refusal("//127.0.0.1/hooks/s3cret")).toBe("sessionpin: --notify //127.0.0.1/…: expected an http:// or https:// URL");
    expect(refusal("gopher://127.0.0.1:70/s3cret?token=s3cret")).toBe("sessionpin: --notify gopher://127.0.0.1:70/…: expected an http:// or https:// URL");
    expect(refusal("host?token=s3cret")).toBe("sessionpin: --notify host…: expected an http:// or https:// URL");
    expect(refusal("javascript:alert(1)")).toBe("sessionpin: --notify javascript:alert(1): expected an http:// or https:// URL");
  });

  it("takes --notify flags, else SESSIONPIN_NOTIFY split on spaces", () => {
    const env = { SESSIONPIN_NOTIFY: " http://a/1  http://b/2\n" };
    expect(notifyUrls(["http://c/3"], env)).toEqual(["http://c/3"]);
    expect(notifyUrls(undefined, env)).toEqual(["http://a/1", "http://b/2"]);
    expect(notifyUrls([], {})).toEqual([]);
  });
});

describe("a flood of events", () => {
  const changed = (n: number): NotifyEvent => ({ ...EVENT, kind: "changed", id: `F-${n}`, previous: `F-${n - 1}` });

  it("to a receiver that never answers holds one connection per URL, not one per event", async () => {
    // An ID that changed every few ms and a silent receiver used up file descriptors (EMFILE) in seconds.
    const receiver = await silent();
    const log = memoryLog();
    const notifier = notifierFor([receiver.url], log, { timeoutMs: 300, backoffMs: 10 });
    try {
      // As the flapper fixture changes its ID: every few ms, for a while.
      for (let n = 1; n <= 500; n++) {
        notifier.notify(changed(n));
        await new Promise((resolve) => setTimeout(resolve, 3));
      }
      // One request at a time: a timed-out one's socket may still be closing as the next opens.
      expect(receiver.most()).toBeLessThanOrEqual(2);
      await notifier.settled(500);
      // The log stays short: the events gave way to later ones, said once.
      expect(log.lines.length).toBeLessThan(30);
      expect(log.lines).toContain(`warn notify: webhook 1 (${receiver.url.replace(/\/hook$/, "/…")}) is slower than the pin changes: events waiting for it give way to later ones`);
    } finally {
      receiver.close();
    }
  });

  it("to a slow receiver arrives in order, ending with the latest ID, each change following on from the one before it", async () => {
    const server = await serve((_n, res) => void setTimeout(() => res.writeHead(204).end(), 50));
    const notifier = notifierFor([server.url], memoryLog(), { queueLimit: 4 });
    notifier.notify({ ...EVENT, id: "F-0" });
    for (let n = 1; n <= 200; n++) notifier.notify(changed(n));
    notifier.notify({ ...EVENT, kind: "confirmed", id: "F-200" });
    await notifier.settled(10_000);
    const got = server.received.map((r) => JSON.parse(r.body) as NotifyEvent);
    expect(got.length).toBeLessThan(20);
    expect(got[0]).toMatchObject({ kind: "captured", id: "F-0" });
    expect(got.at(-1)).toMatchObject({ kind: "confirmed", id: "F-200" });
    const changes = got.filter((e) => e.kind === "changed");
    expect(changes.at(-1)?.id).toBe("F-200");
    changes.forEach((e, i) => expect(e.previous).toBe(i === 0 ? "F-0" : changes[i - 1]?.id));
  });
});
