import { readFileSync } from "node:fs";
import { hostname } from "node:os";
import { errnoCode } from "../errors.js";
import type { LockInfo } from "./schema.js";
import { forTerminal } from "../explain/escape.js";

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
  // Shown by doctor on a terminal: escaped as every name from a file is.
  const shown = forTerminal(text.trim().slice(0, 80));
  return { unreadable: shown === "" ? "empty lock file" : `unparseable lock file: ${shown}` };
}

// How much later than the lock's startedAt its pid's process may have started and still be the
// holder: /proc counts in ticks of 10 ms, and the clocks compared are read at different moments.
const START_SLACK_MS = 2_000;

/** A lock's live holder in words, as every message that names one says it. */
export function describeHolder(holder: LockInfo): string {
  // The host and time are whatever the lock file says: escaped, as they reach a terminal.
  return `sessionpin pid ${holder.pid} on ${forTerminal(holder.host)} since ${forTerminal(holder.startedAt)}`;
}

/** How often a holder marks its lock as still in use (its mtime): what another host can judge it by. */
export const HEARTBEAT_MS = 30_000;
// Ten heartbeats missed: the run on the other host is gone (or its clock is far off ours).
export const REMOTE_STALE_MS = 10 * HEARTBEAT_MS;

/**
 * `age`: how long ago the lock file was last modified, when known. On another host the pid means
 * nothing here: the holder lives while it keeps the lock fresh. A Kubernetes workspace gets a new
 * host name each time it starts, so a lock its killed run left would otherwise be held for good.
 */
export function judgeHolder(holder: LockInfo | UnreadableLock, host = hostname(), age?: number): LockJudgement {
  if (!("pid" in holder)) return { kind: "stale", holder };
  if (holder.host !== host) return age !== undefined && age > REMOTE_STALE_MS ? { kind: "stale", holder } : { kind: "held", holder, why: "other-host" };
  if (!isAlive(holder.pid)) return { kind: "stale", holder };
  // After a restart pids are handed out again from the start: the pid of a run killed before it
  // (SIGKILL leaves its lock) now names another process, often this very one in a container that
  // starts the same way each time. A process that started after the lock was taken cannot hold it.
  const started = processStartMs(holder.pid);
  const taken = Date.parse(holder.startedAt);
  if (started === "gone" || (started !== undefined && !Number.isNaN(taken) && started > taken + START_SLACK_MS)) return { kind: "stale", holder };
  return { kind: "held", holder, why: "alive" };
}

/**
 * When the process started, in ms since the epoch, from /proc (Linux): undefined where there is
 * none, "gone" for a zombie (it exited; its parent has not reaped it yet). Its start in clock
 * ticks (USER_HZ, 100 on Linux) is held against this process's own, whose age Node knows: no
 * boot time is read, which a container's /proc may not agree with.
 */
export function processStartMs(pid: number): number | "gone" | undefined {
  const them = statFields(String(pid));
  const us = statFields("self");
  if (them === undefined || us === undefined) return undefined;
  if (them[0] === "Z") return "gone";
  const ticks = (fields: string[]): number => Number(fields[STARTTIME]);
  const ours = Date.now() - process.uptime() * 1000;
  const at = ours - (ticks(us) - ticks(them)) * MS_PER_TICK;
  return Number.isFinite(at) ? at : undefined;
}

const MS_PER_TICK = 10;
// /proc/<pid>/stat's fields after "(comm)": the state is field 3, the start time field 22.
const STARTTIME = 22 - 3;

/** The fields of /proc/<pid>/stat after the command name (which may hold spaces and parentheses). */
function statFields(pid: string): string[] | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  } catch {
    return undefined;
  }
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
