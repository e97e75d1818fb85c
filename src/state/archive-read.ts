import { createHash, type Hash } from "node:crypto";
import { closeSync, constants, createReadStream, fstatSync, openSync } from "node:fs";
import { createGunzip } from "node:zlib";
import type { ReadEntry } from "tar";
import { reasonOf } from "../errors.js";
import type { Manifest, ManifestEntry } from "./archive-manifest.js";
import { badName, CarryError, MANIFEST_NAME, MAX_FILE_BYTES, MAX_MANIFEST_BYTES, MAX_TOTAL_BYTES, refused } from "./archive-rules.js";

/** Where an entry's bytes go once its name, kind and size were found right (its sha256 is checked as they come). */
export interface EntrySink {
  data(chunk: Buffer): void;
  /** All of the entry, matching the manifest's size and sha256. */
  end(): void;
}

export interface ScanHandler {
  /** The manifest, read and valid, before any other entry; throwing a CarryError refuses the archive. */
  manifest(manifest: Manifest): void;
  /** Where the bytes of `entry` go; undefined: they are only checked. */
  entry(entry: ManifestEntry): EntrySink | undefined;
}

// Tar's own bytes around each file (its header, a pax header for a long name, the padding to 512)
// and at the end (two empty blocks, a writer's record padding): what an archive may hold besides
// the files its manifest lists.
const PER_ENTRY = 3 * 512;
const SLACK = 64 * 1024;
const padded = (size: number): number => Math.ceil(size / 512) * 512;

/**
 * Reads carry archive `file` through once, and refuses it, in one line, unless everything in it
 * is right: gzip whole (a cut archive fails), `manifest.json` first and valid, then exactly the
 * files it lists, each once, each a regular file (never a link, a folder or a device) under a name
 * that stays inside, its size the manifest's (a header claiming more than an archive may hold is
 * refused before a byte of it is read) and its sha256 the manifest's; nothing unpacked beyond what
 * the manifest accounts for (a gzip bomb stops there). `handler` sees the manifest, then gets each
 * entry's bytes as they come; only what it does with them is written anywhere.
 */
export async function scanArchive(file: string, handler: ScanHandler): Promise<Manifest> {
  const { Parser } = await import("tar");
  // zod, which reads the manifest, loads only here: it is most of sessionpin's start-up.
  const { parseManifest } = await import("./archive-manifest.js");
  const fd = openArchive(file);
  const source = createReadStream("", { fd, autoClose: true });
  const gunzip = createGunzip();
  source.on("error", (error) => gunzip.destroy(error));
  source.pipe(gunzip);

  let manifest: Manifest | undefined;
  let manifestText: Buffer[] | undefined;
  let expected: Map<string, ManifestEntry> | undefined;
  const seen = new Set<string>();
  let allowed = PER_ENTRY + MAX_MANIFEST_BYTES + SLACK;
  let unpacked = 0;
  let failure: unknown;
  let entries = 0;

  const onEntry = (entry: ReadEntry): void => {
    const name = entry.path;
    const shown = JSON.stringify(name.slice(0, 200));
    if (entry.type !== "File" && entry.type !== "OldFile") {
      const what = entry.type === "SymbolicLink" ? `a symbolic link (to ${JSON.stringify(entry.linkpath ?? "")})` : entry.type === "Link" ? "a hard link" : entry.type === "Directory" ? "a folder" : `a ${entry.type} entry`;
      throw refused(`${shown} is ${what}, not a regular file`);
    }
    const bad = badName(name);
    if (bad !== undefined) throw refused(`it holds ${shown}: ${bad}`);
    if (entries++ === 0) {
      if (name !== MANIFEST_NAME) throw refused(`its first entry is ${shown}, not ${MANIFEST_NAME} (not a sessionpin archive)`);
      if (entry.size > MAX_MANIFEST_BYTES) throw refused(`its manifest claims ${entry.size} bytes, more than ${MAX_MANIFEST_BYTES}`);
      const chunks: Buffer[] = (manifestText = []);
      entry.on("data", (chunk: Buffer) => chunks.push(chunk));
      entry.on("end", () => {
        manifest = parseManifest(Buffer.concat(chunks).toString("utf8"));
        expected = new Map(manifest.entries.map((e) => [e.path, e]));
        allowed = unpacked + SLACK + manifest.entries.reduce((sum, e) => sum + PER_ENTRY + padded(e.size), 0);
        handler.manifest(manifest);
      });
      return;
    }
    if (entry.size > MAX_FILE_BYTES) throw refused(`${shown} claims ${entry.size} bytes, more than a file of an archive may hold (${MAX_FILE_BYTES})`);
    if (name === MANIFEST_NAME) throw refused(`it holds ${MANIFEST_NAME} twice`);
    const listed = expected?.get(name);
    if (listed === undefined) throw refused(`${shown} is not in its manifest`);
    if (seen.has(name)) throw refused(`it holds ${shown} twice`);
    seen.add(name);
    if (entry.size !== listed.size) throw refused(`${shown} holds ${entry.size} bytes, its manifest says ${listed.size}`);
    const sink = handler.entry(listed);
    const hash: Hash = createHash("sha256");
    let bytes = 0;
    entry.on("data", (chunk: Buffer) => {
      hash.update(chunk);
      bytes += chunk.length;
      sink?.data(chunk);
    });
    entry.on("end", () => {
      if (bytes !== listed.size) throw refused(`${shown} is cut short (${bytes} of ${listed.size} bytes)`);
      if (hash.digest("hex") !== listed.sha256) throw refused(`${shown} does not match its sha256 in the manifest (altered or damaged)`);
      sink?.end();
    });
  };

  const parser = new Parser({ strict: true, onReadEntry: onEntry });
  parser.on("error", (error: unknown) => void (failure ??= error));
  try {
    for await (const chunk of gunzip as AsyncIterable<Buffer>) {
      unpacked += chunk.length;
      if (unpacked > allowed) throw refused(`it unpacks to more than its manifest accounts for (${allowed} bytes)`);
      parser.write(chunk);
      if (failure !== undefined) break;
    }
    if (failure === undefined) parser.end();
  } catch (error) {
    failure ??= error;
  } finally {
    source.destroy();
    gunzip.destroy();
  }
  if (failure !== undefined) throw asRefusal(failure);
  if (manifest === undefined) throw refused(manifestText === undefined ? "it holds no manifest (empty, or not a sessionpin archive)" : "it is cut short inside its manifest (truncated)");
  const missing = manifest.entries.filter((e) => !seen.has(e.path));
  if (missing.length > 0) throw refused(`it is cut short: ${missing.length} of the files its manifest lists are missing (first ${JSON.stringify(missing[0]?.path)})`);
  return manifest;
}

/** The archive the user named, followed if it is a link, as a regular file of a size an archive may have. */
function openArchive(file: string): number {
  let fd: number;
  try {
    fd = openSync(file, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (error) {
    throw new CarryError(1, `cannot read it: ${reasonOf(error)}`, { cause: error });
  }
  const stat = fstatSync(fd);
  if (!stat.isFile() || stat.size > MAX_TOTAL_BYTES + SLACK * 16) {
    closeSync(fd);
    throw refused(stat.isFile() ? `${stat.size} bytes, more than an archive may hold` : "not a regular file");
  }
  return fd;
}

/** A failure of the gzip or tar layer, in the words a person needs. */
function asRefusal(error: unknown): CarryError {
  if (error instanceof CarryError) return error;
  const code = (error as { code?: unknown }).code;
  const message = error instanceof Error ? error.message : String(error);
  if (code === "Z_BUF_ERROR" || /unexpected end of file/i.test(message)) return refused("it is cut short (truncated gzip data)");
  if (code === "Z_DATA_ERROR") return refused(`its gzip data is damaged or it is no gzip file (${message})`);
  if (code === "TAR_BAD_ARCHIVE" && /truncated/i.test(message)) return refused("it is cut short (truncated tar data)");
  if (typeof code === "string" && code.startsWith("TAR_")) return refused(`its tar data is damaged (${message.replace(/^TAR_\w+: /, "")})`);
  return new CarryError(1, `cannot read it: ${reasonOf(error)}`, { cause: error });
}
