import { lstat, opendir } from "node:fs/promises";
import { join, resolve } from "node:path";
import { besideAgentapiState } from "./path.js";
import { readPointer, type PointerRead } from "./store.js";

/**
 * Where Coder's agent modules keep sessionpin's pointers. agentapi's module writes its state file to
 * `$HOME/<module_dir_name>/agentapi-state.json`, and `run` under agentapi keeps the pointer beside
 * it (path.ts), so a workspace terminal, which has no AGENTAPI_STATE_FILE, finds it only by looking
 * in the module folders:
 *
 *   ~/.coder-modules/<namespace>/<module>/   the registry's rule since 2026-04 (claude-code v5, codex v5)
 *   ~/.<agent>-module/                       the modules still on agentapi (.amp-module, .cursor-cli-module…)
 *   ~/.kiro/                                 harleylrn/kiro-cli's module_dir_name: its agentapi state goes
 *                                            there too, beside kiro-cli's own files
 *
 * Bounded, as a diagnostic run in someone's home must be: those two levels only, real folders only
 * (a link is never followed: a module's `mkdir -p` makes none, and a loop has nowhere to go), at
 * most ENTRIES folder entries read in all, files read by readPointer (never a link, never blocking
 * on a FIFO) and only up to MAX_POINTER_BYTES.
 */

/** Folder entries read in one walk, all folders together: a home of 100,000 files is still quick. */
const ENTRIES = 10_000;

const CODER_MODULES = ".coder-modules";
const LEGACY = /^\.[a-z0-9][a-z0-9._-]*-module$/;
const KIRO = ".kiro";

// Agent names are lowercase (the user plugin schema's rule), so a set-aside copy
// (`sessionpin-amp.rejected-20261122T213000Z.json`) never matches, nor does a lock or a log.
const POINTER_NAME = /^sessionpin-([a-z0-9][a-z0-9._-]*?)(?:-[0-9a-f]{16})?\.json$/;

/** What readPointer says of a file that is there. */
export type FoundRead = Exclude<PointerRead, { kind: "missing" }>;

/** A pointer file found in a module folder, read as `run` reads it. */
export interface KeptPointer {
  readonly path: string;
  /** The agent its name is for, whatever its content says. */
  readonly named: string;
  readonly read: FoundRead;
  /** Its mtime: the pointer is replaced whole on every write. */
  readonly writtenAt: number;
}

/** The module folders under `home`, sorted. */
export async function moduleFolders(home: string): Promise<string[]> {
  const budget = { left: ENTRIES };
  const top = await entries(home, budget);
  const found = top.filter((e) => e.folder && (LEGACY.test(e.name) || e.name === KIRO)).map((e) => join(home, e.name));
  if (top.some((e) => e.folder && e.name === CODER_MODULES)) {
    const root = join(home, CODER_MODULES);
    for (const namespace of (await entries(root, budget)).filter((e) => e.folder)) {
      const dir = join(root, namespace.name);
      for (const module of (await entries(dir, budget)).filter((e) => e.folder)) found.push(join(dir, module.name));
    }
  }
  return found.sort();
}

/** Every pointer file in `folders` (named as run names them beside agentapi's state), sorted by path. */
export async function keptPointers(folders: readonly string[]): Promise<KeptPointer[]> {
  const budget = { left: ENTRIES };
  const found: KeptPointer[] = [];
  for (const folder of folders) {
    for (const entry of await entries(folder, budget)) {
      const named = POINTER_NAME.exec(entry.name)?.[1];
      const kept = named === undefined || entry.folder ? undefined : await readKept(join(folder, entry.name), named);
      if (kept !== undefined) found.push(kept);
    }
  }
  return found.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

/**
 * The pointers that `run` under agentapi would have kept for this agent, folder and key (no key:
 * an unkeyed one) in any of `home`'s module folders, the most recently written first.
 */
export async function keptPointersFor(home: string, o: { agent: string; cwd: string; key: string | undefined }): Promise<KeptPointer[]> {
  const name = besideAgentapiState(o.agent, o.key);
  const found: KeptPointer[] = [];
  for (const folder of await moduleFolders(home)) {
    const kept = await readKept(join(folder, name), o.agent);
    const p = kept?.read.kind === "ok" ? kept.read.pointer : undefined;
    if (kept !== undefined && p?.agent === o.agent && resolve(p.cwd) === resolve(o.cwd) && p.key === o.key) found.push(kept);
  }
  return found.sort((a, b) => b.writtenAt - a.writtenAt);
}

/** The file as readPointer reads it (no further than MAX_POINTER_BYTES); undefined when nothing is there. */
async function readKept(path: string, named: string): Promise<KeptPointer | undefined> {
  const stat = await lstat(path).catch(() => undefined);
  if (stat === undefined) return undefined;
  const read = await readPointer(path);
  return read.kind === "missing" ? undefined : { path, named, read, writtenAt: stat.mtimeMs };
}

/** A folder's entries, up to what is left of the walk's budget; none when it cannot be read. */
async function entries(dir: string, budget: { left: number }): Promise<Array<{ name: string; folder: boolean }>> {
  const found: Array<{ name: string; folder: boolean }> = [];
  try {
    // opendir reads in chunks, so the budget bounds the reading too, not only what is kept.
    const handle = await opendir(dir);
    for await (const entry of handle) {
      if (budget.left-- <= 0) break;
      found.push({ name: entry.name, folder: entry.isDirectory() });
    }
  } catch {
    // Not there, not a folder, not ours to read: no module keeps pointers there.
  }
  return found;
}
