import { join } from "node:path";
import type { StoreLook } from "../agents/types.js";

/**
 * Small helpers the agents' carry specs share (src/agents/*.ts `carry`): pure functions of what
 * a StoreLook shows, so a spec is tested with a made-up store.
 */

/** The most files one session may bring along below a folder of its own (Claude's `<id>/`, Copilot's `<id>/`). */
export const MAX_SESSION_FILES = 5_000;
/** How deep such a folder is followed. */
const MAX_DEPTH = 8;

/**
 * The regular files below `root`/`folder`, as paths below `root` (`/` between folders), sorted;
 * links and other kinds are left out, never followed. None when the folder is not there.
 */
export function filesBelow(look: StoreLook, root: string, folder: string, keep: (path: string) => boolean = () => true): string[] {
  const found: string[] = [];
  const walk = (relative: string, depth: number): void => {
    const entries = look.list(join(root, ...relative.split("/")));
    if (entries === undefined) return;
    for (const entry of [...entries].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
      if (found.length >= MAX_SESSION_FILES) return;
      const path = `${relative}/${entry.name}`;
      if (entry.kind === "file" && keep(path)) found.push(path);
      else if (entry.kind === "folder" && depth < MAX_DEPTH) walk(path, depth + 1);
    }
  };
  walk(folder, 1);
  return found;
}

/** The first line of a JSON-lines file's head, parsed as an object, or undefined. */
export function firstJsonLine(head: string | undefined): Record<string, unknown> | undefined {
  if (head === undefined) return undefined;
  const end = head.indexOf("\n");
  try {
    const value: unknown = JSON.parse(end < 0 ? head : head.slice(0, end));
    return typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/** `text` as a literal part of a regular expression. */
export const literal = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
