/**
 * The store look `export` and `import` hand to the carry specs: the store readers' rules, so a
 * spec reads no link, no FIFO and no more than it asked for.
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { storeLook } from "../../src/state/store-look.js";
import { useTempDir } from "../pointer/tempdir.js";

const tmp = useTempDir();

describe("storeLook", () => {
  it("lists a folder's names, reads a file's head to its bound and says its size, and reads nothing else", () => {
    const dir = join(tmp.path, "store");
    mkdirSync(join(dir, "sub"), { recursive: true });
    writeFileSync(join(dir, "a.jsonl"), '{"id":"a"}\n{"more":1}\n');
    symlinkSync(join(dir, "a.jsonl"), join(dir, "link.jsonl"));
    execFileSync("mkfifo", [join(dir, "fifo.jsonl")]);
    // What each entry is comes with its name, from the listing itself: a link is not followed.
    expect(storeLook.list(dir)?.map(({ name, kind }) => `${name} ${kind}`).sort()).toEqual(["a.jsonl file", "fifo.jsonl other", "link.jsonl link", "sub folder"]);
    expect(storeLook.list(join(dir, "a.jsonl"))).toBeUndefined();
    expect(storeLook.list(join(tmp.path, "gone"))).toBeUndefined();
    expect(storeLook.head(join(dir, "a.jsonl"), 11)).toBe('{"id":"a"}\n');
    expect(storeLook.size(join(dir, "a.jsonl"))).toBe(22);
    for (const name of ["link.jsonl", "fifo.jsonl", "sub", "gone"]) {
      expect(storeLook.head(join(dir, name), 100), name).toBeUndefined();
      expect(storeLook.size(join(dir, name)), name).toBeUndefined();
    }
  });
});
