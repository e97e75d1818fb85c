/**
 * The session index over real files in a temp state folder: filters, prune, and the listing
 * cache, which must give exactly what reading every pointer gives (SESSIONPIN_NO_FAST=1).
 */
import { existsSync, mkdirSync, readdirSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { hostname } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { moduleFolders } from "../../src/pointer/module-dirs.js";
import { resolvePointerPath } from "../../src/pointer/path.js";
import { setAside, writePointer } from "../../src/pointer/store.js";
import { durationMs, listSessions, prune } from "../../src/state/sessions.js";
import { keepInModule, pointerFor } from "../pointer/module-home.js";
import { useTempDir } from "../pointer/tempdir.js";

const tmp = useTempDir();
afterEach(() => {
  delete process.env["SESSIONPIN_NO_FAST"];
});

const state = (): string => join(tmp.path, "state", "sessionpin");
const env = (): NodeJS.ProcessEnv => ({ XDG_STATE_HOME: join(tmp.path, "state") });

/** A pointer where run puts it for `agent` in `cwd` with `key`, last run `lastRunAt`. */
async function pinned(agent: string, cwd: string, key: string | undefined, lastRunAt = "2026-11-22T21:31:00.000Z"): Promise<string> {
  const path = resolvePointerPath({ env: env(), agent, cwd, home: tmp.path, key });
  await writePointer(path, { ...pointerFor({ agent, cwd, ...(key === undefined ? {} : { key }) }), lastRunAt });
  return path;
}

describe("listSessions", () => {
  it("filters by key, agent and folder, and reads only the pointers whose names can match", async () => {
    await pinned("claude", "/w/a", "thread-1");
    await pinned("claude", "/w/b", "thread-1");
    await pinned("claude", "/w/a", "thread-2");
    await pinned("codex", "/w/a", undefined);
    // A file named like another folder's pointer that is no pointer: read only by a listing that may need it.
    writeFileSync(join(state(), "claude", "0000000000000000.json"), "not json");
    const keys = (rows: Awaited<ReturnType<typeof listSessions>>) => rows.map((r) => [r.agent, r.cwd, r.key]);
    expect(keys(await listSessions(state(), [], { key: "thread-1" }))).toEqual([["claude", "/w/a", "thread-1"], ["claude", "/w/b", "thread-1"]]);
    expect(keys(await listSessions(state(), [], { agent: "codex" }))).toEqual([["codex", "/w/a", null]]);
    expect(keys(await listSessions(state(), [], { cwd: "/w/a", agent: "claude" }))).toEqual([["claude", "/w/a", "thread-1"], ["claude", "/w/a", "thread-2"]]);
    expect((await listSessions(state())).filter((r) => r.state === "unreadable")).toHaveLength(1);
  });

  it("gives from its cache exactly what reading every pointer gives, also after pointers change, go and come", async () => {
    for (let i = 0; i < 20; i++) await pinned("claude", `/w/${i % 3}`, `k${i}`, `2026-11-2${i % 9}T10:00:00.000Z`);
    const simple = async () => {
      process.env["SESSIONPIN_NO_FAST"] = "1";
      const rows = await listSessions(state());
      delete process.env["SESSIONPIN_NO_FAST"];
      return rows;
    };
    expect(await listSessions(state())).toEqual(await simple());
    expect(existsSync(join(state(), ".listing.json"))).toBe(true);
    // Changed (replaced, as run replaces it), gone, new, broken: each shows as reading shows it.
    await pinned("claude", "/w/1", "k1", "2026-12-01T10:00:00.000Z");
    rmSync(await pinned("claude", "/w/2", "k2"));
    await pinned("claude", "/w/9", "new");
    writeFileSync(await pinned("claude", "/w/0", "k3"), "{");
    const cached = await listSessions(state());
    expect(cached).toEqual(await simple());
    expect(cached.find((r) => r.key === "k1")?.lastRunAt).toBe("2026-12-01T10:00:00.000Z");
    // A cache file that is garbage is read around.
    writeFileSync(join(state(), ".listing.json"), "{ garbage");
    expect(await listSessions(state())).toEqual(await simple());
  });

  it("lists the module folders' pointers, with their paths, among the state folder's", async () => {
    const home = join(tmp.path, "home");
    const cwd = "/home/coder/project";
    const claude = await keepInModule(home, ".coder-modules/coder/claude-code", { agent: "claude", cwd });
    const amp = await keepInModule(home, ".amp-module", { agent: "amp", cwd, id: "T-019c479a-39cc-72af-a2d1-65a965c076ec" });
    const keyed = await keepInModule(home, ".coder-modules/coder-labs/codex", { agent: "codex", cwd, key: "thread-1" });
    const own = await pinned("gemini", cwd, undefined);
    const folders = await moduleFolders(home);
    const rows = await listSessions(state(), [...folders, join(home, ".amp-module")]);
    expect(rows.map((row) => [row.agent, row.key, row.pointer]).sort()).toEqual([
      ["amp", null, amp],
      ["claude", null, claude],
      ["codex", "thread-1", keyed],
      ["gemini", null, own],
    ].sort());
  });
});

describe("prune", () => {
  it("removes the pointers not run since the cut, with their set-aside copies, logs and a lock nobody holds; --dry-run removes nothing", async () => {
    const old = await pinned("claude", "/w/old", "a", "2026-01-01T00:00:00.000Z");
    const recent = await pinned("claude", "/w/new", "b", "2026-11-28T00:00:00.000Z");
    const stem = old.replace(/\.json$/, "");
    writeFileSync(`${stem}.log`, "log\n");
    writeFileSync(`${stem}.log.1`, "older log\n");
    writeFileSync(join(state(), "claude", "elsewhere.log"), "not this pointer's\n");
    await writePointer(`${stem}-copy.json`, pointerFor({ agent: "claude", cwd: "/w/old" }));
    const aside = await setAside(`${stem}-copy.json`, "rejected", new Date("2026-01-02T00:00:00.000Z"));
    // The copy set aside belongs to the "-copy" pointer, not to this one.
    writeFileSync(`${old}.lock`, JSON.stringify({ pid: 999_999_999, host: hostname(), startedAt: "2026-01-01T00:00:00.000Z" }));
    const before = new Date("2026-06-01T00:00:00.000Z");
    const rows = await listSessions(state());
    const dry = await prune(rows, before, true);
    expect(dry.map((p) => p.pointer)).toEqual([old]);
    expect(existsSync(old)).toBe(true);
    const done = await prune(rows, before, false);
    expect(done).toEqual(dry);
    expect([...(done[0]?.removed ?? [])].sort()).toEqual([old, `${old}.lock`, `${stem}.log`, `${stem}.log.1`].sort());
    expect(readdirSync(join(state(), "claude")).sort()).toEqual([recent, join(state(), "claude", "elsewhere.log"), aside ?? ""].map((p) => p.split("/").at(-1)).sort());
  });

  it("keeps a pointer whose lock a live run holds, and says so", async () => {
    const held = await pinned("claude", "/w/held", "h", "2026-01-01T00:00:00.000Z");
    writeFileSync(`${held}.lock`, JSON.stringify({ pid: process.pid, host: hostname(), startedAt: new Date().toISOString() }));
    const [result] = await prune(await listSessions(state()), new Date(), false);
    expect(result?.kept).toMatch(new RegExp(`held by sessionpin pid ${process.pid}`));
    expect(existsSync(held)).toBe(true);
  });

  it("judges an unreadable pointer by when its file was written", async () => {
    mkdirSync(join(state(), "claude"), { recursive: true });
    const broken = join(state(), "claude", "1111111111111111.json");
    writeFileSync(broken, "{");
    utimesSync(broken, new Date("2026-01-01T00:00:00.000Z"), new Date("2026-01-01T00:00:00.000Z"));
    const [result] = await prune(await listSessions(state()), new Date("2026-06-01T00:00:00.000Z"), false);
    expect(result).toMatchObject({ pointer: broken, lastRunAt: "2026-01-01T00:00:00.000Z" });
    expect(existsSync(broken)).toBe(false);
  });
});

it("reads durations as 30d, 12h, 90m, 2w, 45s, and nothing else", () => {
  expect(["30d", "12h", "90m", "2w", "45s", "1.5h"].map(durationMs)).toEqual([2_592_000_000, 43_200_000, 5_400_000, 1_209_600_000, 45_000, 5_400_000]);
  for (const bad of ["30", "d", "-1d", "1y", "1e3d", ""]) expect(durationMs(bad), bad).toBeUndefined();
});
