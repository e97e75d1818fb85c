/**
 * The store index is a memo of where each session's store entry was last found: it remembers the
 * newest, at most 256, only inside a state folder that is there, and a file it did not write (or
 * an agent name that could leave the folder) costs a search, never a wrong answer or a throw.
 * (That a warm start uses it is test/run/store-memo.test.ts's.)
 */
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { RunContext } from "../../src/agents/types.js";
import { recallEntry, rememberEntry } from "../../src/state/store-index.js";

let dir: string;
let context: RunContext;
const stores = (): string => join(dir, "state", "sessionpin", ".stores");
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "sessionpin-store-index-"));
  context = { home: dir, cwd: "/w/p", env: { XDG_STATE_HOME: join(dir, "state") } };
  mkdirSync(join(dir, "state", "sessionpin"), { recursive: true });
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe("the store index", () => {
  it("recalls where an entry was found last, per agent", async () => {
    await rememberEntry(context, "codex", "s1", "/store/2026/11/01/rollout-s1.jsonl");
    await rememberEntry(context, "claude", "s1", "/store/-w-p/s1.jsonl");
    await rememberEntry(context, "codex", "s1", "/store/2026/11/02/rollout-s1.jsonl");
    expect(recallEntry(context, "codex", "s1")).toBe("/store/2026/11/02/rollout-s1.jsonl");
    expect(recallEntry(context, "claude", "s1")).toBe("/store/-w-p/s1.jsonl");
    expect(recallEntry(context, "codex", "s2")).toBeUndefined();
  });

  it("keeps the newest 256, and every one of many remembered at once", async () => {
    await Promise.all(Array.from({ length: 300 }, (_, i) => rememberEntry(context, "codex", `s${i}`, `/e/${i}`)));
    expect(recallEntry(context, "codex", "s43")).toBeUndefined();
    expect(recallEntry(context, "codex", "s44")).toBe("/e/44");
    expect(recallEntry(context, "codex", "s299")).toBe("/e/299");
  });

  it("writes nothing where there is no state folder, and takes no agent name that could leave its folder", async () => {
    await rememberEntry(context, "../codex", "s1", "/e/1");
    expect(recallEntry(context, "../codex", "s1")).toBeUndefined();
    expect(existsSync(join(dir, "state", "codex.json"))).toBe(false);
    rmSync(join(dir, "state"), { recursive: true });
    await rememberEntry(context, "codex", "s1", "/e/1");
    expect(existsSync(join(dir, "state"))).toBe(false);
  });

  it("reads a file it did not write as empty, writes it again, and sweeps a dead writer's temp file", async () => {
    mkdirSync(stores());
    // No process has pid 2^22 + 1: Linux allows none above 2^22.
    const leftover = `.codex.json.${(1 << 22) + 1}.0a1b.tmp`;
    writeFileSync(join(stores(), leftover), "{");
    for (const garbage of ["{", JSON.stringify({ version: 2, entries: [["s1", "/e/1"]] }), JSON.stringify({ version: 1, entries: [["s1", 7], "s1"] })]) {
      writeFileSync(join(stores(), "codex.json"), garbage);
      expect(recallEntry(context, "codex", "s1")).toBeUndefined();
    }
    await rememberEntry(context, "codex", "s2", "/e/2");
    expect(recallEntry(context, "codex", "s2")).toBe("/e/2");
    expect(readdirSync(stores())).toEqual(["codex.json"]);
  });
});
