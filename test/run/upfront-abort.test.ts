/**
 * A stop signal while the up-front command runs (Amp's `threads new`): agentapi shuts down
 * while sessionpin is still creating the thread. The up-front command is a real process (a tiny
 * node script); the agent would be a fake one, and is never started.
 */
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { amp } from "../../src/agents/amp.js";
import type { Logger } from "../../src/log/logger.js";
import { readPointer } from "../../src/pointer/store.js";
import type { SessionOptions } from "../../src/run/options.js";
import { runSession } from "../../src/run/session.js";
import { ManualClock } from "../helpers/clock.js";
import { FakeScreen, FakeSpawner, type FakeAgent } from "../helpers/fake-pty.js";

const THREAD = "T-0f3c2a9e-5b7d-4e21-9c4a-8d6f1e2b3a40";
const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

// `amp … threads new`: says it started, then prints a thread URL, or with UPFRONT_HANG never
// finishes on its own.
const FAKE_AMP = `#!/usr/bin/env node
require("node:fs").writeFileSync(process.env.UPFRONT_STARTED, String(process.pid));
if (process.env.UPFRONT_HANG) setInterval(() => {}, 1000);
else process.stdout.write("https://ampcode.com/threads/${THREAD}\\n");
`;

function session(hang: boolean) {
  const dir = mkdtempSync(join(tmpdir(), "sessionpin-upfront-"));
  dirs.push(dir);
  const command = join(dir, "amp");
  writeFileSync(command, FAKE_AMP);
  chmodSync(command, 0o755);
  const started = join(dir, "upfront.pid");
  const clock = new ManualClock();
  const spawner = new FakeSpawner();
  const lines: string[] = [];
  const log: Logger = { info: (m) => void lines.push(m), warn: (m) => void lines.push(m), close: () => undefined };
  const options: SessionOptions = {
    agent: {
      command, args: ["--mode", "smart"], plugin: amp, cwd: dir, restoreHistory: false,
      env: { ...process.env, HOME: join(dir, "home"), UPFRONT_STARTED: started, ...(hang ? { UPFRONT_HANG: "1" } : {}) },
    },
    message: { prompt: "fix the build", resumePrompt: undefined },
    pointer: { path: join(dir, "state", "pointer.json"), explicit: true },
    talk: { terminal: new FakeScreen(), spawn: spawner.spawn, promptQuietMs: 300, promptMaxWaitMs: 20_000 },
    report: { log },
    policy: { waitLockMs: 0, fallbackWindowMs: 15_000 },
    time: { clock, now: () => new Date(Date.UTC(2026, 10, 25) + clock.now()) },
  };
  return { spawner, lines, options, started, clock };
}

/** The up-front command's pid, once it is running (5 s at most). */
async function upfrontRunning(marker: string): Promise<number> {
  for (const deadline = Date.now() + 5_000; Date.now() < deadline;) {
    if (existsSync(marker)) {
      const pid = Number(readFileSync(marker, "utf8"));
      if (pid > 0) return pid;
    }
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error("the up-front command never started");
}

/** Once the `n`-th agent was started (5 s at most: the up-front command is a real process). */
async function agentStarted(spawner: FakeSpawner, n = 1): Promise<void> {
  for (const deadline = Date.now() + 5_000; spawner.agents.length < n;) {
    if (Date.now() > deadline) throw new Error(`agent ${n} was never started`);
    await new Promise((resolve) => setTimeout(resolve, 1));
  }
}

/** The agent draws, goes quiet, echoes the paste and goes quiet again: the task is typed, then Enter. */
function typesTheTask(agent: FakeAgent, clock: ManualClock): void {
  agent.print("Amp\r\n");
  clock.advance(300);
  clock.advance(300);
  expect(agent.typed).toEqual(["\x1b[200~fix the build\x1b[201~", "\r"]);
}

/** Whether the process `pid` has ended (5 s at most). */
async function gone(pid: number): Promise<boolean> {
  for (const deadline = Date.now() + 5_000; Date.now() < deadline;) {
    try {
      process.kill(pid, 0);
    } catch {
      return true;
    }
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  return false;
}

describe("a stop signal during the up-front command", () => {
  it("without one, the thread made up front is pinned and continued, and gets the task (the harness works)", async () => {
    const { spawner, options, started, clock } = session(false);
    const done = runSession(options);
    await agentStarted(spawner);
    expect(existsSync(started)).toBe(true);
    expect(spawner.last.argv).toEqual([options.agent.command, "--mode", "smart", "threads", "continue", THREAD]);
    typesTheTask(spawner.last, clock);
    spawner.last.end(0);
    expect(await done).toBe(0);
    expect(await readPointer(options.pointer.path)).toMatchObject({ kind: "ok", pointer: { id: THREAD, state: "confirmed", source: { rule: "threads-new" } } });
  });

  it("an agent that ends before its task was typed leaves no pointer: the next start makes a thread again and types the task", async () => {
    const { spawner, lines, options, clock } = session(false);
    const first = runSession(options);
    await agentStarted(spawner);
    // The workspace stops (agentapi's SIGINT reaches Amp) before the screen went quiet.
    spawner.last.print("Amp\r\n");
    spawner.last.end(0, 2);
    expect(await first).toBe(130);
    expect(spawner.last.typed).toEqual([]);
    expect(await readPointer(options.pointer.path)).toEqual({ kind: "missing" });
    expect(lines.some((line) => line.includes("ended before its task was typed"))).toBe(true);

    const second = runSession(options);
    await agentStarted(spawner, 2);
    expect(spawner.last.argv).toEqual([options.agent.command, "--mode", "smart", "threads", "continue", THREAD]);
    typesTheTask(spawner.last, clock);
    spawner.last.end(0);
    expect(await second).toBe(0);
    expect(await readPointer(options.pointer.path)).toMatchObject({ kind: "ok", pointer: { id: THREAD } });
  });

  // README, exit codes: 128+N for signal N, as if the agent had died of it.
  it.each([["SIGINT", 130], ["SIGTERM", 143]] as const)("%s stops `threads new`, never starts the agent and exits %i", async (signal, code) => {
    const { spawner, lines, options, started } = session(true);
    const done = runSession(options);
    const pid = await upfrontRunning(started);
    // What the signal handler receives; a real signal would reach the test runner as well.
    process.emit(signal, signal);
    expect(await done).toBe(code);
    expect(spawner.agents).toEqual([]);
    // The abort kills it (SIGTERM) and sessionpin goes on without waiting for it to be gone.
    expect(await gone(pid)).toBe(true);
    expect(lines).toContain(`${signal} arrived before the agent started; not starting it`);
    // Nothing was created, so nothing is pinned.
    expect(await readPointer(options.pointer.path)).toEqual({ kind: "missing" });
  });
});
