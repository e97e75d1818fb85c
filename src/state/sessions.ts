import { lstat, readdir, rm } from "node:fs/promises";
import { basename, dirname, join, resolve } from "node:path";
import { lockCheck, lockHolder } from "../doctor/checks.js";
import { errnoCode, reasonOf, SessionpinError } from "../errors.js";
import { listingCache, type RowCodec } from "../fast/listing-cache.js";
import { keptPointers } from "../pointer/module-dirs.js";
import { shortHash } from "../pointer/path.js";
import { readPointer, type PointerRead } from "../pointer/store.js";

/** One row of `sessionpin sessions --json`. */
export interface SessionRow {
  readonly key: string | null;
  readonly agent: string;
  readonly cwd: string | null;
  readonly id: string | null;
  readonly state: string;
  readonly capturedAt: string | null;
  readonly lastRunAt: string | null;
  readonly messages: number;
  readonly pointer: string;
  readonly reason?: string;
}

/** Which sessions: all, or one key's, one agent's, one folder's (each exact). */
export interface SessionFilter {
  readonly key?: string | undefined;
  readonly agent?: string | undefined;
  readonly cwd?: string | undefined;
}

// `<cwd hash>.json` or `<cwd hash>-<key hash>.json`; set-aside copies carry a label and a time.
const POINTER_NAME = /^([0-9a-f]{16})(?:-([0-9a-f]{16}))?\.json$/;

/**
 * Every pointer under the state folder `home` and in the module folders `modules` that the filter
 * takes, each read as `run` would read it, oldest last run first. A default pointer's name holds
 * the hashes of its folder and key, so a filter passes over the others unread.
 */
export async function listSessions(home: string, modules: readonly string[] = [], filter: SessionFilter = {}): Promise<SessionRow[]> {
  const rows: SessionRow[] = [];
  const agents = await names(home);
  if ("problem" in agents) throw new SessionpinError("pointer-invalid", `sessionpin: cannot list ${home}: ${agents.problem}`);
  const cwdHash = filter.cwd === undefined ? undefined : shortHash(resolve(filter.cwd));
  const keyHash = filter.key === undefined ? undefined : shortHash(filter.key);
  const cache = await listingCache(home, ROW_CODEC);
  for (const agent of agents.names) {
    if (agent.startsWith(".") || (filter.agent !== undefined && agent !== filter.agent)) continue;
    const files = await names(join(home, agent));
    // One folder sessionpin cannot read (another user's, a symlink loop) is a row: the others are still listed.
    if ("problem" in files) {
      rows.push(unreadable(agent, join(home, agent), files.problem));
      continue;
    }
    for (const file of files.names) {
      const [, cwd, key] = POINTER_NAME.exec(file) ?? [];
      if (cwd === undefined || (cwdHash !== undefined && cwd !== cwdHash) || (keyHash !== undefined && key !== keyHash)) continue;
      const path = join(home, agent, file);
      let found = cache.cached(path);
      if (found === undefined) {
        const read = await readPointer(path);
        found = read.kind === "missing" ? undefined : row(agent, path, read);
        cache.keep(path, found);
      }
      if (found !== undefined) rows.push(found);
    }
  }
  await cache.save();
  // The folder of $AGENTAPI_STATE_FILE is most often a module folder too: listed once.
  for (const kept of await keptPointers([...new Set(modules)])) rows.push(row(kept.named, kept.path, kept.read));
  return rows.filter((r) => takes(filter, r)).sort((a, b) => (a.lastRunAt ?? a.capturedAt ?? "").localeCompare(b.lastRunAt ?? b.capturedAt ?? ""));
}

/** A row as the listing cache keeps it: its values in this order, its path the cache's own. */
const ROW_CODEC: RowCodec<SessionRow> = {
  pack: (r) => [r.key, r.agent, r.cwd, r.id, r.state, r.capturedAt, r.lastRunAt, r.messages, r.reason ?? null],
  unpack(values, pointer) {
    const [key, agent, cwd, id, state, capturedAt, lastRunAt, messages, reason] = values;
    const text = (v: unknown): v is string => typeof v === "string";
    const maybe = (v: unknown): v is string | null => v === null || typeof v === "string";
    if (!maybe(key) || !text(agent) || !maybe(cwd) || !maybe(id) || !text(state) || !maybe(capturedAt) || !maybe(lastRunAt) || typeof messages !== "number" || !maybe(reason)) return undefined;
    return { key, agent, cwd, id, state, capturedAt, lastRunAt, messages, pointer, ...(reason === null ? {} : { reason }) };
  },
};

/** The filter, on what the pointer says: its name's hashes only narrowed the reading. */
function takes(filter: SessionFilter, r: SessionRow): boolean {
  return (filter.agent === undefined || r.agent === filter.agent) &&
    (filter.key === undefined || r.key === filter.key) &&
    (filter.cwd === undefined || (r.cwd !== null && resolve(r.cwd) === resolve(filter.cwd)));
}

/** A pointer's row; `agent` names an unreadable one (its folder's or its file's). */
function row(agent: string, path: string, read: Exclude<PointerRead, { kind: "missing" }>): SessionRow {
  if (read.kind === "invalid") return unreadable(agent, path, read.reason);
  if (read.kind === "newer") return unreadable(agent, path, `written by a newer sessionpin (version ${read.version})`);
  const p = read.pointer;
  return {
    key: p.key ?? null, agent: p.agent, cwd: p.cwd, id: p.id, state: p.state, capturedAt: p.capturedAt,
    lastRunAt: p.lastRunAt ?? null, messages: p.messages?.length ?? 0, pointer: path,
  };
}

function unreadable(agent: string, path: string, reason: string): SessionRow {
  return { key: null, agent, cwd: null, id: null, state: "unreadable", capturedAt: null, lastRunAt: null, messages: 0, pointer: path, reason };
}

async function names(dir: string): Promise<{ names: string[] } | { problem: string }> {
  try {
    return { names: (await readdir(dir)).sort() };
  } catch (error) {
    if (errnoCode(error) === "ENOENT" || errnoCode(error) === "ENOTDIR") return { names: [] };
    return { problem: reasonOf(error) };
  }
}

/** What prune did, or would do (`--dry-run`), to one pointer. */
export interface Pruned {
  readonly pointer: string;
  readonly key: string | null;
  readonly agent: string;
  readonly lastRunAt: string | null;
  /** The files removed with it (set-aside copies, logs, a stale lock), or why it stays. */
  readonly removed: readonly string[];
  readonly kept?: string;
}

/**
 * Removes the pointers `rows` names that were not run since `before`, each with its set-aside
 * copies, its logs and a lock nobody holds; a pointer whose lock a live run holds stays. An
 * unreadable pointer is judged by when its file was written. The agent's own store is not
 * touched. `dryRun`: says what it would remove, and removes nothing.
 */
export async function prune(rows: readonly SessionRow[], before: Date, dryRun: boolean): Promise<Pruned[]> {
  const done: Pruned[] = [];
  for (const r of rows) {
    const last = r.lastRunAt ?? r.capturedAt ?? (await writtenAt(r.pointer));
    if (last === null || Date.parse(last) >= before.getTime()) continue;
    const base = { pointer: r.pointer, key: r.key, agent: r.agent, lastRunAt: last };
    const holder = lockHolder(await lockCheck(r.pointer));
    if (holder !== undefined) {
      done.push({ ...base, removed: [], kept: `its lock is held by sessionpin pid ${holder.pid} on ${holder.host}` });
      continue;
    }
    const files = [r.pointer, ...(await besides(r.pointer))];
    if (!dryRun) for (const file of files) await rm(file, { force: true });
    done.push({ ...base, removed: files });
  }
  return done;
}

/**
 * The files that go with a pointer: its set-aside copies (`<stem>.<label>-<time>.json`), its log
 * and the log's older part (`<stem>.log`, `<stem>.log.1`), its lock (held by nobody: prune
 * looked) and temp files of writers long gone.
 */
async function besides(pointer: string): Promise<string[]> {
  const stem = basename(pointer).replace(/\.json$/, "");
  const listed = await names(dirname(pointer));
  if ("problem" in listed) return [];
  const own = new RegExp(`^(?:${escape(stem)}\\.[a-z]+-\\d{8}T\\d{6}Z(?:-\\d+)?\\.json|${escape(stem)}\\.log(?:\\.1)?|${escape(basename(pointer))}\\.lock|\\.${escape(basename(pointer))}\\.\\d+\\.[0-9a-f]+\\.tmp)$`);
  return listed.names.filter((name) => own.test(name)).map((name) => join(dirname(pointer), name));
}

const escape = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

async function writtenAt(path: string): Promise<string | null> {
  try {
    return (await lstat(path)).mtime.toISOString();
  } catch {
    return null;
  }
}

/** `30d`, `12h`, `90m`, `2w`, `45s`: a duration in milliseconds; undefined for anything else. */
export function durationMs(text: string): number | undefined {
  const match = /^(\d+(?:\.\d+)?)(s|m|h|d|w)$/.exec(text.trim());
  if (match === null) return undefined;
  const unit = { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 }[match[2] as "s" | "m" | "h" | "d" | "w"];
  return Number(match[1]) * unit;
}
