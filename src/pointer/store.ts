import { closeSync, constants, fstatSync, fsyncSync, openSync, readdirSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { link, open, unlink } from "node:fs/promises";
import { dirname, join } from "node:path";
import type { z } from "zod";
import { errnoCode, messageOf, reasonOf, SessionpinError } from "../errors.js";
import { tempPathFor, tempWriter } from "./atomic.js";
import { readCapped } from "./capped.js";
import { normalized, surelyValid } from "./check.js";
import { isAlive } from "./holder.js";
import type { Pointer } from "./schema.js";
import { POINTER_VERSION } from "./version.js";
import { makeFolders } from "../files.js";

/**
 * The most a pointer file may hold. What sessionpin writes stays far below: 50 history entries, 50
 * message fingerprints, a key of at most 1,024 characters. A larger file is read no further.
 */
export const MAX_POINTER_BYTES = 1 << 20;

export type PointerRead =
  | { kind: "missing" }
  | { kind: "ok"; pointer: Pointer }
  /** `folder`: a folder is at the path (a --pointer naming one by mistake): never set aside. */
  | { kind: "invalid"; reason: string; folder?: true }
  /** From a newer sessionpin: neither used nor set aside, so that version can still resume. */
  | { kind: "newer"; version: number };

/**
 * Reads the pointer without ever throwing: a bad file is a reason to start fresh, not to crash.
 * Synchronous: a warm start reads it before the agent can start, and each awaited call was a trip
 * through libuv's thread pool, which on a busy machine waits for a core. Opened without blocking,
 * so a FIFO put in its place is refused instead of hanging the start.
 */
export async function readPointer(path: string): Promise<PointerRead> {
  let text: string;
  try {
    // O_NOFOLLOW rather than lstat-then-read: no window in which to swap the file for a link.
    const fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
    try {
      const stat = fstatSync(fd);
      if (stat.isDirectory()) return { kind: "invalid", reason: "is a folder, not a pointer file", folder: true };
      if (!stat.isFile()) return { kind: "invalid", reason: "not a regular file" };
      const bytes = stat.size > MAX_POINTER_BYTES ? undefined : readCapped(fd, MAX_POINTER_BYTES, stat.size);
      if (bytes === undefined) return { kind: "invalid", reason: `${Math.max(stat.size, MAX_POINTER_BYTES + 1)} bytes, more than any pointer (${MAX_POINTER_BYTES})` };
      text = bytes.toString("utf8");
    } finally {
      closeSync(fd);
    }
  } catch (err) {
    const code = errnoCode(err);
    if (code === "ENOENT") return { kind: "missing" };
    if (code === "ELOOP") return { kind: "invalid", reason: "is a symbolic link" };
    return { kind: "invalid", reason: `cannot read: ${reasonOf(err)}` };
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (err) {
    return { kind: "invalid", reason: `not JSON: ${messageOf(err)}` };
  }
  const version = (json as { version?: unknown } | null)?.version;
  // Only a whole version number is a newer sessionpin's: 1.5 or 1e308 is a corrupt file, set aside
  // like any other, not a reason to refuse every start until someone removes it.
  if (Number.isSafeInteger(version) && (version as number) > POINTER_VERSION) return { kind: "newer", version: version as number };
  const read = await checked(json);
  return "pointer" in read ? { kind: "ok", pointer: read.pointer } : { kind: "invalid", reason: read.problem };
}

/**
 * The pointer as PointerSchema reads it, or what is wrong with it. What sessionpin wrote or just
 * built passes the plain check; zod is loaded only for a doubtful value.
 */
async function checked(value: unknown): Promise<{ pointer: Pointer } | { problem: string; error: z.ZodError }> {
  if (surelyValid(value)) return { pointer: normalized(value) };
  const { PointerSchema } = await import("./schema.js");
  const parsed = PointerSchema.safeParse(value);
  return parsed.success ? { pointer: parsed.data } : { problem: describeIssues(parsed.error.issues), error: parsed.error };
}

function describeIssues(issues: readonly z.core.$ZodIssue[]): string {
  return issues
    .map((i) => (i.path.length ? `field ${i.path.join(".")}: ${i.message}` : i.message))
    .join("; ");
}

/**
 * Replaces the pointer atomically: a crash leaves either the old or the new file, never a torn
 * one, and the folder fsync makes the rename itself survive a power cut.
 *
 * Up to the rename the calls are synchronous: each of the five awaited calls they were went to
 * libuv's thread pool and back, and on a busy machine every hop waited for a core (3-5 ms each
 * were measured with one core kept busy). The event loop waits for the fsync instead, a few ms
 * per pointer write, a handful of times in a session. The folder's fsync, after the pointer is
 * in place, still runs in the pool.
 */
export async function writePointer(path: string, pointer: Pointer): Promise<void> {
  const read = await checked(pointer);
  if (!("pointer" in read)) {
    throw new SessionpinError("pointer-invalid", `refusing to write an invalid pointer to ${path}: ${read.problem}`, { cause: read.error });
  }
  const data = read.pointer;
  const dir = dirname(path);
  const temp = tempPathFor(path);
  try {
    const fd = createTemp(temp, dir);
    try {
      writeFileSync(fd, `${JSON.stringify(data, null, 2)}\n`, "utf8");
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(temp, path);
  } catch (err) {
    rmSync(temp, { force: true });
    throw err;
  }
  const folder = await open(dir, "r");
  try {
    await folder.sync();
  } finally {
    await folder.close();
  }
}

/** The temp file, in a folder made first only when it is missing (the run's lock made it already). */
function createTemp(temp: string, dir: string): number {
  try {
    return openSync(temp, "wx", 0o600);
  } catch (err) {
    if (errnoCode(err) !== "ENOENT") throw err;
    makeFolders(dir, 0o700);
    return openSync(temp, "wx", 0o600);
  }
}

/**
 * Moves the pointer out of the way under a dated name so a human can still inspect it.
 * Returns the new path, or undefined when there was no pointer.
 */
export async function setAside(
  path: string,
  label: string,
  now: Date,
): Promise<string | undefined> {
  const stem = path.endsWith(".json") ? path.slice(0, -".json".length) : path;
  const base = `${stem}.${label}-${compactUtc(now)}`;
  for (let n = 1; ; n++) {
    const target = n === 1 ? `${base}.json` : `${base}-${n}.json`;
    try {
      // link() fails on an existing name where rename() would silently replace it.
      await link(path, target);
    } catch (err) {
      const code = errnoCode(err);
      if (code === "EEXIST") continue;
      if (code === "ENOENT") return undefined;
      throw err;
    }
    await unlink(path);
    return target;
  }
}

/** 2026-11-22T21:30:00.000Z → 20261122T213000Z: sortable and legal in every filename. */
function compactUtc(d: Date): string {
  return d.toISOString().replace(/\.\d{3}Z$/, "Z").replace(/[-:]/g, "");
}

/** Removes the temp files that writers of this pointer left when they were killed mid-write. */
export function removeLeftoverTemps(path: string): string[] {
  const dir = dirname(path);
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return [];
  }
  // A live writer's file is in flight (a second run creating its lock's temp file while this one
  // sweeps): only a dead writer's leftovers go.
  const leftovers = names.filter((name) => {
    const writer = tempWriter(path, name);
    return writer !== undefined && !isAlive(writer);
  }).map((name) => join(dir, name));
  for (const file of leftovers) rmSync(file, { force: true });
  return leftovers;
}
