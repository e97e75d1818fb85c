import type { Clock } from "../clock.js";
import { reasonOf, SessionpinError } from "../errors.js";
import type { Logger } from "../log/logger.js";
import { describeHolder } from "../pointer/holder.js";
import { acquireLock, type LockResult, type PointerLock } from "../pointer/lock.js";
import { driverLockPath } from "../pointer/path.js";
import { homeOf } from "../home.js";

const LOCK_POLL_MS = 200;

interface Waiting {
  readonly clock: Clock;
  /** How long to wait for a live holder (`--wait-lock`); 0 answers at once. */
  readonly waitLockMs: number;
  readonly log: Logger;
  /** A stop sessionpin was asked for: the wait ends at the next poll, with whatever it has then. */
  readonly stopRequested?: () => NodeJS.Signals | undefined;
}

/** `acquireLock`, retried while a live holder has it, up to --wait-lock. Throws when the lock cannot be made at all. */
async function waitForLock(path: string, what: string, o: Waiting): Promise<LockResult> {
  const deadline = o.clock.now() + o.waitLockMs;
  for (let waited = false; ; waited = true) {
    const lock = await acquireLock(path);
    if (lock.kind === "acquired" || o.clock.now() >= deadline || o.stopRequested?.() !== undefined) return lock;
    if (!waited) o.log.info(`waiting up to ${o.waitLockMs} ms for sessionpin pid ${lock.holder.pid} to release ${what}`);
    await new Promise<void>((resolve) => o.clock.setTimeout(resolve, Math.min(LOCK_POLL_MS, deadline - o.clock.now())));
  }
}

/**
 * The pointer's lock, after waiting up to --wait-lock for a live holder; undefined when the
 * pointer's folder cannot hold a lock at all (not writable, not a folder, a symlinked lock).
 */
export async function lockPointer(pointerPath: string, o: Waiting): Promise<LockResult | undefined> {
  try {
    return await waitForLock(pointerPath, pointerPath, o);
  } catch (error) {
    // Said on stderr, before the agent starts: the log beside the pointer is likely unwritable too.
    const reason = reasonOf(error);
    process.stderr.write(`sessionpin: cannot use ${pointerPath} (${reason}): running the agent without pinning its session\n`);
    o.log.warn(`cannot lock ${pointerPath}: ${String(error)}; running unpinned`);
    return undefined;
  }
}

export interface DriverContext extends Waiting {
  readonly env: NodeJS.ProcessEnv;
  readonly agent: string;
}

/**
 * The right to drive one agent session, whichever pointer or key named it: two runs never drive
 * the same session at once. Throws (exit 75) when another live run holds it after --wait-lock;
 * undefined when the state folder cannot hold the lock (logged: the run goes on, as it would have).
 */
export async function driveSession(id: string, o: DriverContext): Promise<PointerLock | undefined> {
  const path = driverLockPath(o.env, homeOf(o.env), o.agent, id);
  let lock: LockResult;
  try {
    lock = await waitForLock(path, `${o.agent} session ${id}`, o);
  } catch (error) {
    o.log.warn(`cannot lock ${o.agent} session ${id} at ${path}: ${String(error)}; two runs on it would not be kept apart`);
    return undefined;
  }
  if (lock.kind === "held") {
    throw new SessionpinError("pointer-locked", `sessionpin: ${o.agent} session ${id} is driven by ${describeHolder(lock.holder)}; not starting a second driver`);
  }
  if (lock.tookOverFrom !== undefined) o.log.warn(`took over the stale driver lock of ${o.agent} session ${id}: ${JSON.stringify(lock.tookOverFrom)}`);
  return lock.lock;
}
