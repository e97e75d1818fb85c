import { lstatSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { readSmallFile } from "../files.js";
import { tempPathFor } from "../pointer/atomic.js";
import { fastPaths } from "./switch.js";

/**
 * The rows `sessions` made of each pointer file, kept in `<state>/sessionpin/.listing.json` with
 * the file's identity (inode, size, change and modification times): a file
 * whose identity is unchanged gives its row again without being read. A pointer is only ever
 * replaced whole (a new inode, a new ctime), so an unchanged identity is an unchanged file.
 * 10,000 pointers of 50 messages each are 120 MB of JSON to parse; their identities are one
 * lstat each. With SESSIONPIN_NO_FAST=1 every file is read (the reference path).
 */
export interface ListingCache<Row> {
  /** The row of `path` when the file is the one it was made of; undefined: read it, and `keep` the row. */
  cached(path: string): Row | undefined;
  /** The row read from `path` (undefined: it names no pointer), for the next listing. */
  keep(path: string, row: Row | undefined): void;
  /** Writes what changed (atomically), when the state folder is there; never fails. */
  save(): Promise<void>;
}

interface Entry<Row> {
  readonly stamp: string;
  readonly row: Row;
}

/** How a row is kept: as an array of its values (no field names), and made again with its path. */
export interface RowCodec<Row> {
  pack(row: Row): unknown[];
  /** The row again, or undefined when `values` is no row of this version's. */
  unpack(values: readonly unknown[], path: string): Row | undefined;
}

const FILE = ".listing.json";
const VERSION = 1;
// 10,000 rows are about 3 MB.
const MAX_BYTES = 256 * 1024 * 1024;

export async function listingCache<Row>(home: string, codec: RowCodec<Row>): Promise<ListingCache<Row>> {
  if (!fastPaths()) return { cached: () => undefined, keep: () => undefined, save: async () => undefined };
  const file = join(home, FILE);
  const before = readCache(file, codec);
  const now = new Map<string, Entry<Row>>();
  // The identity a file had when `cached` looked, kept with the row read after.
  const looked = new Map<string, string>();
  let changed = false;
  return {
    cached(path) {
      const stamp = stampOf(path);
      const cached = before.get(path);
      before.delete(path);
      if (stamp !== undefined && cached !== undefined && cached.stamp === stamp) {
        now.set(path, cached);
        return cached.row;
      }
      if (stamp !== undefined) looked.set(path, stamp);
      return undefined;
    },
    keep(path, row) {
      changed = true;
      const stamp = looked.get(path);
      if (row !== undefined && stamp !== undefined) now.set(path, { stamp, row });
    },
    async save() {
      // Nothing read again, and no file gone since (what is left in `before`).
      if (!changed && before.size === 0) return;
      const temp = tempPathFor(file);
      try {
        if (!statSync(home).isDirectory()) return;
        const entries = [...now].map(([path, entry]) => [path, entry.stamp, codec.pack(entry.row)]);
        writeFileSync(temp, JSON.stringify({ version: VERSION, entries }), { mode: 0o600, flag: "wx" });
        renameSync(temp, file);
      } catch {
        // A listing without its cache only costs the reading: nothing to say.
        rmSync(temp, { force: true });
      }
    },
  };
}

/** The file's identity, or undefined when it cannot be told (then it is read). */
function stampOf(path: string): string | undefined {
  try {
    // Milliseconds with their fraction (microseconds survive in a double), not BigInt stats:
    // 10,000 of those took 22 MB. A pointer replaced is a new inode anyway.
    const s = lstatSync(path);
    return `${s.ino}:${s.size}:${s.mtimeMs}:${s.ctimeMs}`;
  } catch {
    return undefined;
  }
}

/** The cache as written, or nothing: a file that is not what this version writes is ignored. */
function readCache<Row>(file: string, codec: RowCodec<Row>): Map<string, Entry<Row>> {
  const entries = new Map<string, Entry<Row>>();
  try {
    const read = readSmallFile(file, MAX_BYTES, "the listing cache");
    if ("problem" in read) return entries;
    const parsed = JSON.parse(read.text) as { version?: unknown; entries?: unknown };
    if (parsed.version !== VERSION || !Array.isArray(parsed.entries)) return entries;
    for (const item of parsed.entries as unknown[]) {
      if (!Array.isArray(item)) continue;
      const [path, stamp, values] = item as unknown[];
      const row = typeof path === "string" && typeof stamp === "string" && Array.isArray(values) ? codec.unpack(values, path) : undefined;
      if (row !== undefined) entries.set(path as string, { stamp: stamp as string, row });
    }
  } catch {
    // Unreadable: every file is read, and the cache written again.
  }
  return entries;
}
