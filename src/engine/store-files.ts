import { closeSync, constants, fstatSync, lstatSync, openSync, readdirSync, readSync, statSync, type Dirent, type Stats } from "node:fs";
import { lstat, open, readdir, stat } from "node:fs/promises";
import { parseJsonObject } from "../json.js";

/**
 * Reading what the agent, or another user, controls: its session files, its pid file, its config.
 * Anyone who can write there can put a FIFO (an open waits for a writer that never comes, and no
 * signal reaches a process stuck in it), a link to /dev/zero (read until memory runs out) or a
 * loop of links in its place. So a file is opened only when it is a regular file, and then without
 * blocking (it may have been swapped since), and checked again; it is read only up to a bound, and
 * a session file is never reached through a link; a folder's entries are never followed through
 * links either.
 *
 * Each reader comes twice: the store watch reads off the thread that relays the agent's bytes
 * (promises, on libuv's pool), and takes its first and last look, before the spawn and after the
 * exit, at once (sync). Neither ever throws: what cannot be read is undefined.
 */

/** `follow`: a link in the last place of the path is followed (the user's own config files, often links into a dotfiles repo). */
export interface ReadLimits {
  readonly maxBytes: number;
  readonly follow?: boolean;
}

const flags = (follow: boolean | undefined): number => constants.O_RDONLY | constants.O_NONBLOCK | (follow === true ? 0 : constants.O_NOFOLLOW);

/** What a read of a regular file found: its bytes from the offset asked, the stamp they were read under, and its size. */
export interface Span {
  readonly bytes: Buffer;
  readonly stamp: FileStamp;
  readonly size: number;
}

/** Enough of a file's stat to tell that it changed since it was last read. */
export type FileStamp = string;
const stampOf = (s: Pick<Stats, "dev" | "ino" | "size" | "mtimeMs" | "ctimeMs">): FileStamp => `${s.dev}:${s.ino}:${s.size}:${s.mtimeMs}:${s.ctimeMs}`;

/**
 * Up to `maxBytes` of a regular file from `offset`; undefined for anything else. `unless`: the
 * stamp of the last read, when nothing need be read if the file is as it was then.
 */
export function readSpanSync(path: string, offset: number, limits: ReadLimits, unless?: FileStamp): Span | "unchanged" | undefined {
  let fd: number;
  try {
    // Looked at before it is opened: opening a FIFO, even without waiting, lets its writer go on.
    if (!(limits.follow === true ? statSync : lstatSync)(path).isFile()) return undefined;
    fd = openSync(path, flags(limits.follow));
  } catch {
    return undefined;
  }
  try {
    const s = fstatSync(fd);
    if (!s.isFile()) return undefined;
    if (stampOf(s) === unless) return "unchanged";
    const buffer = Buffer.alloc(Math.max(0, Math.min(s.size - offset, limits.maxBytes)));
    let read = 0;
    while (read < buffer.length) {
      const n = readSync(fd, buffer, read, buffer.length - read, offset + read);
      if (n === 0) break;
      read += n;
    }
    return { bytes: buffer.subarray(0, read), stamp: stampOf(s), size: s.size };
  } catch {
    return undefined;
  } finally {
    closeSync(fd);
  }
}

/** readSpanSync, off the thread. */
export async function readSpan(path: string, offset: number, limits: ReadLimits, unless?: FileStamp): Promise<Span | "unchanged" | undefined> {
  let handle;
  try {
    if (!(await (limits.follow === true ? stat : lstat)(path)).isFile()) return undefined;
    handle = await open(path, flags(limits.follow));
  } catch {
    return undefined;
  }
  try {
    const s = await handle.stat();
    if (!s.isFile()) return undefined;
    if (stampOf(s) === unless) return "unchanged";
    const buffer = Buffer.alloc(Math.max(0, Math.min(s.size - offset, limits.maxBytes)));
    let read = 0;
    while (read < buffer.length) {
      const { bytesRead } = await handle.read(buffer, read, buffer.length - read, offset + read);
      if (bytesRead === 0) break;
      read += bytesRead;
    }
    return { bytes: buffer.subarray(0, read), stamp: stampOf(s), size: s.size };
  } catch {
    return undefined;
  } finally {
    await handle.close().catch(() => undefined);
  }
}

/**
 * A regular file holding one JSON object, of at most `maxBytes` (a bigger one is not the small
 * file it should be: undefined).
 */
export function readJsonFileSync(path: string, limits: ReadLimits): Record<string, unknown> | undefined {
  // Read under other limits, the file's verdict may differ: a smaller bound refuses what a bigger took.
  const cached = parsed.get(path);
  const same = cached !== undefined && cached.maxBytes === limits.maxBytes && cached.follow === limits.follow;
  const span = readSpanSync(path, 0, { ...limits, maxBytes: limits.maxBytes + 1 }, same ? cached.stamp : undefined);
  if (span === "unchanged" && cached !== undefined) return cached.value;
  const value = jsonOf(span, limits);
  parsed.delete(path);
  if (typeof span === "object") parsed.set(path, { stamp: span.stamp, maxBytes: limits.maxBytes, follow: limits.follow, value });
  if (parsed.size > 8) parsed.delete(parsed.keys().next().value ?? "");
  return value;
}

/**
 * The files readJsonFileSync read last, by path, with the stamp they were read under: a file read
 * again and again (Gemini's projects.json, on every look of the store watch) is parsed again only
 * once it changed.
 */
const parsed = new Map<string, { readonly stamp: FileStamp; readonly maxBytes: number; readonly follow: boolean | undefined; readonly value: Record<string, unknown> | undefined }>();

/** readJsonFileSync, off the thread. */
export async function readJsonFile(path: string, limits: ReadLimits): Promise<Record<string, unknown> | undefined> {
  return jsonOf(await readSpan(path, 0, { ...limits, maxBytes: limits.maxBytes + 1 }), limits);
}

const jsonOf = (span: Span | "unchanged" | undefined, limits: ReadLimits): Record<string, unknown> | undefined =>
  typeof span !== "object" || span.bytes.length > limits.maxBytes ? undefined : parseJsonObject(span.bytes.toString("utf8"));

/** What an entry of a folder is, as its listing says, without following a link. */
export type EntryKind = "file" | "folder" | "link" | "other";

export interface Entry {
  readonly name: string;
  readonly kind: EntryKind;
}

/** A folder's entries; `missing` when there is no folder there; `unreadable` (another user's, a file) proves nothing. */
export type Listing<E = Entry> =
  | { readonly kind: "listed"; readonly entries: readonly E[] }
  | { readonly kind: "missing" }
  | { readonly kind: "unreadable" }
  /** More entries than the caller's bound: none are given. */
  | { readonly kind: "too-many" };

type Typed = Pick<Dirent, "isFile" | "isDirectory" | "isSymbolicLink">;
const kindOf = (d: Typed): EntryKind => (d.isFile() ? "file" : d.isDirectory() ? "folder" : d.isSymbolicLink() ? "link" : "other");

function listed(entries: readonly Dirent[], maxEntries: number): Listing {
  if (entries.length > maxEntries) return { kind: "too-many" };
  return { kind: "listed", entries: entries.map((d) => ({ name: d.name, kind: kindOf(d) })) };
}

function failed<E>(error: unknown): Listing<E> {
  const code = (error as { code?: unknown }).code;
  return code === "ENOENT" ? { kind: "missing" } : { kind: "unreadable" };
}

/** The entries of `dir` (a link at `dir` itself is followed: the user may keep a store on another disk). */
export function listFolderSync(dir: string, maxEntries: number): Listing {
  try {
    return listed(readdirSync(dir, { withFileTypes: true }), maxEntries);
  } catch (error) {
    return failed(error);
  }
}

/** listFolderSync, off the thread. */
export async function listFolder(dir: string, maxEntries: number): Promise<Listing> {
  try {
    return listed(await readdir(dir, { withFileTypes: true }), maxEntries);
  } catch (error) {
    return failed(error);
  }
}

/**
 * The names in `dir`, nothing else: the cheapest listing (the store watch's, which asks what an
 * entry is only of the few it looks at, with `kindOfSync`).
 */
export function listNamesSync(dir: string, maxEntries: number): Listing<string> {
  try {
    const names = readdirSync(dir);
    return names.length > maxEntries ? { kind: "too-many" } : { kind: "listed", entries: names };
  } catch (error) {
    return failed(error);
  }
}

/** listNamesSync, off the thread. */
export async function listNames(dir: string, maxEntries: number): Promise<Listing<string>> {
  try {
    const names = await readdir(dir);
    return names.length > maxEntries ? { kind: "too-many" } : { kind: "listed", entries: names };
  } catch (error) {
    return failed(error);
  }
}

/** What is at `path`, a link itself (never followed); undefined when nothing is. */
export function kindOfSync(path: string): EntryKind | undefined {
  try {
    return kindOf(lstatSync(path));
  } catch {
    return undefined;
  }
}

/** kindOfSync, off the thread. */
export async function kindOfPath(path: string): Promise<EntryKind | undefined> {
  try {
    return kindOf(await lstat(path));
  } catch {
    return undefined;
  }
}

/**
 * A folder's state, to tell whether its entries changed since it was listed: a new, removed or
 * renamed entry changes its mtime and ctime (and, on most file systems, its size or link count).
 * Undefined when it is not a folder.
 */
export interface FolderStamp {
  readonly stamp: string;
  readonly mtimeMs: number;
}

const folderStampOf = (s: Stats): FolderStamp | undefined =>
  s.isDirectory() ? { stamp: `${s.dev}:${s.ino}:${s.mtimeMs}:${s.ctimeMs}:${s.size}:${s.nlink}`, mtimeMs: s.mtimeMs } : undefined;

export function folderStampSync(dir: string): FolderStamp | undefined {
  try {
    return folderStampOf(statSync(dir));
  } catch {
    return undefined;
  }
}

export async function folderStamp(dir: string): Promise<FolderStamp | undefined> {
  try {
    return folderStampOf(await stat(dir));
  } catch {
    return undefined;
  }
}
