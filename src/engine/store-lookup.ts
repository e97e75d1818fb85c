import { readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import type { AgentPlugin, RunContext, SessionStore } from "../agents/types.js";

/** What the agent's own store says of a session, before a warm start. */
export type StoreAnswer =
  | { readonly kind: "there"; readonly path: string }
  | { readonly kind: "gone"; readonly looked: readonly string[] }
  /** No store, or none of its folders exists: the launch itself will tell. */
  | { readonly kind: "unknown" };

/**
 * Whether the agent's store still holds session `id`. Said to be gone only when a folder of the
 * store exists and has no entry for it: a store that is not there at all (another HOME, a
 * config folder moved) or moved by the command's own options (`args`) proves nothing, and the
 * runtime fallback still stands behind the launch.
 */
export function lookUpSession(plugin: AgentPlugin, id: string, args: readonly string[], context: RunContext, now: Date): StoreAnswer {
  const store = plugin.store;
  if (store === undefined || args.some((arg) => store.movedBy?.some((option) => arg === option || arg.startsWith(`${option}=`)))) return { kind: "unknown" };
  const places = store.everywhere?.(context) ?? store.where(context, now);
  const looked = places.filter(({ dir }) => isFolder(dir)).map(({ dir }) => dir);
  if (looked.length === 0) return { kind: "unknown" };
  for (const { dir, depth } of places) {
    const entry = listEntries(dir, depth).find(({ name }) => {
      const named = store.name.exec(name)?.groups?.["id"];
      return named !== undefined && namesSession(store, named, id);
    });
    if (entry !== undefined) return { kind: "there", path: entry.path };
  }
  return { kind: "gone", looked };
}

/** Whether a store entry named for `named` (a whole ID, or Gemini's prefix of one) is session `id`'s. */
export function namesSession(store: SessionStore, named: string, id: string): boolean {
  return store.wholeId ? named === id : id.startsWith(named);
}

/** Every entry of `dir` and, `depth` levels down, of its folders; nothing where one cannot be read. */
export function listEntries(dir: string, depth: number): Array<{ path: string; name: string }> {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return [];
  }
  return names.flatMap((name) => {
    const path = join(dir, name);
    return [{ path, name }, ...(depth > 0 ? listEntries(path, depth - 1) : [])];
  });
}

function isFolder(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}
