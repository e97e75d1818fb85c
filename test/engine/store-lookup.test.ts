/**
 * The look-up before a warm start finds the pinned session's store entry without listing the
 * store: by its exact name, where it was last found, or the folders the layout puts it in, and
 * only then by a bounded search that follows no link. What it lists is counted here (the cost
 * itself is the bench's: bench/sections/stores.mjs); "gone" stays as sure as a full listing.
 */
import { mkdirSync, mkdtempSync, renameSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { claude } from "../../src/agents/claude.js";
import { codex } from "../../src/agents/codex.js";
import { copilot } from "../../src/agents/copilot.js";
import type { RunContext } from "../../src/agents/types.js";
import { lookUpSession } from "../../src/engine/store-lookup.js";

const listed: string[] = [];
vi.mock("node:fs/promises", async (importOriginal) => {
  const real = await importOriginal<typeof import("node:fs/promises")>();
  return { ...real, readdir: (path: string, ...rest: unknown[]) => (listed.push(String(path)), (real.readdir as (...a: unknown[]) => unknown)(path, ...rest)) };
});

const DAY = 86_400_000;
const NOW = new Date(2026, 10, 25, 12, 0);
const dirs: string[] = [];
let home: string;
let context: RunContext;
beforeEach(() => {
  home = mkdtempSync(join(tmpdir(), "sessionpin-lookup-"));
  dirs.push(home);
  context = { home, cwd: "/w/p", env: {} };
  listed.length = 0;
});
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

const pad = (n: number): string => String(n).padStart(2, "0");
/** A UUIDv7 of `ms`, as Codex 0.169 mints thread IDs; `tail` tells IDs of one millisecond apart. */
const v7 = (ms: number, tail = 0): string => {
  const t = ms.toString(16).padStart(12, "0");
  return `${t.slice(0, 8)}-${t.slice(8, 12)}-7abc-8def-${tail.toString(16).padStart(12, "0")}`;
};
const v4 = (n: number): string => `0f3c2a9e-5b7d-4e21-9c4a-${n.toString(16).padStart(12, "0")}`;
const sessions = (): string => join(home, ".codex", "sessions");
const dayOf = (at: Date): string => join(sessions(), String(at.getFullYear()), pad(at.getMonth() + 1), pad(at.getDate()));

/** A rollout as Codex files it: in the local day folder of its start, named by its local time. */
function rollout(at: Date, id: string): string {
  const stamp = `${at.getFullYear()}-${pad(at.getMonth() + 1)}-${pad(at.getDate())}T${pad(at.getHours())}-${pad(at.getMinutes())}-${pad(at.getSeconds())}`;
  const path = join(dayOf(at), `rollout-${stamp}-${id}.jsonl`);
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, "{}\n");
  return path;
}

/** Sixty days of rollouts, three a day. */
function codexStore(): void {
  for (let d = 0; d < 60; d++) for (let n = 0; n < 3; n++) rollout(new Date(NOW.getTime() - d * DAY - n * 3_600_000), v7(NOW.getTime() - d * DAY - n * 3_600_000, 1));
}

describe("a store whose entry names only the ID (Claude, Copilot, Auggie, Kiro, Qwen, Cursor)", () => {
  const ID = v4(1);
  const project = (): string => join(home, ".claude", "projects", "-w-p");
  function claudeStore(withSession: boolean): void {
    mkdirSync(project(), { recursive: true });
    for (let n = 2; n < 300; n++) writeFileSync(join(project(), `${v4(n)}.jsonl`), "{}\n");
    if (withSession) writeFileSync(join(project(), `${ID}.jsonl`), "{}\n");
  }

  it("finds the session, and says it is gone, without listing the folder", async () => {
    claudeStore(true);
    expect(await lookUpSession(claude, ID, [], context, NOW)).toEqual({ kind: "there", path: join(project(), `${ID}.jsonl`), via: "name" });
    rmSync(join(project(), `${ID}.jsonl`));
    expect(await lookUpSession(claude, ID, [], context, NOW)).toEqual({ kind: "gone", looked: [project()] });
    expect(listed).toEqual([]);
  });

  it("counts an entry that is a link or a FIFO as there: gone is said only of an absent name", async () => {
    claudeStore(false);
    symlinkSync("/nonexistent", join(project(), `${ID}.jsonl`));
    expect(await lookUpSession(claude, ID, [], context, NOW)).toMatchObject({ kind: "there" });
  });

  it("a folder entry (Copilot's session-state/<id>/) the same way", async () => {
    const state = join(home, ".copilot", "session-state");
    mkdirSync(join(state, ID), { recursive: true });
    expect(await lookUpSession(copilot, ID, [], context, NOW)).toMatchObject({ kind: "there", via: "name" });
    expect(await lookUpSession(copilot, v4(9), [], context, NOW)).toMatchObject({ kind: "gone" });
    expect(listed).toEqual([]);
  });
});

describe("Codex's rollouts, filed by day", () => {
  it("looks only in the day folders of the session's start, which its UUIDv7 carries", async () => {
    codexStore();
    const started = new Date(NOW.getTime() - 41 * DAY + 5_000);
    const id = v7(started.getTime(), 7);
    const path = rollout(started, id);
    expect(await lookUpSession(codex, id, [], context, NOW)).toEqual({ kind: "there", path, via: "likely" });
    expect(listed.length).toBeGreaterThan(0);
    expect(listed.every((dir) => [-1, 0, 1].some((shift) => dir === dayOf(new Date(started.getTime() + shift * DAY))))).toBe(true);
  });

  it("looks where it was last found first: one stat, nothing listed", async () => {
    codexStore();
    const id = v4(5);
    const path = rollout(new Date(NOW.getTime() - 200 * DAY), id);
    expect(await lookUpSession(codex, id, [], context, NOW, { remembered: () => path })).toEqual({ kind: "there", path, via: "remembered" });
    expect(listed).toEqual([]);
  });

  it("a remembered entry that moved, or one outside the store, is searched for again", async () => {
    codexStore();
    const id = v4(5);
    const old = rollout(new Date(NOW.getTime() - 200 * DAY), id);
    const moved = join(dayOf(new Date(NOW.getTime() - 100 * DAY)), "rollout-2026-08-17T10-00-00-" + id + ".jsonl");
    mkdirSync(dirname(moved), { recursive: true });
    renameSync(old, moved);
    expect(await lookUpSession(codex, id, [], context, NOW, { remembered: () => old })).toEqual({ kind: "there", path: moved, via: "search" });
    const outside = join(home, "elsewhere", `rollout-2026-08-17T10-00-00-${id}.jsonl`);
    mkdirSync(dirname(outside), { recursive: true });
    writeFileSync(outside, "{}\n");
    expect(await lookUpSession(codex, id, [], context, NOW, { remembered: () => outside })).toMatchObject({ kind: "there", path: moved });
  });

  it("an ID that is no UUIDv7 is looked for on the day sessionpin captured it", async () => {
    codexStore();
    const id = v4(6);
    const at = new Date(NOW.getTime() - 30 * DAY);
    const path = rollout(at, id);
    expect(await lookUpSession(codex, id, [], context, NOW, { capturedAt: new Date(at.getTime() + 60_000) })).toEqual({ kind: "there", path, via: "likely" });
    expect(listed.every((dir) => dir.startsWith(sessions()) && dir.split("/").length === sessions().split("/").length + 3)).toBe(true);
  });

  it("searches the store only when the layout does not say, and calls the session gone only when the search saw everything", async () => {
    codexStore();
    const id = v4(8);
    const path = rollout(new Date(NOW.getTime() - 50 * DAY), id);
    expect(await lookUpSession(codex, id, [], context, NOW)).toEqual({ kind: "there", path, via: "search" });
    rmSync(path);
    expect(await lookUpSession(codex, id, [], context, NOW)).toEqual({ kind: "gone", looked: [sessions()] });
  });

  // Regression: 40 links to `.` in ~/.codex/sessions cost 20 s and 2.1 GB before the agent
  // started (every link followed, three levels down), and the session was then called gone.
  it("follows no link, and a link it did not follow means the session is not called gone", async () => {
    codexStore();
    for (let n = 0; n < 12; n++) symlinkSync(".", join(sessions(), `loop-${n}`));
    const id = v4(10);
    expect(await lookUpSession(codex, id, [], context, NOW)).toEqual({ kind: "unknown" });
    expect(listed.filter((dir) => dir.includes("loop-"))).toEqual([]);
    // A rollout reached only through a link is not found either: the launch will tell.
    const elsewhere = join(home, "archive", "2026", "01", "02");
    mkdirSync(elsewhere, { recursive: true });
    writeFileSync(join(elsewhere, `rollout-2026-01-02T10-00-00-${id}.jsonl`), "{}\n");
    symlinkSync(join(home, "archive", "2026"), join(sessions(), "2025"));
    expect(await lookUpSession(codex, id, [], context, NOW)).toEqual({ kind: "unknown" });
  });

  it("a store kept behind a link of its own (~/.codex on another disk) is followed", async () => {
    const disk = join(home, "disk");
    mkdirSync(disk);
    const id = v7(NOW.getTime() - 3 * DAY);
    context = { ...context, env: { CODEX_HOME: join(home, "codex-link") } };
    symlinkSync(disk, join(home, "codex-link"));
    const at = new Date(NOW.getTime() - 3 * DAY);
    const day = join(disk, "sessions", String(at.getFullYear()), pad(at.getMonth() + 1), pad(at.getDate()));
    mkdirSync(day, { recursive: true });
    writeFileSync(join(day, `rollout-2026-01-01T00-00-00-${id}.jsonl`), "{}\n");
    expect(await lookUpSession(codex, id, [], context, NOW)).toMatchObject({ kind: "there", via: "likely" });
  });

  it("proves nothing without a store, or with one the command moved", async () => {
    expect(await lookUpSession(codex, v4(1), [], context, NOW)).toEqual({ kind: "unknown" });
    mkdirSync(join(home, ".copilot", "session-state"), { recursive: true });
    expect(await lookUpSession(copilot, v4(1), ["--config-dir=/x"], context, NOW)).toEqual({ kind: "unknown" });
  });
});
