/**
 * Where a session's store entry was found is remembered beside the pointers
 * (<state>/sessionpin/.stores/<agent>.json): by the look-up before a warm start when it took a
 * listing, and by the store watch when the running agent's entry appears. The next start looks
 * there first. A memo is never the truth: a stale one costs a search, and none is written where
 * sessionpin keeps no state folder.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterEach, beforeEach, expect, it } from "vitest";
import { codex } from "../../src/agents/codex.js";
import type { RunContext } from "../../src/agents/types.js";
import { systemClock } from "../../src/clock.js";
import { StoreWatch } from "../../src/engine/store-watch.js";
import { lookUpSession } from "../../src/engine/store-lookup.js";
import { writePointer } from "../../src/pointer/store.js";
import { readStartInputs } from "../../src/run/inputs.js";
import { recallEntry } from "../../src/state/store-index.js";

// Not a UUIDv7: only a search finds its rollout when the capture date does not say.
const ID = "0f3c2a9e-5b7d-4e21-9c4a-8d6f1e2b3a40";
const NOW = new Date(2026, 10, 25, 12, 0);
const dirs: string[] = [];
let dir: string;
let context: RunContext;
let state: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "sessionpin-memo-"));
  dirs.push(dir);
  state = join(dir, "xdg-state");
  const home = join(dir, "home");
  context = { home, cwd: join(dir, "project"), env: { HOME: home, XDG_STATE_HOME: state } };
});
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

const day = (d: string): string => join(context.home, ".codex", "sessions", "2026", "08", d);
function rollout(folder: string, id = ID): string {
  const path = join(folder, `rollout-2026-08-${folder.slice(-2)}T10-00-00-${id}.jsonl`);
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, `${JSON.stringify({ type: "session_meta", payload: { id, cwd: context.cwd, source: "cli" } })}\n`);
  return path;
}
const pointerPath = (): string => join(state, "sessionpin", "codex", "pointer.json");
async function pin(): Promise<void> {
  await writePointer(pointerPath(), {
    version: 1, agent: "codex", id: ID, state: "confirmed", cwd: context.cwd, capturedAt: NOW.toISOString(), source: { rule: "test" }, history: [],
  });
}

it("a look-up that had to search remembers where it found the entry; the next one starts there", async () => {
  await pin();
  const path = rollout(day("17"));
  for (const d of ["10", "11", "12"]) rollout(day(d), `7a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c${d}`);
  expect((await readStartInputs(pointerPath(), codex, [], context, NOW)).gone).toBeUndefined();
  expect(recallEntry(context, "codex", ID)).toBe(path);
  expect(JSON.parse(readFileSync(join(state, "sessionpin", ".stores", "codex.json"), "utf8"))).toEqual({ version: 1, entries: [[ID, path]] });
  expect(await lookUpSession(codex, ID, [], context, NOW, { remembered: () => recallEntry(context, "codex", ID) })).toMatchObject({ via: "remembered" });
});

it("a stale memo costs a search, and is replaced", async () => {
  await pin();
  const first = rollout(day("17"));
  await readStartInputs(pointerPath(), codex, [], context, NOW);
  const moved = join(day("18"), `rollout-2026-08-18T10-00-00-${ID}.jsonl`);
  mkdirSync(day("18"), { recursive: true });
  renameSync(first, moved);
  expect((await readStartInputs(pointerPath(), codex, [], context, NOW)).gone).toBeUndefined();
  expect(recallEntry(context, "codex", ID)).toBe(moved);
  rmSync(moved);
  expect((await readStartInputs(pointerPath(), codex, [], context, NOW)).gone).toContain(`session ${ID} is gone from codex's own store`);
});

it("the store watch remembers the running agent's entry", async () => {
  mkdirSync(join(state, "sessionpin"), { recursive: true });
  const now = new Date();
  const today = join(context.home, ".codex", "sessions", String(now.getFullYear()), String(now.getMonth() + 1).padStart(2, "0"), String(now.getDate()).padStart(2, "0"));
  mkdirSync(today, { recursive: true });
  const watch = new StoreWatch(codex, context, systemClock, () => undefined, () => undefined);
  watch.before();
  const path = rollout(today);
  watch.stop(process.pid);
  await new Promise((resolve) => setTimeout(resolve, 100));
  expect(recallEntry(context, "codex", ID)).toBe(path);
});

it("writes nothing where sessionpin keeps no state folder", async () => {
  const explicit = join(dir, "elsewhere", "pointer.json");
  await writePointer(explicit, { version: 1, agent: "codex", id: ID, state: "confirmed", cwd: context.cwd, capturedAt: NOW.toISOString(), source: { rule: "test" }, history: [] });
  rollout(day("17"));
  expect((await readStartInputs(explicit, codex, [], context, NOW)).gone).toBeUndefined();
  expect(existsSync(state)).toBe(false);
});
