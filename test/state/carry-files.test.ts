import { execFileSync } from "node:child_process";
import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { filesBelow, firstJsonLine, literal, MAX_SESSION_FILES } from "../../src/state/carry-files.js";
import { storeLook } from "../../src/state/store-look.js";
import { useTempDir } from "../pointer/tempdir.js";

const tmp = useTempDir();

function tree(files: readonly string[]): string {
  for (const file of files) {
    mkdirSync(join(tmp.path, file, ".."), { recursive: true });
    writeFileSync(join(tmp.path, file), "{}\n");
  }
  return tmp.path;
}

describe("filesBelow", () => {
  it("lists the regular files below a session's folder as paths below the root, sorted", () => {
    const root = tree(["s/b.jsonl", "s/a/z.json", "s/a/y.json", "s/tool-results/1.txt", "other/x.jsonl"]);
    expect(filesBelow(storeLook, root, "s")).toEqual(["s/a/y.json", "s/a/z.json", "s/b.jsonl", "s/tool-results/1.txt"]);
    expect(filesBelow(storeLook, root, "s", (path) => !path.endsWith(".txt"))).toEqual(["s/a/y.json", "s/a/z.json", "s/b.jsonl"]);
    expect(filesBelow(storeLook, root, "missing")).toEqual([]);
  });

  it("follows no link and takes no FIFO, and goes 8 folders deep at most", () => {
    const root = tree(["s/kept.jsonl", `s/${"d/".repeat(7)}deep.json`, `s/${"d/".repeat(8)}too-deep.json`]);
    mkdirSync(join(root, "outside"));
    writeFileSync(join(root, "outside", "secret"), "x");
    symlinkSync(join(root, "outside"), join(root, "s", "linked-folder"));
    symlinkSync(join(root, "outside", "secret"), join(root, "s", "linked-file"));
    execFileSync("mkfifo", [join(root, "s", "fifo")]);
    expect(filesBelow(storeLook, root, "s")).toEqual([`s/${"d/".repeat(7)}deep.json`, "s/kept.jsonl"]);
  });

  it(`brings ${MAX_SESSION_FILES} files of a session at most`, () => {
    mkdirSync(join(tmp.path, "s"));
    for (let i = 0; i < MAX_SESSION_FILES + 10; i++) writeFileSync(join(tmp.path, "s", `${String(i).padStart(5, "0")}.txt`), "");
    const files = filesBelow(storeLook, tmp.path, "s");
    expect(files).toHaveLength(MAX_SESSION_FILES);
    expect(files.at(-1)).toBe(`s/${String(MAX_SESSION_FILES - 1).padStart(5, "0")}.txt`);
  });
});

describe("firstJsonLine", () => {
  it("is the head's first line as an object, and nothing for anything else", () => {
    expect(firstJsonLine('{"sessionId":"s","cwd":"/w"}\n{"type":"user"}\n')).toEqual({ sessionId: "s", cwd: "/w" });
    expect(firstJsonLine('{"a":1}')).toEqual({ a: 1 });
    for (const head of [undefined, "", "\n{}", "[1]\n", "null\n", '{"cut":', "not json\n{}"]) expect(firstJsonLine(head), String(head)).toBeUndefined();
  });
});

describe("literal", () => {
  it("makes a folder's path match itself and nothing else in a regular expression", () => {
    const path = "/w/a.b+(c)[d]{e}^$|*?\\f";
    const pattern = new RegExp(`^${literal(path)}$`);
    expect(pattern.test(path)).toBe(true);
    expect(pattern.test("/w/aXb+(c)[d]{e}^$|*?\\f")).toBe(false);
  });
});
