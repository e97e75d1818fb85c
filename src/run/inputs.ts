import { existsSync } from "node:fs";
import { join } from "node:path";
import type { AgentPlugin, RunContext } from "../agents/types.js";
import { lookUpSession } from "../engine/store-lookup.js";
import { readPointer, type PointerRead } from "../pointer/store.js";
import { recallEntry, rememberEntry } from "../state/store-index.js";

/** Everything decide() needs from disk: the pointer, and whether the agent still has its session. */
export interface StartInputs {
  readonly read: PointerRead;
  /** Why the agent's store no longer holds the pointer's session; undefined when it does or cannot tell. */
  readonly gone: string | undefined;
}

/**
 * Reads the pointer and, for this agent's and folder's pointer, asks the agent's own store about
 * its session: run, plan, doctor and `pointer show` decide from the same inputs (the last two
 * without the agent's arguments).
 */
export async function readStartInputs(pointerPath: string, plugin: AgentPlugin, args: readonly string[], context: RunContext, now: Date): Promise<StartInputs> {
  const read = await readPointer(pointerPath);
  return { read, gone: await goneFromStore(read, plugin, args, context, now) };
}

/** Whether the agent's own history file is there to restore (Aider's `.aider.chat.history.md`). */
export function historyFileExists(plugin: AgentPlugin | undefined, cwd: string): boolean {
  const history = plugin?.history;
  return history !== undefined && existsSync(join(cwd, history.file));
}

/**
 * For a pointer already read: why the agent's store no longer holds its session, if it can tell.
 * Where the entry was found, when that took a listing, is remembered for the next start.
 */
async function goneFromStore(read: PointerRead, plugin: AgentPlugin, args: readonly string[], context: RunContext, now: Date): Promise<string | undefined> {
  if (read.kind !== "ok" || read.pointer.agent !== plugin.name || read.pointer.cwd !== context.cwd) return undefined;
  const { id, capturedAt } = read.pointer;
  const answer = await lookUpSession(plugin, id, args, context, now, { remembered: () => recallEntry(context, plugin.name, id), capturedAt: new Date(capturedAt) });
  if (answer.kind === "there" && (answer.via === "likely" || answer.via === "search")) await rememberEntry(context, plugin.name, id, answer.path);
  return answer.kind === "gone" ? `session ${id} is gone from ${plugin.name}'s own store (looked in ${answer.looked.join(", ")})` : undefined;
}
