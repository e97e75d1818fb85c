import { execFileSync } from "node:child_process";
import { mkdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { agents } from "../../src/agents/registry.js";
import type { RunContext, SessionStore } from "../../src/agents/types.js";
import { folderStampSync, kindOfSync, readSpanSync } from "../../src/engine/store-files.js";
import { listSync, StoreFolders, type Watched } from "../../src/engine/store-folders.js";
import { useTempDir } from "../pointer/tempdir.js";

const tmp = useTempDir();
const ID = "5f0c2a9e-1b7d-4e21-9c4a-8d6f1e2b3a40";
const OTHER = "7d3e9a41-2c58-4f0b-b6e7-19a8c5d2f304";
const uuid = (n: number): string => `5f0c2a9e-1b7d-4e21-9c4a-${n.toString(16).padStart(12, "0")}`;

/**
 * A built-in agent's store in a temp HOME, watched through StoreFolders with the real readers:
 * `before` lists it as the spawn finds it, `look` as the watch does while the agent runs. `at` is
 * the watch's clock: later than any file written here unless a test moves it.
 */
function watched(store: SessionStore) {
  const context: RunContext = { home: join(tmp.path, "home"), cwd: "/w/project", env: {} };
  const clock = { at: Date.now() + 60_000 };
  const folders = new StoreFolders(store, context, () => clock.at);
  const place = store.where(context, new Date(clock.at))[0];
  if (place === undefined) throw new Error("no folder to watch");
  mkdirSync(place.dir, { recursive: true });
  const put = (name: string, text = "{}\n"): string => {
    const path = join(place.dir, name);
    writeFileSync(path, text);
    return path;
  };
  return {
    context, clock, folders, dir: place.dir, put,
    before(): Watched {
      const stamp = folderStampSync(place.dir);
      const listing = listSync(place);
      const folder = folders.folder(place, listing);
      folders.took(folder, stamp, listing);
      return folder;
    },
    look(): void {
      const folder = folders.folder(place);
      const stamp = folderStampSync(folder.dir);
      if (folders.due(folder, stamp)) folders.listed(folder, stamp, listSync(folder));
    },
    /** The pending entries due now, each with what it is on disk. */
    due() {
      return folders.dueEntries().map((entry) => Object.assign(entry, { kind: kindOfSync(entry.path) }));
    },
  };
}

describe("new entries while the agent runs", () => {
  it("are the names the store's pattern takes that were not there at the spawn, each with its ID", () => {
    const w = watched(agents.claude.store as SessionStore);
    w.put(`${OTHER}.jsonl`);
    w.before();
    w.put(`${ID}.jsonl`);
    w.put("notes.txt");
    w.look();
    expect(w.due().map((e) => [e.id, e.name])).toEqual([[ID, `${ID}.jsonl`]]);
  });

  it("are taken when they are files or folders, given up when they are links, FIFOs or gone", () => {
    const w = watched(agents.claude.store as SessionStore);
    w.before();
    w.put(`${ID}.jsonl`);
    symlinkSync("/etc/passwd", join(w.dir, `${uuid(1)}.jsonl`));
    execFileSync("mkfifo", [join(w.dir, `${uuid(2)}.jsonl`)]);
    w.look();
    const next = Object.fromEntries(w.due().map((e) => [e.id, w.folders.next(e)]));
    expect(next).toEqual({ [ID]: "take", [uuid(1)]: "drop", [uuid(2)]: "drop" });
    // Each judged once: nothing is due again, nor after another look at an unchanged folder.
    w.look();
    expect(w.due()).toEqual([]);
  });

  it("are given up when removed before they were judged", () => {
    const w = watched(agents.claude.store as SessionStore);
    w.before();
    const path = w.put(`${ID}.jsonl`);
    w.look();
    rmSync(path);
    w.look();
    expect(w.due()).toEqual([]);
  });

  it("are kept 64 at most: past that the oldest is given up", () => {
    const w = watched(agents.claude.store as SessionStore);
    w.before();
    for (let n = 1; n <= 70; n++) w.put(`${uuid(n)}.jsonl`);
    w.look();
    const due = w.due();
    expect(due).toHaveLength(64);
    expect(new Set(due.map((e) => e.id))).toEqual(new Set(Array.from({ length: 64 }, (_, i) => uuid(i + 7))));
  });

  it("are none in a store whose names hold only a prefix of the ID (Gemini's), or in a folder too big to tell new from old", () => {
    const gemini = watched(agents.gemini.store as SessionStore);
    gemini.before();
    gemini.put(`session-2026-11-29T03-50-${ID.slice(0, 8)}.jsonl`);
    gemini.look();
    expect(gemini.due()).toEqual([]);
    const claude = watched(agents.claude.store as SessionStore);
    const place = { dir: claude.dir, depth: 0 };
    const folder = claude.folders.folder(place, { kind: "too-many" });
    claude.put(`${ID}.jsonl`);
    claude.folders.listed(folder, folderStampSync(claude.dir), listSync(place));
    expect(claude.due()).toEqual([]);
  });
});

describe("entries read before they are taken (a store shared by every folder)", () => {
  const start = (cwd: string): string => `${JSON.stringify({ type: "session.start", data: { sessionId: ID, context: { cwd } } })}\n`;

  it("reads the head of the entry's inner file, and takes it once the head says it is this folder's", () => {
    const w = watched(agents.copilot.store as SessionStore);
    w.before();
    mkdirSync(join(w.dir, ID));
    w.look();
    const [entry] = w.due();
    if (entry === undefined) throw new Error("no new entry");
    expect(w.folders.next(entry)).toBe("read");
    const head = w.folders.head(entry);
    expect(head).toEqual({ path: join(w.dir, ID, "events.jsonl"), maxBytes: 64 * 1024 });
    // Not written yet, then another folder's: not (yet) this one's, asked again later.
    expect(w.folders.belongs(entry, readSpanSync(head.path, 0, head))).toBe(false);
    writeFileSync(head.path, start("/w/elsewhere"));
    expect(w.folders.belongs(entry, readSpanSync(head.path, 0, head))).toBe(false);
    expect(w.due().map((e) => e.id)).toEqual([ID]);
    writeFileSync(head.path, start(w.context.cwd));
    expect(w.folders.belongs(entry, readSpanSync(head.path, 0, head))).toBe(true);
    expect(w.due()).toEqual([]);
  });

  it("reads 8 heads a look, and sends those read to the back of the line", () => {
    const w = watched(agents.copilot.store as SessionStore);
    w.before();
    for (let n = 1; n <= 12; n++) mkdirSync(join(w.dir, uuid(n)));
    w.look();
    const first = w.due().map((e) => e.id);
    const second = w.due().map((e) => e.id);
    expect(first).toEqual(Array.from({ length: 8 }, (_, i) => uuid(i + 1)));
    expect(second).toEqual([9, 10, 11, 12, 1, 2, 3, 4].map(uuid));
  });
});

describe("when a folder is listed again", () => {
  it("only once its stamp changed, unless it changed too recently for its stamp to be trusted", () => {
    const w = watched(agents.claude.store as SessionStore);
    const folder = w.before();
    expect(w.folders.due(folder, folderStampSync(w.dir))).toBe(false);
    w.put(`${ID}.jsonl`);
    expect(w.folders.due(folder, folderStampSync(w.dir))).toBe(true);
    // Listed a second after it changed: within the file system's clock tick, so listed again.
    const stamp = folderStampSync(w.dir);
    w.clock.at = (stamp?.mtimeMs ?? 0) + 1_000;
    w.folders.took(folder, stamp, listSync({ dir: w.dir, depth: 0 }));
    expect(w.folders.due(folder, folderStampSync(w.dir))).toBe(true);
    w.clock.at = (stamp?.mtimeMs ?? 0) + 3_000;
    w.folders.took(folder, stamp, listSync({ dir: w.dir, depth: 0 }));
    expect(w.folders.due(folder, folderStampSync(w.dir))).toBe(false);
  });

  it("at the next look after it could not be read", () => {
    const w = watched(agents.claude.store as SessionStore);
    const folder = w.before();
    w.folders.took(folder, folderStampSync(w.dir), { kind: "unreadable" });
    expect(w.folders.due(folder, folderStampSync(w.dir))).toBe(true);
  });
});

describe("entryOf, the pinned ID's entry in the folders as last listed", () => {
  it("is one question for a name that is the ID (Claude), and none before the folder was listed with it", () => {
    const w = watched(agents.claude.store as SessionStore);
    w.before();
    w.put(`${ID}.jsonl`);
    expect(w.folders.entryOf(ID)).toBeUndefined();
    w.look();
    expect(w.folders.entryOf(ID)).toBe(join(w.dir, `${ID}.jsonl`));
    expect(w.folders.entryOf(OTHER)).toBeUndefined();
  });

  it("reads the ID out of each name where the name holds more (Codex's time) or less (Gemini's 8 characters)", () => {
    const codex = watched(agents.codex.store as SessionStore);
    codex.put(`rollout-2026-11-29T03-50-34-${OTHER}.jsonl`);
    codex.put(`rollout-2026-11-29T03-51-00-${ID}.jsonl`);
    codex.before();
    expect(codex.folders.entryOf(ID)).toBe(join(codex.dir, `rollout-2026-11-29T03-51-00-${ID}.jsonl`));
    const gemini = watched(agents.gemini.store as SessionStore);
    gemini.put(`session-2026-11-29T03-50-${ID.slice(0, 8)}.jsonl`);
    gemini.before();
    expect(gemini.folders.entryOf(ID)).toBe(join(gemini.dir, `session-2026-11-29T03-50-${ID.slice(0, 8)}.jsonl`));
    expect(gemini.folders.entryOf(OTHER)).toBeUndefined();
  });
});

describe("a store watched below its folder", () => {
  it("lists the folders in it, and watches each one level less deep", () => {
    const w = watched(agents.claude.store as SessionStore);
    mkdirSync(join(w.dir, "2026", "11"), { recursive: true });
    w.put("file.jsonl");
    const place = { dir: w.dir, depth: 2 };
    const listing = listSync(place);
    expect(listing).toEqual({ kind: "listed", entries: expect.arrayContaining(["2026", "file.jsonl"]), folders: ["2026"] });
    const folder = w.folders.folder(place, listing);
    w.folders.took(folder, folderStampSync(w.dir), listing);
    expect(w.folders.below(folder)).toEqual([{ dir: join(w.dir, "2026"), depth: 1 }]);
    expect(listSync({ dir: w.dir, depth: 0 })).toEqual({ kind: "listed", entries: expect.arrayContaining(["2026", "file.jsonl"]), folders: [] });
    expect(listSync({ dir: join(w.dir, "missing"), depth: 0 })).toEqual({ kind: "missing" });
  });
});
