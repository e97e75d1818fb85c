import { hostname } from "node:os";
import { errnoCode } from "../errors.js";
import type { LockInfo } from "./schema.js";

/** A lock file that could not be parsed, e.g. left empty by a writer killed mid-write. */
export interface UnreadableLock {
  unreadable: string;
}

/**
 * What a run would do with a lock file it found, decided once for `run` and `doctor`:
 * `held` makes a run wait or exit 75, `stale` is taken over.
 */
export type LockJudgement =
  | { kind: "held"; holder: LockInfo; why: "alive" | "other-host" }
  | { kind: "stale"; holder: LockInfo | UnreadableLock };

/** The lock's holder as read from its text (zod is loaded only when a lock is there to judge). */
export async function readHolder(text: string): Promise<LockInfo | UnreadableLock> {
  const { LockInfoSchema } = await import("./schema.js");
  try {
    const parsed = LockInfoSchema.safeParse(JSON.parse(text));
    if (parsed.success) return parsed.data;
  } catch {
    // Falls through: an unparseable lock is as stale as an invalid one.
  }
  const shown = text.trim().slice(0, 80);
  return { unreadable: shown === "" ? "empty lock file" : `unparseable lock file: ${shown}` };
}

export function judgeHolder(holder: LockInfo | UnreadableLock, host = hostname()): LockJudgement {
  if (!("pid" in holder)) return { kind: "stale", holder };
  // On another host the pid means nothing here, so the holder cannot be called dead.
  if (holder.host !== host) return { kind: "held", holder, why: "other-host" };
  return isAlive(holder.pid) ? { kind: "held", holder, why: "alive" } : { kind: "stale", holder };
}

/** Whether a process of this pid exists on this host (another user's counts). */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: the process exists but belongs to another user.
    return errnoCode(err) === "EPERM";
  }
}
