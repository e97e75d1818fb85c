import { constants } from "node:fs";
import { link, mkdir, open, readdir, rename, rm, unlink } from "node:fs/promises";
import { dirname, join } from "node:path";
import type { z } from "zod";
import { errnoCode, messageOf, reasonOf, SessionpinError } from "../errors.js";
import { tempPathFor, tempWriter } from "./atomic.js";
import { isAlive } from "./holder.js";
import type { Pointer } from "./schema.js";
import { POINTER_VERSION } from "./version.js";

export type PointerRead =
  | { kind: "missing" }
  | { kind: "ok"; pointer: Pointer }
  | { kind: "invalid"; reason: string }
  /** From a newer sessionpin: neither used nor set aside, so that version can still resume. */
  | { kind: "newer"; version: number };

/** Reads the pointer without ever throwing: a bad file is a reason to start fresh, not to crash. */
export async function readPointer(path: string): Promise<PointerRead> {
  let text: string;
  try {
    // O_NOFOLLOW rather than lstat-then-read: no window in which to swap the file for a link.
    const file = await open(path, constants.O_RDONLY | constants.O_NOFOLLOW);
    try {
      if (!(await file.stat()).isFile()) return { kind: "invalid", reason: "not a regular file" };
      text = await file.readFile("utf8");
    } finally {
      await file.close();
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
  const { PointerSchema } = await import("./schema.js");
  const parsed = PointerSchema.safeParse(json);
  return parsed.success
    ? { kind: "ok", pointer: parsed.data }
    : { kind: "invalid", reason: describeIssues(parsed.error.issues) };
}

function describeIssues(issues: readonly z.core.$ZodIssue[]): string {
  return issues
    .map((i) => (i.path.length ? `field ${i.path.join(".")}: ${i.message}` : i.message))
    .join("; ");
}

/**
 * Replaces the pointer atomically: a crash leaves either the old or the new file, never a torn
 * one, and the folder fsync makes the rename itself survive a power cut.
 */
export async function writePointer(path: string, pointer: Pointer): Promise<void> {
  const { PointerSchema } = await import("./schema.js");
  const parsed = PointerSchema.safeParse(pointer);
  if (!parsed.success) {
    throw new SessionpinError(
      "pointer-invalid",
      `refusing to write an invalid pointer to ${path}: ${describeIssues(parsed.error.issues)}`,
      { cause: parsed.error },
    );
  }
  const dir = dirname(path);
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const temp = tempPathFor(path);
  try {
    const file = await open(temp, "wx", 0o600);
    try {
      await file.writeFile(`${JSON.stringify(parsed.data, null, 2)}\n`, "utf8");
      await file.sync();
    } finally {
      await file.close();
    }
    await rename(temp, path);
    const folder = await open(dir, "r");
    try {
      await folder.sync();
    } finally {
      await folder.close();
    }
  } catch (err) {
    await rm(temp, { force: true });
    throw err;
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
export async function removeLeftoverTemps(path: string): Promise<string[]> {
  const dir = dirname(path);
  let names: string[];
  try {
    names = await readdir(dir);
  } catch {
    return [];
  }
  // A live writer's file is in flight (a second run creating its lock's temp file while this one
  // sweeps): only a dead writer's leftovers go.
  const leftovers = names.filter((name) => {
    const writer = tempWriter(path, name);
    return writer !== undefined && !isAlive(writer);
  }).map((name) => join(dir, name));
  await Promise.all(leftovers.map((file) => rm(file, { force: true })));
  return leftovers;
}
