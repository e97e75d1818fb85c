/**
 * The listing cache gives a file's row again only while the file is the one the row was made of,
 * and keeps nothing that could be wrong: a file replaced, gone, or a cache file it did not write.
 * (That `sessions` lists the same with and without it is test/state/sessions.test.ts's.)
 */
import { mkdtempSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { listingCache, type RowCodec } from "../../src/fast/listing-cache.js";

interface Row {
  readonly path: string;
  readonly text: string;
}
const codec: RowCodec<Row> = {
  pack: (row) => [row.text],
  unpack: ([text], path) => (typeof text === "string" ? { path, text } : undefined),
};

let home: string;
beforeEach(() => {
  home = mkdtempSync(join(tmpdir(), "sessionpin-listing-"));
});
afterEach(() => {
  delete process.env["SESSIONPIN_NO_FAST"];
  rmSync(home, { recursive: true, force: true });
});

/** One listing as `sessions` makes it: a row from the cache, else read from the file and kept. */
async function listing(paths: readonly string[]): Promise<{ rows: Row[]; read: string[] }> {
  const cache = await listingCache(home, codec);
  const read: string[] = [];
  const rows = paths.flatMap((path) => {
    const cached = cache.cached(path);
    if (cached !== undefined) return [cached];
    read.push(path);
    const row = { path, text: readFileSync(path, "utf8") };
    cache.keep(path, row);
    return [row];
  });
  await cache.save();
  return { rows, read };
}

/** Replaced whole, as a pointer is: a new file renamed over the old one. */
function replace(path: string, text: string): void {
  writeFileSync(`${path}.new`, text);
  renameSync(`${path}.new`, path);
}

describe("listingCache", () => {
  it("reads a file once, gives its row again while it is unchanged, and reads it again once replaced", async () => {
    const [a, b] = [join(home, "a.json"), join(home, "b.json")];
    writeFileSync(a, "one");
    writeFileSync(b, "two");
    expect(await listing([a, b])).toEqual({ rows: [{ path: a, text: "one" }, { path: b, text: "two" }], read: [a, b] });
    expect(statSync(join(home, ".listing.json")).mode & 0o777).toBe(0o600);
    expect((await listing([a, b])).read).toEqual([]);
    // The same length: told apart by the file (a new inode), not by its size.
    replace(b, "TWO");
    expect(await listing([a, b])).toEqual({ rows: [{ path: a, text: "one" }, { path: b, text: "TWO" }], read: [b] });
  });

  it("reads every file with SESSIONPIN_NO_FAST=1, and writes no cache", async () => {
    const a = join(home, "a.json");
    writeFileSync(a, "one");
    process.env["SESSIONPIN_NO_FAST"] = "1";
    expect((await listing([a])).read).toEqual([a]);
    expect((await listing([a])).read).toEqual([a]);
    expect(() => statSync(join(home, ".listing.json"))).toThrow();
  });

  it("reads around a cache file it did not write, and writes it again", async () => {
    const a = join(home, "a.json");
    writeFileSync(a, "one");
    await listing([a]);
    for (const garbage of ["{", JSON.stringify({ version: 99, entries: [] }), JSON.stringify({ version: 1, entries: [[a, "0:0:0:0", ["forged"]]] })]) {
      writeFileSync(join(home, ".listing.json"), garbage);
      expect(await listing([a])).toEqual({ rows: [{ path: a, text: "one" }], read: [a] });
      expect((await listing([a])).read).toEqual([]);
    }
  });

  it("saving into a state folder that is gone does nothing, and fails nothing", async () => {
    const gone = join(home, "gone");
    const cache = await listingCache(gone, codec);
    cache.keep(join(home, "a.json"), undefined);
    await expect(cache.save()).resolves.toBeUndefined();
    expect(() => statSync(gone)).toThrow();
  });
});
