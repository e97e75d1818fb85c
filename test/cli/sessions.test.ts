/**
 * `sessions` and `pointer` as a bridge uses them, through the built CLI on real files: one key's
 * sessions, prune, and a key's pointer cleared from another folder.
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { expect, it } from "vitest";
import { resolvePointerPath } from "../../src/pointer/path.js";
import { writePointer } from "../../src/pointer/store.js";
import { CLI } from "../helpers/sandbox.js";
import { pointerFor } from "../pointer/module-home.js";
import { useTempDir } from "../pointer/tempdir.js";

const tmp = useTempDir();

function cli(args: readonly string[], cwd = tmp.path) {
  const result = spawnSync(process.execPath, [CLI, ...args], { cwd, env: { ...process.env, HOME: tmp.path, XDG_STATE_HOME: join(tmp.path, "state"), XDG_CACHE_HOME: join(tmp.path, "cache") }, encoding: "utf8", timeout: 15_000 });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

async function pinned(cwd: string, key: string, lastRunAt: string): Promise<string> {
  const path = resolvePointerPath({ env: { XDG_STATE_HOME: join(tmp.path, "state") }, agent: "claude", cwd, home: tmp.path, key });
  await writePointer(path, { ...pointerFor({ agent: "claude", cwd, key }), lastRunAt });
  return path;
}

it("sessions --key lists one thread's session; prune --older-than removes what was not run since, --dry-run nothing", async () => {
  const old = await pinned("/w/a", "thread-1", "2025-01-01T00:00:00.000Z");
  const fresh = await pinned("/w/a", "thread-2", new Date().toISOString());
  const one = JSON.parse(cli(["sessions", "--key", "thread-2", "--json"]).stdout) as Array<{ key: string; pointer: string }>;
  expect(one.map((r) => [r.key, r.pointer])).toEqual([["thread-2", fresh]]);
  const dry = cli(["sessions", "prune", "--older-than", "30d", "--dry-run"]);
  expect(dry.stdout).toBe(`would remove ${old} (last run 2025-01-01T00:00:00.000Z)\n`);
  expect(existsSync(old)).toBe(true);
  const done = JSON.parse(cli(["sessions", "prune", "--older-than", "30d", "--json"]).stdout) as Array<{ pointer: string; removed: string[] }>;
  expect(done.map((p) => p.pointer)).toEqual([old]);
  expect([existsSync(old), existsSync(fresh)]).toEqual([false, true]);
  const bad = cli(["sessions", "prune", "--older-than", "a month"]);
  expect([bad.status, bad.stderr]).toEqual([2, 'sessionpin sessions prune: --older-than "a month": expected a number and s, m, h, d or w (30d)\n']);
});

it("pointer clear --key finds the key's pointer made in another folder, and refuses to guess among several", async () => {
  const there = await pinned("/w/project", "thread-9", "2026-11-01T00:00:00.000Z");
  mkdirSync(join(tmp.path, "elsewhere"));
  const cleared = cli(["pointer", "clear", "--agent", "claude", "--key", "thread-9"], join(tmp.path, "elsewhere"));
  expect(cleared.status).toBe(0);
  expect(cleared.stderr).toContain('no pointer of key "thread-9" here');
  expect(cleared.stdout).toMatch(new RegExp(`^moved ${there} to `));
  expect(existsSync(there)).toBe(false);
  await pinned("/w/one", "thread-7", "2026-11-01T00:00:00.000Z");
  await pinned("/w/two", "thread-7", "2026-11-01T00:00:00.000Z");
  const several = cli(["pointer", "clear", "--agent", "claude", "--key", "thread-7"], join(tmp.path, "elsewhere"));
  expect(several.status).toBe(2);
  expect(several.stderr).toBe('sessionpin: key "thread-7" has pointers in 2 folders (/w/one, /w/two): run this in one of them, or give --pointer\n');
});
