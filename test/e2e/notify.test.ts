import { readFileSync } from "node:fs";
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { resolvePointerPath } from "../../src/pointer/path.js";
import { Cleanup, eventsOf, exitOf, runArgs, WAIT_MS, waitUntil, writePointerByHand } from "./support.js";

const cleanup = new Cleanup();
const servers: Server[] = [];
afterEach(async () => {
  await cleanup.run();
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

/** A webhook receiver on 127.0.0.1 that keeps what it got; `hang` never answers. */
async function receiver(hang = false): Promise<{ url: string; got: Array<Record<string, unknown>> }> {
  const got: Array<Record<string, unknown>> = [];
  const server = createServer((req: IncomingMessage, res) => {
    let body = "";
    req.on("data", (chunk: Buffer) => (body += chunk.toString()));
    req.on("end", () => {
      got.push(JSON.parse(body) as Record<string, unknown>);
      if (!hang) res.end("ok");
    });
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`, got };
}

describe("run --notify", () => {
  it("posts captured, resumed, rejected and the fresh capture, with agent, id, cwd, pointer, key and time", async () => {
    const sb = cleanup.sandbox();
    const hook = await receiver();
    const cold = cleanup.driver(sb.sessionpin(runArgs(sb, ["--notify", hook.url, "--key", "thread-9"], ["amp"])));
    await cold.waitFor(/new thread/, WAIT_MS);
    const id = String(eventsOf(sb, "thread-new")[0]?.["id"]);
    await waitUntil(() => hook.got.length >= 1 || undefined, "the captured event");
    // The key's own file, beside the one --pointer names.
    const pointer = resolvePointerPath({ explicit: sb.pointer, env: {}, agent: "amp", cwd: sb.dir, home: sb.home, key: "thread-9" });
    expect(pointer).not.toBe(sb.pointer);
    expect(hook.got[0]).toMatchObject({ kind: "captured", agent: "amp", id, pointer, key: "thread-9" });
    expect(Date.parse(String(hook.got[0]?.["time"]))).not.toBeNaN();
    cold.write("\x03");
    expect((await exitOf(cold)).exitCode).toBe(0);

    const warm = cleanup.driver(sb.sessionpin(runArgs(sb, ["--notify", hook.url, "--key", "thread-9"], ["amp"])));
    await warm.waitFor(/Type a message/, WAIT_MS);
    warm.write("\x03");
    expect((await exitOf(warm)).exitCode).toBe(0);
    await waitUntil(() => hook.got.some((e) => e["kind"] === "resumed") || undefined, "the resumed event");
    // An interactive warm start delivers nothing: the task is never sent again.
    expect(hook.got.find((e) => e["kind"] === "resumed")).toMatchObject({ id, key: "thread-9", delivers: null });
    expect(JSON.parse(readFileSync(pointer, "utf8"))).toMatchObject({ key: "thread-9" });

    const stale = String(writePointerByHand(sb, {})["id"]);
    const rejected = cleanup.driver(sb.sessionpin(runArgs(sb, ["--notify", hook.url], ["amp"])));
    await rejected.waitFor(/does not exist[\s\S]*Type a message/, WAIT_MS);
    rejected.write("\x03");
    expect((await exitOf(rejected)).exitCode).toBe(0);
    await waitUntil(() => hook.got.filter((e) => e["kind"] === "captured").length === 2 || undefined, "the fresh capture");
    expect(hook.got.find((e) => e["kind"] === "rejected")).toMatchObject({ id: stale, reason: expect.stringMatching(/does not exist/) });
  });

  it("never delays the agent for a receiver that does not answer, and exits within the bounded wait", async () => {
    const sb = cleanup.sandbox();
    const hook = await receiver(true);
    const started = Date.now();
    const driver = cleanup.driver(sb.sessionpin(runArgs(sb, ["--notify", hook.url], ["amp"])));
    await driver.waitFor(/Type a message/, WAIT_MS);
    await waitUntil(() => hook.got.length >= 1 || undefined, "the request arriving");
    driver.sendMessage("still here?");
    await driver.waitFor(/noted \(1 messages/, WAIT_MS);
    const answered = Date.now();
    driver.write("\x03");
    expect((await exitOf(driver)).exitCode).toBe(0);
    // Input and output flowed while the receiver hung; exit waited at most its 3 s budget.
    expect(answered - started).toBeLessThan(5_000);
    expect(Date.now() - answered).toBeLessThan(5_000);
    expect(sb.readLog()).toMatch(/notify|webhook/i);
  });
});
