/**
 * The session loop (lock, read, decide, execute, fall back once) with fake agents and the manual
 * clock: real pointer and lock files, no PTY and no sleeping.
 */
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { hostname, tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { claude } from "../../src/agents/claude.js";
import type { Logger } from "../../src/log/logger.js";
import { readPointer, writePointer } from "../../src/pointer/store.js";
import type { SessionOptions } from "../../src/run/options.js";
import { runSession } from "../../src/run/session.js";
import type { RunEvent, Sink } from "../../src/run/sinks.js";
import { ManualClock } from "../helpers/clock.js";
import { FakeScreen, FakeSpawner, type FakeAgent } from "../helpers/fake-pty.js";

const ID = "0f3c2a9e-5b7d-4e21-9c4a-8d6f1e2b3a40";
const sha16 = (text: string): string => createHash("sha256").update(text).digest("hex").slice(0, 16);
const PROMPT = "fix the build";
const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** What a test changes of the defaults below. */
interface Changes {
  readonly args?: readonly string[];
  readonly prompt?: string | undefined;
  readonly pointerPath?: string;
  readonly cwd?: string;
  readonly waitLockMs?: number;
  readonly sinks?: readonly Sink[];
}

function session(changes: Changes = {}) {
  const dir = mkdtempSync(join(tmpdir(), "sessionpin-session-"));
  dirs.push(dir);
  const clock = new ManualClock();
  const spawner = new FakeSpawner();
  const lines: string[] = [];
  const log: Logger = { info: (m) => void lines.push(m), warn: (m) => void lines.push(m), close: () => undefined };
  const options: SessionOptions = {
    agent: { command: "claude", args: changes.args ?? [], plugin: claude, cwd: changes.cwd ?? dir, env: { HOME: join(dir, "home") }, restoreHistory: false },
    message: { prompt: "prompt" in changes ? changes.prompt : PROMPT, resumePrompt: undefined },
    pointer: { path: changes.pointerPath ?? join(dir, "state", "pointer.json"), explicit: true },
    talk: { terminal: new FakeScreen(), spawn: spawner.spawn, promptQuietMs: 300, promptMaxWaitMs: 20_000 },
    report: { log, sinks: changes.sinks ?? [] },
    policy: { waitLockMs: changes.waitLockMs ?? 0, fallbackWindowMs: 15_000 },
    time: { clock, now: () => new Date(Date.UTC(2026, 10, 25) + clock.now()) },
  };
  return { dir, clock, spawner, lines, options };
}

async function pinnedTo(options: SessionOptions, id = ID): Promise<void> {
  await writePointer(options.pointer.path, {
    version: 1, agent: "claude", id, state: "confirmed", cwd: options.agent.cwd,
    capturedAt: "2026-11-24T10:00:00.000Z", confirmedAt: "2026-11-24T10:00:00.000Z", source: { rule: "transcript" }, history: [],
  });
}

/**
 * The `n`-th agent the session started (1-based), once it has (5 s at most). The loop runs on
 * real file I/O, so the bound is time, not a count of turns: on a loaded machine 10,000 turns
 * passed in 55 ms, before the lock and the pointer were read.
 */
async function started(spawner: FakeSpawner, n: number): Promise<FakeAgent> {
  for (const deadline = Date.now() + 5_000; spawner.agents.length < n;) {
    if (Date.now() > deadline) throw new Error(`agent ${n} was never started`);
    await new Promise((resolve) => setImmediate(resolve));
  }
  return spawner.agents[n - 1] as FakeAgent;
}

describe("the session loop", () => {
  it("a warm start resumes without the prompt, and never types it however long the screen stays quiet", async () => {
    const { clock, spawner, options } = session();
    await pinnedTo(options);
    const done = runSession(options);
    const agent = await started(spawner, 1);
    expect(agent.argv).toEqual(["claude", "--resume", ID]);
    agent.print("welcome back\r\n");
    clock.advance(60_000);
    expect(agent.typed).toEqual([]);
    agent.end(0);
    expect(await done).toBe(0);
  });

  it("falls back once: a rejected ID is set aside and a fresh session starts with the prompt in the same run", async () => {
    const { dir, spawner, options } = session();
    await pinnedTo(options);
    const done = runSession(options);
    const warm = await started(spawner, 1);
    warm.print(`No conversation found with session ID: ${ID}\r\n`);
    expect(warm.signals).toEqual(["SIGTERM"]);
    warm.end(1);
    const cold = await started(spawner, 2);
    const chosen = String(cold.argv[2]);
    expect(cold.argv).toEqual(["claude", "--session-id", chosen, "--", PROMPT]);
    cold.end(0);
    expect(await done).toBe(0);
    expect(readdirSync(join(dir, "state")).some((name) => name.startsWith("pointer.rejected-"))).toBe(true);
    const read = await readPointer(options.pointer.path);
    expect(read).toMatchObject({ kind: "ok", pointer: { id: chosen, history: [{ id: ID }] } });
    expect(spawner.agents).toHaveLength(2);
  });

  it("a caller's own sink hears the run as events: the resumed ID, the output, its rejection, then the new session's pin", async () => {
    const heard: RunEvent[] = [];
    const hear = (event: RunEvent): void => void heard.push(event);
    const { spawner, options } = session({ sinks: [{ resumed: hear, rejected: hear, pin: hear, output: hear }] });
    await pinnedTo(options);
    const done = runSession(options);
    const warm = await started(spawner, 1);
    warm.print(`No conversation found with session ID: ${ID}\r\n`);
    warm.end(1);
    const cold = await started(spawner, 2);
    const chosen = String(cold.argv[2]);
    cold.print("ready\r\n");
    cold.end(0);
    expect(await done).toBe(0);
    const said = heard.map((e) => (e.kind === "output" ? `output ${e.chunk.toString()}` : e.kind === "pin" ? `pin ${e.pin.kind} ${e.pin.pinned.id}` : `${e.kind} ${"id" in e ? e.id : ""}`));
    expect(said).toEqual([`resumed ${ID}`, `output No conversation found with session ID: ${ID}\r\n`, `rejected ${ID}`, `pin captured ${chosen}`, "output ready\r\n"]);
  });

  it("a caller's own --resume runs as given: the pointer is neither resumed nor set aside, and follows the session the agent runs in", async () => {
    const OTHER = "5e1d9c2b-8a7f-4b3c-9d2e-1f0a6b5c4d3e";
    const { dir, spawner, options } = session({ args: ["--resume", OTHER] });
    await pinnedTo(options);
    const done = runSession(options);
    const agent = await started(spawner, 1);
    expect(agent.argv).toEqual(["claude", "--resume", OTHER]);
    agent.print(`{"type":"system","subtype":"init","session_id":"${OTHER}"}\r\n`);
    // What the agent says of an unknown session is its own answer to its caller: no fresh start follows.
    agent.print(`No conversation found with session ID: ${OTHER}\r\n`);
    agent.end(1);
    expect(await done).toBe(1);
    expect(spawner.agents).toHaveLength(1);
    expect(readdirSync(join(dir, "state")).filter((name) => name !== "pointer.json" && !name.endsWith(".lock"))).toEqual([]);
    const read = await readPointer(options.pointer.path);
    expect(read).toMatchObject({ kind: "ok", pointer: { id: OTHER, history: [{ id: ID }] } });
  });

  it("a second run on a held pointer exits 75 at once, or waits for it with --wait-lock", async () => {
    const held = session();
    // This process holds it: alive, on this host, since after it started.
    const lock = `${held.options.pointer.path}.lock`;
    await pinnedTo(held.options);
    writeFileSync(lock, JSON.stringify({ pid: process.pid, startedAt: new Date().toISOString(), host: hostname() }));
    await expect(runSession(held.options)).rejects.toMatchObject({ code: "pointer-locked", exitCode: 75 });
    expect(held.spawner.agents).toEqual([]);
    // A bridge knows its threads by key: the line names the key and who holds it.
    await expect(runSession({ ...held.options, pointer: { ...held.options.pointer, key: "discord-1203" } })).rejects.toMatchObject({
      message: expect.stringMatching(new RegExp(`^sessionpin: the session of key "discord-1203" \\(.+\\) is in use by sessionpin pid ${process.pid} on `)) as unknown,
    });

    const waiting = session({ pointerPath: held.options.pointer.path, cwd: held.options.agent.cwd, waitLockMs: 5_000 });
    const done = runSession(waiting.options);
    // Its poll timer is set right after it says it waits; time may move only then (a fixed number
    // of turns was too few for the lock file's reads on a loaded machine, and the advance was lost).
    for (const deadline = Date.now() + 5_000; !waiting.lines.some((line) => line.startsWith("waiting up to"));) {
      if (Date.now() > deadline) throw new Error("the second run never started waiting");
      await new Promise((resolve) => setImmediate(resolve));
    }
    expect(waiting.spawner.agents).toEqual([]);
    rmSync(lock);
    waiting.clock.advance(200);
    const agent = await started(waiting.spawner, 1);
    expect(agent.argv).toEqual(["claude", "--resume", ID]);
    agent.end(0);
    expect(await done).toBe(0);
  });

  it("a stop asked for while it waits for a lock starts nothing, ends as the signal would, and leaves no lock of its own", async () => {
    for (const which of ["pointer", "session"] as const) {
      const held = session({ waitLockMs: 60_000 });
      await pinnedTo(held.options);
      // A live holder on this host since now: the pointer's own lock, or the session's driver
      // (another pointer naming the same session).
      const lock = which === "pointer"
        ? `${held.options.pointer.path}.lock`
        : join(held.options.agent.env["HOME"] ?? "", ".local", "state", "sessionpin", ".drivers", `claude-${sha16(ID)}.lock`);
      mkdirSync(dirname(lock), { recursive: true });
      const holder = JSON.stringify({ pid: process.pid, startedAt: new Date().toISOString(), host: hostname() });
      writeFileSync(lock, holder);
      const done = runSession(held.options);
      for (const deadline = Date.now() + 5_000; !held.lines.some((line) => line.startsWith("waiting up to"));) {
        if (Date.now() > deadline) throw new Error(`never waited for the ${which} lock`);
        await new Promise((resolve) => setImmediate(resolve));
      }
      process.emit("SIGTERM", "SIGTERM");
      held.clock.advance(200);
      expect(await done).toBe(128 + 15);
      expect(held.spawner.agents).toEqual([]);
      expect(held.lines).toContain("SIGTERM arrived before the agent started; not starting it");
      expect(readFileSync(lock, "utf8")).toBe(holder);
      expect(existsSync(`${held.options.pointer.path}.lock`)).toBe(which === "pointer");
    }
  });

  it("a one-shot message counts as had only once the agent answered it: a failed run sends it again, a repeat starts nothing", async () => {
    const first = session({ args: ["-p", "fix it"], prompt: undefined });
    await pinnedTo(first.options);
    const failed = runSession(first.options);
    const broken = await started(first.spawner, 1);
    expect(broken.argv).toEqual(["claude", "-p", "--resume", ID, "--", "fix it"]);
    first.clock.advance(20_000);
    broken.end(1);
    expect(await failed).toBe(1);
    expect((await readPointer(first.options.pointer.path))).toMatchObject({ kind: "ok", pointer: { id: ID } });
    expect(((await readPointer(first.options.pointer.path)) as { pointer: { messages?: unknown } }).pointer.messages).toBeUndefined();

    const retry = session({ args: ["-p", "fix it"], prompt: undefined, pointerPath: first.options.pointer.path, cwd: first.options.agent.cwd });
    const answered = runSession(retry.options);
    const agent = await started(retry.spawner, 1);
    expect(agent.argv).toEqual(["claude", "-p", "--resume", ID, "--", "fix it"]);
    agent.end(0);
    expect(await answered).toBe(0);
    expect(await readPointer(first.options.pointer.path)).toMatchObject({ kind: "ok", pointer: { messages: [{ sha256: expect.stringMatching(/^[0-9a-f]{64}$/) as unknown }] } });

    const repeat = session({ args: ["-p", "fix it"], prompt: undefined, pointerPath: first.options.pointer.path, cwd: first.options.agent.cwd });
    expect(await runSession(repeat.options)).toBe(4);
    expect(repeat.spawner.agents).toEqual([]);
  });
});
