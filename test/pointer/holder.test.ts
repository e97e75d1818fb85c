/**
 * The one lock judgement, that `run` and `doctor` share: who a lock file names, and whether that
 * holder still holds it, here and from another host. (How a run acts on it is lock.test.ts's.)
 */
import { spawn } from "node:child_process";
import { once } from "node:events";
import { describe, expect, it } from "vitest";
import { describeHolder, judgeHolder, processStartMs, readHolder, REMOTE_STALE_MS } from "../../src/pointer/holder.js";

const HOST = "ws-1";
// No process has pid 2^22 + 1: Linux allows none above 2^22.
const NO_PID = (1 << 22) + 1;
const since = (ms: number): string => new Date(Date.now() - ms).toISOString();

describe("readHolder", () => {
  it("reads the holder a lock file names, or says in one escaped line why it cannot", async () => {
    expect(await readHolder(JSON.stringify({ pid: 42, startedAt: "2026-11-22T21:30:00.000Z", host: HOST }))).toEqual({ pid: 42, startedAt: "2026-11-22T21:30:00.000Z", host: HOST });
    expect(await readHolder("  \n")).toEqual({ unreadable: "empty lock file" });
    expect(await readHolder(JSON.stringify({ pid: 0, startedAt: "x", host: HOST }))).toEqual({ unreadable: expect.stringMatching(/^unparseable lock file: \{"pid":0/) as unknown });
    const shown = await readHolder(`{\x1b[2J${"x".repeat(200)}`);
    expect(shown).toEqual({ unreadable: `unparseable lock file: {\\x1b[2J${"x".repeat(75)}` });
  });
});

describe("judgeHolder", () => {
  it("holds a lock for a live process of this host that started before it was taken", () => {
    const holder = { pid: process.pid, startedAt: since(0), host: HOST };
    expect(judgeHolder(holder, HOST)).toEqual({ kind: "held", holder, why: "alive" });
  });

  it("takes over from a process gone, from a pid reused by a process started after the lock, and from what it cannot read", () => {
    expect(judgeHolder({ pid: NO_PID, startedAt: since(0), host: HOST }, HOST).kind).toBe("stale");
    // This process, started a moment ago, cannot hold a lock taken a day ago: its pid was reused.
    expect(judgeHolder({ pid: process.pid, startedAt: since(86_400_000), host: HOST }, HOST).kind).toBe("stale");
    expect(judgeHolder({ unreadable: "empty lock file" }, HOST).kind).toBe("stale");
  });

  it("on another host, holds it while it is kept fresh, whatever its pid says here", () => {
    const remote = { pid: NO_PID, startedAt: since(86_400_000), host: "ws-2" };
    expect(judgeHolder(remote, HOST)).toEqual({ kind: "held", holder: remote, why: "other-host" });
    expect(judgeHolder(remote, HOST, REMOTE_STALE_MS).kind).toBe("held");
    expect(judgeHolder(remote, HOST, REMOTE_STALE_MS + 1).kind).toBe("stale");
  });

  it("names the holder with what its file says, escaped", () => {
    expect(describeHolder({ pid: 7, startedAt: "2026-11-22T21:30:00.000Z", host: "ws\x1b]0;pwned\x07" })).toBe("sessionpin pid 7 on ws\\x1b]0;pwned\\x07 since 2026-11-22T21:30:00.000Z");
  });
});

describe("processStartMs", () => {
  it("says when a process started, to within its clock ticks, and nothing for a pid that names none", async () => {
    const before = Date.now();
    const child = spawn("sleep", ["10"], { stdio: "ignore" });
    await once(child, "spawn");
    const after = Date.now();
    try {
      const started = processStartMs(child.pid ?? NO_PID);
      if (typeof started !== "number") throw new Error(`no start time: ${String(started)}`);
      // /proc counts in ticks of 10 ms from the exec, Node its uptime from a moment later, under load.
      expect(started).toBeGreaterThan(before - 500);
      expect(started).toBeLessThan(after + 500);
    } finally {
      child.kill("SIGKILL");
    }
    expect(processStartMs(NO_PID)).toBeUndefined();
  });
});
