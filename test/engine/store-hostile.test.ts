/**
 * Files the agent or another user controls, where sessionpin reads: a FIFO, whose open waits for
 * a writer in a call no signal ends. Each FIFO here has a writer waiting for a reader, so that
 * code which opened it would go on (and these tests would see what it read) instead of hanging
 * the suite; code that never opens it leaves that writer waiting, and it is killed. The same
 * attacks on the built CLI, with deadlines and memory bounds, and links to /dev/zero, are torture
 * family 9 (test/torture/families/stores.ts).
 */
import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { claude } from "../../src/agents/claude.js";
import { gemini } from "../../src/agents/gemini.js";
import { opencode } from "../../src/agents/opencode.js";
import type { RunContext } from "../../src/agents/types.js";
import { systemClock } from "../../src/clock.js";
import type { Candidate } from "../../src/engine/source.js";
import { StoreWatch } from "../../src/engine/store-watch.js";

const ID = "0f3c2a9e-5b7d-4e21-9c4a-8d6f1e2b3a40";
const dirs: string[] = [];
const writers: ChildProcess[] = [];
let home: string;
let context: RunContext;
beforeEach(() => {
  home = mkdtempSync(join(tmpdir(), "sessionpin-hostile-"));
  dirs.push(home);
  context = { home, cwd: "/w/p", env: {} };
});
afterEach(() => {
  for (const writer of writers.splice(0)) writer.kill("SIGKILL");
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A FIFO at `path` whose writer waits to give `text` to the first reader. */
function fifo(path: string, text: string): ChildProcess {
  mkdirSync(join(path, ".."), { recursive: true });
  execFileSync("mkfifo", [path]);
  const writer = spawn("sh", ["-c", 'printf %s "$1" > "$0"', path, text], { stdio: "ignore" });
  writers.push(writer);
  return writer;
}

/** Nothing opened the FIFO: its writer, which would have ended at once, is still waiting a while later. */
async function neverOpened(writer: ChildProcess): Promise<boolean> {
  const ended = new Promise<boolean>((resolve) => writer.once("exit", () => resolve(false)));
  return Promise.race([ended, new Promise<boolean>((resolve) => setTimeout(() => resolve(writer.exitCode === null), 300))]);
}

function watch(plugin: typeof claude) {
  const seen: Candidate[] = [];
  return { w: new StoreWatch(plugin, context, systemClock, () => undefined, (c) => seen.push(c)), seen };
}

describe("a FIFO where sessionpin reads", () => {
  // Regression: `run`/`plan -- gemini` hung before the agent started, SIGTERM ignored.
  it("at Gemini's projects.json: the project's folder is the slug it would claim, nothing waits", async () => {
    const writer = fifo(join(home, ".gemini", "projects.json"), JSON.stringify({ projects: { "/w/p": "from-the-fifo" } }));
    expect(gemini.store?.where(context, new Date())).toEqual([{ dir: join(home, ".gemini", "tmp", "p", "chats"), depth: 0 }]);
    expect(await neverOpened(writer)).toBe(true);
  });

  // Regression: a FIFO named like a transcript in Claude's project folder froze the terminal.
  it("named like a transcript in Claude's project folder while the agent runs: not opened, not taken", async () => {
    const project = join(home, ".claude", "projects", "-w-p");
    mkdirSync(project, { recursive: true });
    const { w, seen } = watch(claude);
    w.before();
    const writer = fifo(join(project, `${ID}.jsonl`), "{}\n");
    w.poll(process.pid);
    w.stop(process.pid);
    expect(seen).toEqual([]);
    expect(await neverOpened(writer)).toBe(true);
  });

  it("at Claude's pid file: not read", async () => {
    const writer = fifo(join(home, ".claude", "sessions", `${process.pid}.json`), JSON.stringify({ sessionId: ID }));
    const { w, seen } = watch(claude);
    w.before();
    w.poll(process.pid);
    expect(seen).toEqual([]);
    expect(await neverOpened(writer)).toBe(true);
  });

  it("at OpenCode's log: not read", async () => {
    const log = join(home, ".local", "share", "opencode", "log", "opencode.log");
    const writer = fifo(log, `timestamp=2026-11-25T20:18:13.936Z level=INFO message=created id=ses_deba424cfffexLzwia0wxH1kRO directory=/w/p parentID=undefined\n`);
    const { w, seen } = watch(opencode);
    w.before();
    w.poll(process.pid);
    expect(seen).toEqual([]);
    expect(await neverOpened(writer)).toBe(true);
  });
});
