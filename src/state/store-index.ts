import { mkdir, rename, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { RunContext } from "../agents/types.js";
import { errnoCode } from "../errors.js";
import { readSmallFile } from "../files.js";
import { parseJsonObject } from "../json.js";
import { tempPathFor } from "../pointer/atomic.js";
import { pointersHome } from "../pointer/path.js";
import { removeLeftoverTemps } from "../pointer/store.js";

/**
 * Where each agent's store entry for a session was last found, so that the next warm start or
 * `plan` looks there with one stat instead of searching the store (Codex files rollouts by day;
 * a year of them is 20,000 files). One small file per agent beside the pointers,
 * `<state>/sessionpin/.stores/<agent>.json`:
 *
 *   {"version":1,"entries":[["<id>","<path of its entry>"],…]}      newest last, at most 256
 *
 * It is a memo, never the truth: a path read from it counts only while an entry named for the
 * session is still there, and a lost or torn file costs one search. Two runs writing at once keep
 * one of their entries (the rename is atomic); the other is found again next time. Nothing is
 * written where sessionpin keeps no state folder yet (a pointer given by --pointer, no HOME).
 */

const VERSION = 1;
const LIMIT = 256;
const MAX_BYTES = 1024 * 1024;
// Built-in agents only have stores; a name that could leave the folder is not used.
const AGENT_NAME = /^[a-z0-9][a-z0-9._-]*$/i;

function indexPath(context: RunContext, agent: string): string | undefined {
  if (!AGENT_NAME.test(agent)) return undefined;
  try {
    return join(pointersHome(context.env, context.home), ".stores", `${agent}.json`);
  } catch {
    return undefined;
  }
}

function entriesIn(path: string): Array<[string, string]> {
  let text: string;
  try {
    const read = readSmallFile(path, MAX_BYTES, "the store index");
    if ("problem" in read) return [];
    text = read.text;
  } catch {
    return [];
  }
  const index = parseJsonObject(text);
  const entries = index?.["version"] === VERSION ? index["entries"] : undefined;
  if (!Array.isArray(entries)) return [];
  return entries.filter((e): e is [string, string] => Array.isArray(e) && e.length === 2 && typeof e[0] === "string" && typeof e[1] === "string");
}

/** Where `agent`'s entry for session `id` was last found, if sessionpin remembers. */
export function recallEntry(context: RunContext, agent: string, id: string): string | undefined {
  const path = indexPath(context, agent);
  return path === undefined ? undefined : entriesIn(path).findLast(([known]) => known === id)?.[1];
}

// One write at a time per index in this process: the store watch may find two entries at once.
const writing = new Map<string, Promise<void>>();

/** Remembers that `agent`'s entry for session `id` is at `entry`. Never throws; resolves once written or given up. */
export function rememberEntry(context: RunContext, agent: string, id: string, entry: string): Promise<void> {
  const path = indexPath(context, agent);
  if (path === undefined) return Promise.resolve();
  const next = (writing.get(path) ?? Promise.resolve()).then(() => write(path, id, entry)).catch(() => undefined);
  writing.set(path, next);
  void next.then(() => {
    if (writing.get(path) === next) writing.delete(path);
  });
  return next;
}

async function write(path: string, id: string, entry: string): Promise<void> {
  const entries = entriesIn(path);
  if (entries.at(-1)?.[0] === id && entries.at(-1)?.[1] === entry) return;
  const kept = [...entries.filter(([known]) => known !== id), [id, entry] as [string, string]].slice(-LIMIT);
  try {
    // Only inside a state folder that is there already: it is made by the pointer and lock writers.
    await mkdir(join(path, ".."), { mode: 0o700 });
  } catch (error) {
    if (errnoCode(error) !== "EEXIST") return;
  }
  // A run killed while it wrote left its temp file: the same sweep as the pointer's.
  removeLeftoverTemps(path);
  const temp = tempPathFor(path);
  try {
    await writeFile(temp, `${JSON.stringify({ version: VERSION, entries: kept })}\n`, { mode: 0o600, flag: "wx" });
    await rename(temp, path);
  } catch {
    await rm(temp, { force: true }).catch(() => undefined);
  }
}
