import { link, stat, unlink } from "node:fs/promises";
import { errnoCode } from "../errors.js";
import { readLockText } from "./capped.js";

/**
 * A claim older than this belongs to a process killed mid-takeover, which takes milliseconds. A
 * run that finds a fresh claim waits this long at most before it starts its agent.
 */
export const ABANDONED_AFTER_MS = 3_000;

export type TakeoverOutcome =
  /** The stale lock is gone; the caller may now create its own. */
  | "removed"
  /** The lock is no longer the one judged stale: read it again. */
  | "changed"
  /** Another process is taking over right now: wait a moment, then read it again. */
  | "busy";

/**
 * Removes a lock judged stale without ever removing a rival's fresh one. Several processes can
 * judge the same lock stale at once, and "read, compare, unlink" lets a slow one delete the lock
 * a fast one has just created. Hard-linking the lock to one fixed claim name instead pins the
 * exact file: link() refuses an existing name, so only one process holds the claim, and while
 * it does nobody else may remove the lock, so what it compared is what it unlinks.
 */
export async function removeStaleLock(path: string, staleText: string): Promise<TakeoverOutcome> {
  const claim = `${path}.takeover`;
  try {
    await link(path, claim);
  } catch (err) {
    const code = errnoCode(err);
    if (code === "ENOENT") return "changed";
    if (code !== "EEXIST") throw err;
    await clearAbandonedClaim(claim);
    return "busy";
  }
  try {
    if (readLockText(claim) !== staleText) return "changed";
    await unlink(path);
    return "removed";
  } finally {
    await unlink(claim).catch(ignoreMissing);
  }
}

// link() updates the inode's ctime, which so dates the claim though it shares the old lock's inode.
async function clearAbandonedClaim(claim: string): Promise<void> {
  const claimed = await stat(claim).catch(ignoreMissing);
  if (claimed && Date.now() - claimed.ctimeMs > ABANDONED_AFTER_MS) {
    await unlink(claim).catch(ignoreMissing);
  }
}

function ignoreMissing(err: unknown): undefined {
  if (errnoCode(err) === "ENOENT") return undefined;
  throw err;
}
