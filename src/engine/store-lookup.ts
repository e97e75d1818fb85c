import { readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import type { AgentPlugin, RunContext } from "../agents/types.js";

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
  const holds = (name: string): boolean => {
    const named = store.name.exec(name)?.groups?.["id"];
    return named !== undefined && (store.wholeId ? named === id : id.startsWith(named));
  };
  for (const { dir, depth } of places) {
    const path = findEntry(dir, depth, holds);
    if (path !== undefined) return { kind: "there", path };
  }
  return { kind: "gone", looked };
}

function findEntry(dir: string, depth: number, holds: (name: string) => boolean): string | undefined {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return undefined;
  }
  for (const name of names) {
    if (holds(name)) return join(dir, name);
    const below = depth > 0 ? findEntry(join(dir, name), depth - 1, holds) : undefined;
    if (below !== undefined) return below;
  }
  return undefined;
}

function isFolder(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}
