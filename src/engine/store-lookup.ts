import { lstat, stat } from "node:fs/promises";
import { basename, join, sep } from "node:path";
import type { AgentPlugin, RunContext, SessionHints, SessionStore, StoreFolder } from "../agents/types.js";
import { errnoCode } from "../errors.js";
import { listFolder } from "./store-files.js";

/** How the entry was found: each way costs more than the one before, and only the last grows with the store. */
export type FoundVia = "name" | "remembered" | "likely" | "search";

/** What the agent's own store says of a session, before a warm start. */
export type StoreAnswer =
  | { readonly kind: "there"; readonly path: string; readonly via: FoundVia }
  | { readonly kind: "gone"; readonly looked: readonly string[] }
  /** No store, none of its folders exists, or the search could not look everywhere: the launch itself will tell. */
  | { readonly kind: "unknown" };

/** What the caller knows besides the store: where the entry was last found, and when the session began. */
export interface LookUpHints extends SessionHints {
  /** Where sessionpin last found this session's entry (src/state/store-index.ts), read only when needed. */
  readonly remembered?: () => string | undefined;
}

/**
 * A search of the store (the last way, when the quicker ones found nothing) looks at this many
 * entries at most, in this many folders: a year of Codex rollouts is ~20,000 files in ~400
 * folders. Past either bound the session is not called gone.
 */
export const SEARCH_MAX_ENTRIES = 100_000;
export const SEARCH_MAX_FOLDERS = 10_000;

/**
 * Whether the agent's store still holds session `id`, at the least cost the store's layout
 * allows: its exact name (one stat), where it was last found (one stat), the folders its layout
 * puts it in (Codex: the days it began), and only then a bounded search. Said to be gone only when
 * a folder of the store exists and has no entry for it: a store that is not there at all (another
 * HOME, a config folder moved), moved by the command's own options (`args`), or not searched to
 * the end (a bound reached, a folder that cannot be read, a link, which is never followed) proves
 * nothing, and the runtime fallback still stands behind the launch.
 */
export async function lookUpSession(
  plugin: AgentPlugin,
  id: string,
  args: readonly string[],
  context: RunContext,
  now: Date,
  hints: LookUpHints = {},
): Promise<StoreAnswer> {
  const store = plugin.store;
  if (store === undefined || args.some((arg) => store.movedBy?.some((option) => arg === option || arg.startsWith(`${option}=`)))) return { kind: "unknown" };
  const places = store.everywhere?.(context) ?? store.where(context, now);
  const looked = (await Promise.all(places.map(async ({ dir }) => ((await isFolder(dir)) ? dir : undefined)))).filter((dir) => dir !== undefined);
  if (looked.length === 0) return { kind: "unknown" };
  const named = (name: string): boolean => {
    const found = store.name.exec(name)?.groups?.["id"];
    return found !== undefined && namesSession(store, found, id);
  };

  // An entry named by the ID alone: there or not, as surely as a listing would say.
  const entryName = store.entryName?.(id);
  if (entryName !== undefined && named(entryName)) {
    let sure = true;
    for (const dir of looked) {
      const path = join(dir, entryName);
      const presence = await presenceOf(path);
      if (presence === "there") return { kind: "there", path, via: "name" };
      if (presence === "unknown") sure = false;
    }
    return sure ? { kind: "gone", looked } : { kind: "unknown" };
  }

  const remembered = hints.remembered?.();
  if (remembered !== undefined && looked.some((dir) => remembered.startsWith(dir + sep)) && named(basename(remembered)) && (await presenceOf(remembered)) === "there") {
    return { kind: "there", path: remembered, via: "remembered" };
  }
  const budget = { entries: SEARCH_MAX_ENTRIES, folders: SEARCH_MAX_FOLDERS };
  const likely = store.likely?.(context, id, hints) ?? [];
  const guessed = likely.length === 0 ? undefined : await search(likely, named, budget);
  if (guessed?.found !== undefined) return { kind: "there", path: guessed.found, via: "likely" };
  const searched = await search(looked.map((dir) => ({ dir, depth: places.find((p) => p.dir === dir)?.depth ?? 0 })), named, budget);
  if (searched.found !== undefined) return { kind: "there", path: searched.found, via: "search" };
  return searched.complete ? { kind: "gone", looked } : { kind: "unknown" };
}

/** Whether a store entry named for `named` (a whole ID, or Gemini's prefix of one) is session `id`'s. */
export function namesSession(store: SessionStore, named: string, id: string): boolean {
  return store.wholeId ? named === id : id.startsWith(named);
}

interface Searched {
  readonly found?: string;
  /** Every folder below was listed to the end, none through a link: nothing found means nothing there. */
  readonly complete: boolean;
}

/**
 * Looks for an entry `named` in `folders` and, `depth` levels down, their folders, newest name
 * first (date-named folders put recent sessions first). Links are never followed: one that may
 * lead to a folder makes the search incomplete. `budget` is shared by the searches of one look-up.
 */
async function search(folders: readonly StoreFolder[], named: (name: string) => boolean, budget: { entries: number; folders: number }): Promise<Searched> {
  let complete = true;
  const stack = [...folders].reverse();
  for (let folder = stack.pop(); folder !== undefined; folder = stack.pop()) {
    if (--budget.folders < 0 || budget.entries <= 0) return { complete: false };
    const listing = await listFolder(folder.dir, budget.entries);
    if (listing.kind === "missing") continue;
    if (listing.kind !== "listed") {
      complete = false;
      continue;
    }
    budget.entries -= listing.entries.length;
    const entries = [...listing.entries].sort((a, b) => (a.name < b.name ? 1 : a.name > b.name ? -1 : 0));
    const found = entries.find((entry) => named(entry.name));
    if (found !== undefined) return { found: join(folder.dir, found.name), complete };
    if (folder.depth === 0) continue;
    if (entries.some((entry) => entry.kind === "link")) complete = false;
    const below = entries.filter((entry) => entry.kind === "folder").map((entry) => ({ dir: join(folder.dir, entry.name), depth: folder.depth - 1 }));
    stack.push(...below.reverse());
  }
  return { complete };
}

/** Whether something is at `path`, a link itself included (never followed); unknown when the question cannot be answered. */
async function presenceOf(path: string): Promise<"there" | "absent" | "unknown"> {
  try {
    await lstat(path);
    return "there";
  } catch (error) {
    const code = errnoCode(error);
    return code === "ENOENT" || code === "ENOTDIR" ? "absent" : "unknown";
  }
}

/** The store's own folder may be a link (a store kept on another disk): followed. */
async function isFolder(path: string): Promise<boolean> {
  try {
    return (await stat(path)).isDirectory();
  } catch {
    return false;
  }
}
