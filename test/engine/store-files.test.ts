/**
 * The readers of files the agent or another user controls (src/engine/store-files.ts): regular
 * files only, up to a bound, opened without waiting, and through a link only when asked.
 */
import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { folderStampSync, listFolderSync, readJsonFileSync, readSpanSync } from "../../src/engine/store-files.js";

const dirs: string[] = [];
const writers: ChildProcess[] = [];
let home: string;
beforeEach(() => {
  home = mkdtempSync(join(tmpdir(), "sessionpin-files-"));
  dirs.push(home);
});
afterEach(() => {
  for (const writer of writers.splice(0)) writer.kill("SIGKILL");
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe("the readers", () => {
  it("take regular files only, up to their bound: /dev/zero, a folder and a FIFO give nothing", () => {
    const zero = join(home, "zero.json");
    symlinkSync("/dev/zero", zero);
    expect(readJsonFileSync(zero, { maxBytes: 1024, follow: true })).toBeUndefined();
    expect(readSpanSync(zero, 0, { maxBytes: 1024, follow: true })).toBeUndefined();
    expect(readSpanSync(home, 0, { maxBytes: 1024, follow: true })).toBeUndefined();
    execFileSync("mkfifo", [join(home, "fifo")]);
    // A writer a second from now, should the read wait for one.
    writers.push(spawn("sh", ["-c", 'sleep 1; printf x > "$0"', join(home, "fifo")], { stdio: "ignore" }));
    expect(readSpanSync(join(home, "fifo"), 0, { maxBytes: 1024, follow: true })).toBeUndefined();
  });

  it("follow a link only when asked (the user's config files); a session file, never", () => {
    writeFileSync(join(home, "real.json"), '{"a":1}');
    symlinkSync(join(home, "real.json"), join(home, "link.json"));
    expect(readJsonFileSync(join(home, "link.json"), { maxBytes: 1024, follow: true })).toEqual({ a: 1 });
    expect(readJsonFileSync(join(home, "link.json"), { maxBytes: 1024 })).toBeUndefined();
    expect(readJsonFileSync(join(home, "real.json"), { maxBytes: 4 })).toBeUndefined();
  });

  it("judge a JSON file again under another bound or link rule, not from what a read under others kept", () => {
    writeFileSync(join(home, "real.json"), '{"a":1}');
    symlinkSync(join(home, "real.json"), join(home, "link.json"));
    expect(readJsonFileSync(join(home, "real.json"), { maxBytes: 1024 })).toEqual({ a: 1 });
    expect(readJsonFileSync(join(home, "real.json"), { maxBytes: 4 })).toBeUndefined();
    expect(readJsonFileSync(join(home, "link.json"), { maxBytes: 1024, follow: true })).toEqual({ a: 1 });
    expect(readJsonFileSync(join(home, "link.json"), { maxBytes: 1024 })).toBeUndefined();
  });

  it("say what a listing could not: missing, unreadable, or past its bound", () => {
    expect(listFolderSync(join(home, "nothing"), 10)).toEqual({ kind: "missing" });
    writeFileSync(join(home, "file"), "");
    expect(listFolderSync(join(home, "file"), 10)).toEqual({ kind: "unreadable" });
    expect(listFolderSync(home, 0)).toEqual({ kind: "too-many" });
    expect(listFolderSync(home, 10)).toEqual({ kind: "listed", entries: [{ name: "file", kind: "file" }] });
    expect(folderStampSync(join(home, "file"))).toBeUndefined();
  });

  it("tell a changed file from an unchanged one by its stamp, without reading it again", () => {
    writeFileSync(join(home, "f"), "one");
    const first = readSpanSync(join(home, "f"), 0, { maxBytes: 100 });
    if (typeof first !== "object") throw new Error("not read");
    expect(first.bytes.toString()).toBe("one");
    expect(readSpanSync(join(home, "f"), 0, { maxBytes: 100 }, first.stamp)).toBe("unchanged");
    writeFileSync(join(home, "f"), "three");
    expect(readSpanSync(join(home, "f"), 0, { maxBytes: 100 }, first.stamp)).toMatchObject({ size: 5 });
  });
});
