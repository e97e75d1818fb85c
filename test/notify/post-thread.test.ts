/**
 * The webhook thread (post-thread.ts) as tsc built it (npm test builds first: Node runs no
 * TypeScript in a thread), against real HTTP receivers on 127.0.0.1 and in real processes.
 */
import { spawn } from "node:child_process";
import { afterEach, describe, expect, it } from "vitest";
import { postOnThread } from "../../src/notify/post-thread.js";
import { Notifier } from "../../src/notify/webhook.js";
import { closeReceivers, EVENT, memoryLog, serve, status } from "../helpers/webhook-receiver.js";

afterEach(closeReceivers);

const WEBHOOK = new URL("../../dist/notify/webhook.js", import.meta.url).href;

/** A Node process running `script` (an ES module), and its exit code, or "alive" after 10 s (then killed). */
async function exitOf(script: string, env: NodeJS.ProcessEnv): Promise<number | null | "alive"> {
  const child = spawn(process.execPath, ["--input-type=module", "-e", script], { env: { ...process.env, ...env }, stdio: ["ignore", "inherit", "inherit"] });
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      new Promise<number | null>((resolve) => child.on("exit", resolve)),
      new Promise<"alive">((resolve) => (timer = setTimeout(() => resolve("alive"), 10_000))),
    ]);
  } finally {
    clearTimeout(timer);
    child.kill("SIGKILL");
  }
}

describe("the webhook thread", () => {
  it("is sent to from a thread of its own: undici never loads on the thread that relays the agent's bytes", async () => {
    const server = await serve(status(204));
    // Set by undici's first request, in the thread that makes it (Node's own fetch would too; nothing here calls it).
    const dispatcher = Symbol.for("undici.globalDispatcher.1");
    expect((globalThis as Record<symbol, unknown>)[dispatcher]).toBeUndefined();
    const notifier = new Notifier([server.url], memoryLog(), { post: postOnThread(new URL("../../dist/notify/post-worker.js", import.meta.url)) });
    notifier.notify(EVENT);
    await notifier.settled();
    expect(server.received).toHaveLength(1);
    expect((globalThis as Record<symbol, unknown>)[dispatcher]).toBeUndefined();
  });

  it("logs a webhook thread that cannot start, and starts one again for the next attempt", async () => {
    const server = await serve(status(204));
    const log = memoryLog();
    const missing = postOnThread(new URL("../../dist/notify/no-such-worker.js", import.meta.url));
    const notifier = new Notifier([server.url], log, { post: missing, attempts: 2, backoffMs: 10 });
    notifier.notify(EVENT);
    await notifier.settled();
    expect(server.received).toHaveLength(0);
    expect(log.lines.filter((line) => line.includes("the webhook thread failed"))).toHaveLength(2);
    expect(log.lines.at(-1)).toMatch(/^warn notify: gave up sending captured .* after 2 attempt\(s\): the webhook thread failed: /);
  });

  it("leaves no thread that keeps a process alive once its deliveries are over", async () => {
    const server = await serve(status(204));
    const exited = await exitOf(`
      const { Notifier } = await import(${JSON.stringify(WEBHOOK)});
      const notifier = new Notifier([process.env.HOOK], { info() {}, warn: console.error, close() {} });
      notifier.notify(${JSON.stringify(EVENT)});
      await notifier.settled();`, { HOOK: server.url });
    expect(server.received).toHaveLength(1);
    expect(exited).toBe(0);
  });
});
