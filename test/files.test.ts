import { execFileSync } from "node:child_process";
import { chmodSync, closeSync, constants, existsSync, mkdirSync, readFileSync, statSync, symlinkSync, writeFileSync, writeSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { makeFolders, openPrivate, readSmallFile } from "../src/files.js";
import { useTempDir } from "./pointer/tempdir.js";

const tmp = useTempDir();
const fifo = (name: string): string => {
  const path = join(tmp.path, name);
  execFileSync("mkfifo", [path]);
  return path;
};

describe("readSmallFile", () => {
  it("reads a regular file up to its limit as text", () => {
    const path = join(tmp.path, "prompt.txt");
    writeFileSync(path, "fix the build ✓\n");
    expect(readSmallFile(path, 100, "a prompt")).toEqual({ text: "fix the build ✓\n" });
    expect(readSmallFile(path, Buffer.byteLength("fix the build ✓\n"), "a prompt")).toEqual({ text: "fix the build ✓\n" });
  });

  it("says why it reads no folder, FIFO, device or file past the limit, without waiting or reading them", () => {
    const path = join(tmp.path, "big.json");
    writeFileSync(path, "x".repeat(101));
    expect(readSmallFile(path, 100, "a plugin")).toEqual({ problem: "101 bytes, more than a plugin's 100" });
    expect(readSmallFile(tmp.path, 100, "a plugin")).toEqual({ problem: "is a folder" });
    // No writer: a blocking open would wait for one for ever.
    expect(readSmallFile(fifo("p"), 100, "a plugin")).toEqual({ problem: "not a regular file" });
    expect(readSmallFile("/dev/zero", 100, "a plugin")).toEqual({ problem: "not a regular file" });
  });

  it("throws for a file that is not there, with the system's code", () => {
    expect(() => readSmallFile(join(tmp.path, "missing"), 100, "a plugin")).toThrow(expect.objectContaining({ code: "ENOENT" }));
  });
});

describe("openPrivate", () => {
  const append = constants.O_WRONLY | constants.O_CREAT | constants.O_APPEND;

  it("makes the file 0600, and narrows one that was there with more to 0600", () => {
    const made = join(tmp.path, "run.log");
    closeSync(openPrivate(made, append));
    expect(statSync(made).mode & 0o777).toBe(0o600);
    const open = join(tmp.path, "open.log");
    writeFileSync(open, "before\n", { mode: 0o644 });
    chmodSync(open, 0o644);
    const fd = openPrivate(open, append);
    writeSync(fd, "after\n");
    closeSync(fd);
    expect(statSync(open).mode & 0o777).toBe(0o600);
    expect(readFileSync(open, "utf8")).toBe("before\nafter\n");
  });

  it("never writes through a symbolic link, to a FIFO, or to a folder", () => {
    const target = join(tmp.path, "target");
    writeFileSync(target, "kept", { mode: 0o644 });
    symlinkSync(target, join(tmp.path, "link.log"));
    expect(() => openPrivate(join(tmp.path, "link.log"), append)).toThrow(expect.objectContaining({ code: "ELOOP" }));
    expect(readFileSync(target, "utf8")).toBe("kept");
    expect(statSync(target).mode & 0o777).toBe(0o644);
    // Without a reader the open fails at once rather than waiting for one.
    expect(() => openPrivate(fifo("f.log"), append)).toThrow(expect.objectContaining({ code: "ENXIO" }));
    expect(() => openPrivate(fifo("r.log"), constants.O_RDONLY)).toThrow("not a regular file");
    expect(() => openPrivate(tmp.path, constants.O_RDONLY)).toThrow("not a regular file");
  });
});

describe("makeFolders", () => {
  it("makes each missing folder with the mode given, and leaves the ones there as they are", () => {
    mkdirSync(join(tmp.path, "a"), { mode: 0o755 });
    chmodSync(join(tmp.path, "a"), 0o755);
    makeFolders(join(tmp.path, "a", "b", "c"), 0o700);
    expect(statSync(join(tmp.path, "a")).mode & 0o777).toBe(0o755);
    expect(statSync(join(tmp.path, "a", "b")).mode & 0o777).toBe(0o700);
    expect(statSync(join(tmp.path, "a", "b", "c")).mode & 0o777).toBe(0o700);
    makeFolders(join(tmp.path, "a", "b", "c"), 0o700);
    makeFolders(join(tmp.path, "a", "b", "c", ".."), 0o700);
    expect(existsSync(join(tmp.path, "a", "b", "c"))).toBe(true);
  });

  it("throws where a folder cannot be made below a file", () => {
    writeFileSync(join(tmp.path, "file"), "");
    expect(() => makeFolders(join(tmp.path, "file", "sub"), 0o700)).toThrow(expect.objectContaining({ code: "ENOTDIR" }));
  });

  it.runIf(existsSync("/proc/self"))("throws where procfs answers ENOENT, where Node's own recursive mkdir loops for ever", () => {
    expect(() => makeFolders("/proc/sessionpin-no-such/run", 0o700)).toThrow(expect.objectContaining({ code: "ENOENT" }));
  });
});
