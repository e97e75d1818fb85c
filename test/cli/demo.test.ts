import { execFile } from "node:child_process";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { promisify } from "node:util";
import { expect, it } from "vitest";
import { CLI } from "../helpers/sandbox.js";

it("sessionpin demo pins a thread on the cold start and resumes it on the warm start", async () => {
  const { stdout } = await promisify(execFile)(process.execPath, [CLI, "demo"], { timeout: 60_000 });
  const thread = /threads new\n\s+sessionpin launched: amp --mode smart threads continue (T-[0-9a-f-]{36})/.exec(stdout)?.[1];
  expect(thread, stdout).toBeDefined();
  expect(stdout).toContain(`pinned ${thread} (confirmed, rule threads-new)`);
  // The warm start launched the same thread, and the prompt arrived once in all.
  expect(stdout.split(`sessionpin launched: amp --mode smart threads continue ${thread}`).length - 1).toBe(2);
  expect(stdout).toContain("delivered 1 time(s) across both starts");
  expect(stdout).toContain("Demo passed");
});

it("sessionpin demo keeps to itself: the user's SESSIONPIN_* settings (a key, a webhook) neither break it nor get its events", async () => {
  const got: string[] = [];
  const server = createServer((req, res) => {
    req.on("data", (chunk: Buffer) => void got.push(chunk.toString()));
    req.on("end", () => res.end("ok"));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  try {
    const hook = `http://127.0.0.1:${(server.address() as AddressInfo).port}/prod-hook`;
    const env = { ...process.env, SESSIONPIN_KEY: "thread-1", SESSIONPIN_NOTIFY: hook };
    const { stdout } = await promisify(execFile)(process.execPath, [CLI, "demo"], { timeout: 60_000, env });
    expect(stdout).toContain("Demo passed");
    expect(got).toEqual([]);
  } finally {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

it("sessionpin demo --json says the same as one object: the thread pinned cold, resumed warm, the prompt delivered once", async () => {
  const { stdout } = await promisify(execFile)(process.execPath, [CLI, "demo", "--json"], { timeout: 60_000 });
  const report = JSON.parse(stdout) as { passed: boolean; thread: string; pinned: { id: string }; warm: { launched: string[][] }; promptDelivered: number; messages: string[] };
  expect(report.passed).toBe(true);
  expect(report.pinned.id).toBe(report.thread);
  expect(report.warm.launched).toEqual([["amp", "--mode", "smart", "threads", "continue", report.thread]]);
  expect(report.promptDelivered).toBe(1);
  expect(report.messages).toHaveLength(2);
});
