/**
 * The store watch while the agent runs: a look at an unchanged store lists nothing, whatever its
 * size; a new entry is found, and judged by what it is (a file or folder, never through a link);
 * the looks while the agent runs are off the relay's thread, and stop() drops one under way.
 */
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { claude } from "../../src/agents/claude.js";
import { copilot } from "../../src/agents/copilot.js";
import type { RunContext } from "../../src/agents/types.js";
import { systemClock } from "../../src/clock.js";
import type { Candidate } from "../../src/engine/source.js";
import { StoreWatch } from "../../src/engine/store-watch.js";
import type { Pinned } from "../../src/engine/tracker.js";
import { ManualClock } from "../helpers/clock.js";

const listed: string[] = [];
vi.mock("node:fs", async (importOriginal) => {
  const real = await importOriginal<typeof import("node:fs")>();
  return { ...real, readdirSync: (path: string, ...rest: unknown[]) => (listed.push(String(path)), (real.readdirSync as (...a: unknown[]) => unknown)(path, ...rest)) };
});
vi.mock("node:fs/promises", async (importOriginal) => {
  const real = await importOriginal<typeof import("node:fs/promises")>();
  return { ...real, readdir: (path: string, ...rest: unknown[]) => (listed.push(String(path)), (real.readdir as (...a: unknown[]) => unknown)(path, ...rest)) };
});

const uuid = (n: number): string => `0f3c2a9e-5b7d-4e21-9c4a-${n.toString(16).padStart(12, "0")}`;
const dirs: string[] = [];
let home: string;
let context: RunContext;
let project: string;
beforeEach(() => {
  home = mkdtempSync(join(tmpdir(), "sessionpin-watch-"));
  dirs.push(home);
  context = { home, cwd: "/w/p", env: {} };
  project = join(home, ".claude", "projects", "-w-p");
  mkdirSync(project, { recursive: true });
  listed.length = 0;
});
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A folder last changed a minute ago: its stamp can be trusted. */
const settle = (dir: string): void => utimesSync(dir, new Date(Date.now() - 60_000), new Date(Date.now() - 60_000));

function watch(plugin = claude, pinned: () => Pinned | undefined = () => undefined, clock = systemClock) {
  const seen: Candidate[] = [];
  const w = new StoreWatch(plugin, context, clock, pinned, (candidate) => seen.push(candidate));
  return { w, seen, ids: () => seen.filter((c) => c.source === "store").map((c) => c.value) };
}

describe("what a look costs", () => {
  it("lists a watched folder before the spawn and then only when it changed, whatever its size", () => {
    for (let n = 1; n <= 2_000; n++) writeFileSync(join(project, `${uuid(n)}.jsonl`), "{}\n");
    settle(project);
    const { w, ids } = watch();
    w.before();
    expect(listed).toEqual([project]);
    for (let i = 0; i < 5; i++) w.poll(process.pid);
    expect(listed).toEqual([project]);
    writeFileSync(join(project, `${uuid(9_999)}.jsonl`), "{}\n");
    w.poll(process.pid);
    expect(ids()).toEqual([uuid(9_999)]);
    expect(listed).toEqual([project, project]);
  });

  it("confirms a provisional pin from the folder as listed, without listing it again", () => {
    writeFileSync(join(project, `${uuid(1)}.jsonl`), "{}\n");
    settle(project);
    const { w, ids } = watch(claude, () => ({ id: uuid(1), state: "provisional", rule: "chosen" }));
    w.before();
    w.poll(process.pid);
    expect(ids()).toEqual([uuid(1)]);
    expect(listed).toEqual([project]);
  });

  it("looks off the thread while the agent runs, and stop() drops a look under way", async () => {
    const clock = new ManualClock();
    const { w, ids } = watch(claude, () => undefined, clock);
    w.before();
    w.start(process.pid);
    writeFileSync(join(project, `${uuid(2)}.jsonl`), "{}\n");
    clock.advance(500);
    // The look has begun: nothing is taken until its reads come back.
    expect(ids()).toEqual([]);
    await vi.waitFor(() => expect(ids()).toEqual([uuid(2)]));
    writeFileSync(join(project, `${uuid(3)}.jsonl`), "{}\n");
    clock.advance(500);
    w.stop(process.pid);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(ids()).toEqual([uuid(2), uuid(3)]);
  });
});

describe("what a new entry is", () => {
  it("takes files and folders only: a link named like a transcript is nobody's session", () => {
    const { w, ids } = watch();
    w.before();
    writeFileSync(join(home, "elsewhere.jsonl"), "{}\n");
    symlinkSync(join(home, "elsewhere.jsonl"), join(project, `${uuid(4)}.jsonl`));
    w.poll(process.pid);
    expect(ids()).toEqual([]);
  });

  it("reads a shared store's head until it says whose the session is, never through a link", () => {
    const state = join(home, ".copilot", "session-state");
    mkdirSync(state, { recursive: true });
    const { w, ids } = watch(copilot);
    w.before();
    const start = (cwd: string): string => `${JSON.stringify({ type: "session.start", data: { context: { cwd } } })}\n`;
    mkdirSync(join(state, uuid(5)));
    mkdirSync(join(state, uuid(6)));
    w.poll(process.pid);
    // events.jsonl comes after the folder: asked again on the next look.
    writeFileSync(join(state, uuid(5), "events.jsonl"), start("/w/p"));
    writeFileSync(join(home, "events.jsonl"), start("/w/p"));
    symlinkSync(join(home, "events.jsonl"), join(state, uuid(6), "events.jsonl"));
    w.poll(process.pid);
    w.poll(process.pid);
    expect(ids()).toEqual([uuid(5)]);
  });
});
