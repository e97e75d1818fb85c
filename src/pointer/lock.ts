import { linkSync, rmSync, statSync, unlinkSync, utimesSync, writeFileSync } from "node:fs";
import { lstat, unlink } from "node:fs/promises";
import { hostname } from "node:os";
import { dirname } from "node:path";
import { setTimeout } from "node:timers/promises";
import { errnoCode, SessionpinError } from "../errors.js";
import { tempPathFor } from "./atomic.js";
import { MAX_LOCK_BYTES, readLockText } from "./capped.js";
import { HEARTBEAT_MS, judgeHolder, readHolder, type UnreadableLock } from "./holder.js";
import type { LockInfo } from "./schema.js";
import { ABANDONED_AFTER_MS, removeStaleLock } from "./takeover.js";
import { makeFolders } from "../files.js";
import { removeLeftoverTemps } from "./store.js";

export type { LockInfo, UnreadableLock };

export interface PointerLock {
  readonly path: string;
  readonly info: LockInfo;
  /** Removes the lock file if it is still ours; safe to call more than once. */
  release(): Promise<void>;
  /** The same, for `process.on("exit")` handlers, which cannot await. */
  releaseSync(): void;
}

export type LockResult =
  | { kind: "acquired"; lock: PointerLock; tookOverFrom?: LockInfo | UnreadableLock }
  | { kind: "held"; holder: LockInfo };

const BUSY_WAIT_MS = 20;
// A claim is cleared once it is abandoned; giving up before then ran the agent unpinned after a
// run killed mid-takeover, so every start within seconds of that kill lost its session.
const GIVE_UP_AFTER_MS = ABANDONED_AFTER_MS + 2_000;

/** One live writer per pointer: a `<pointer>.lock` file naming the holder's pid and host. */
export async function acquireLock(
  pointerPath: string,
  o: { now?: () => Date; heartbeatMs?: number } = {},
): Promise<LockResult> {
  const path = `${pointerPath}.lock`;
  const info: LockInfo = {
    pid: process.pid,
    startedAt: (o.now ?? (() => new Date()))().toISOString(),
    host: hostname(),
  };
  const text = `${JSON.stringify(info)}\n`;
  makeFolders(dirname(path), 0o700);
  refuseSharedFolder(dirname(path));
  let tookOverFrom: LockInfo | UnreadableLock | undefined;
  for (const giveUpAt = Date.now() + GIVE_UP_AFTER_MS; Date.now() < giveUpAt;) {
    if (createWithContent(path, text)) {
      const lock = makeLock(path, info, text, o.heartbeatMs ?? HEARTBEAT_MS);
      // What writers of this lock left when they died or the disk was full: nobody else sweeps it.
      removeLeftoverTemps(path);
      return tookOverFrom ? { kind: "acquired", lock, tookOverFrom } : { kind: "acquired", lock };
    }
    const existing = await readLockFile(path);
    if (existing === undefined) continue; // released between our create and our read
    const judged = judgeHolder(await readHolder(existing.text), info.host, Date.now() - existing.mtimeMs);
    if (judged.kind === "held") return { kind: "held", holder: judged.holder };
    const outcome = await removeStaleLock(path, existing.text);
    if (outcome === "removed") tookOverFrom = judged.holder;
    if (outcome === "busy") await setTimeout(BUSY_WAIT_MS);
  }
  throw new SessionpinError(
    "pointer-locked",
    `could not lock ${path}: another process is taking it over; try again in a few seconds`,
  );
}

/**
 * Writes the content aside, then links it into place: link() creates the name atomically and
 * fails if it exists, and unlike open("wx") the lock is never visible empty to a rival.
 * Synchronous, as the folder above: the lock is taken before the agent starts, and each awaited
 * call was a trip through libuv's thread pool, which on a busy machine waits for a core.
 */
function createWithContent(path: string, text: string): boolean {
  const temp = tempPathFor(path);
  try {
    // On a full disk the file is made and its write fails: it is removed all the same.
    writeFileSync(temp, text, { flag: "wx", mode: 0o600 });
    linkSync(temp, path);
    return true;
  } catch (err) {
    if (errnoCode(err) === "EEXIST") return false;
    throw err;
  } finally {
    rmSync(temp, { force: true });
  }
}

/**
 * A pointer folder every user may write to (`/tmp`, mode 1777) is not used: another user could
 * put a pointer there first (its ID resumed, the prompt sent into their session) or a lock (no
 * run ever pinned). It was used without a word; the run now goes unpinned and says why.
 */
function refuseSharedFolder(dir: string): void {
  const mode = statSync(dir).mode;
  if ((mode & 0o002) === 0) return;
  throw new SessionpinError("pointer-invalid", `${dir} is writable by every user (mode ${(mode & 0o7777).toString(8)}); keep pointers in a folder only you can write to`);
}

/**
 * The lock file's text and when it was last touched, undefined when there is none. A symbolic
 * link is not followed, and anything but a plain file is not read (a FIFO's read never returns):
 * both throw, for the user to remove by hand. `run` and `doctor` read it here alike.
 */
export async function readLockFile(path: string): Promise<{ text: string; mtimeMs: number } | undefined> {
  const stat = await lstat(path).catch(missingAsUndefined);
  if (stat === undefined) return undefined;
  if (!stat.isFile()) {
    const what = stat.isSymbolicLink() ? "a symbolic link; sessionpin will not follow it" : "not a regular file";
    throw new SessionpinError("pointer-invalid", `lock file ${path} is ${what}, remove it by hand`);
  }
  const text = readLockText(path);
  if (text === "too large") throw new SessionpinError("pointer-invalid", `lock file ${path} is larger than any lock sessionpin writes (${MAX_LOCK_BYTES} bytes), remove it by hand`);
  return text === undefined ? undefined : { text, mtimeMs: stat.mtimeMs };
}

// The whole text (pid and start time) must match, so a recycled pid never frees a rival's lock.
function makeLock(path: string, info: LockInfo, text: string, heartbeatMs: number): PointerLock {
  const ours = (): boolean => readLockText(path) === text;
  // Keeps the lock's mtime fresh while it is ours; unref'd, so it never holds the process open.
  const heartbeat = setInterval(() => {
    try {
      if (ours()) utimesSync(path, new Date(), new Date());
    } catch {
      // Gone or unreadable: the next start judges what is there.
    }
  }, heartbeatMs);
  heartbeat.unref();
  return {
    path,
    info,
    async release() {
      clearInterval(heartbeat);
      if (readLockText(path) === text) {
        await unlink(path).catch(missingAsUndefined);
      }
    },
    releaseSync() {
      clearInterval(heartbeat);
      try {
        if (ours()) unlinkSync(path);
      } catch (err) {
        missingAsUndefined(err);
      }
    },
  };
}

/** For `.catch()`: a file that vanished is undefined, any other failure is rethrown. */
function missingAsUndefined(err: unknown): undefined {
  if (errnoCode(err) === "ENOENT") return undefined;
  throw err;
}
