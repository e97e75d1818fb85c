import { execFileSync } from "node:child_process";
import { lstatSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { CastRecorder, RECORD_MODES } from "../../src/record/asciicast.js";
import { memoryLog } from "../helpers/webhook-receiver.js";
import { useTempDir } from "../pointer/tempdir.js";

const tmp = useTempDir();
const HEADER = { width: 80, height: 24, command: "amp", env: {} };

/** What is at `path` now, as `ls -l` would say it. */
function kindOf(path: string): string {
  const stat = lstatSync(path);
  return stat.isFIFO() ? "fifo" : stat.isCharacterDevice() ? "char" : stat.isSymbolicLink() ? "link" : stat.isDirectory() ? "folder" : stat.isFile() ? "file" : "other";
}

describe("--record over what is no regular file", () => {
  // As root, `--record /dev/null --record-mode overwrite` replaced /dev/null with a recording.
  const makers: Record<string, (path: string) => void> = {
    fifo: (path) => execFileSync("mkfifo", [path]),
    link: (path) => symlinkSync(join(tmp.path, "target"), path),
    folder: (path) => mkdirSync(path),
    // A character device like /dev/null (1, 3): only root may make one.
    ...(process.getuid?.() === 0 ? { char: (path: string) => execFileSync("mknod", [path, "c", "1", "3"]) } : {}),
  };
  for (const [kind, make] of Object.entries(makers)) {
    it.each(RECORD_MODES)(`leaves a ${kind} where it is, whatever the mode (%s), and says why in the log`, (mode) => {
      const path = join(tmp.path, "run.cast");
      writeFileSync(join(tmp.path, "target"), "precious\n");
      make(path);
      const log = memoryLog();
      expect(CastRecorder.open(path, HEADER, { log, withInput: false, mode })).toBeUndefined();
      expect(kindOf(path)).toBe(kind);
      expect(readFileSync(join(tmp.path, "target"), "utf8")).toBe("precious\n");
      expect(log.lines).toEqual([`warn ${path} ${mode === "refuse" ? "exists: not recording (--record-mode append adds to it, overwrite replaces it)" : `is ${{ fifo: "a FIFO", link: "a symbolic link", folder: "a folder", char: "a character device" }[kind]}: not recording over it`}`]);
    });
  }

  it("overwrite still replaces a regular file, and records into it", () => {
    const path = join(tmp.path, "run.cast");
    writeFileSync(path, "not a recording\n");
    const recorder = CastRecorder.open(path, HEADER, { log: memoryLog(), withInput: false, mode: "overwrite" });
    recorder?.output(Buffer.from("hello"));
    recorder?.close();
    const [header, event] = readFileSync(path, "utf8").trimEnd().split("\n");
    expect(JSON.parse(header ?? "")).toMatchObject({ version: 2, width: 80 });
    expect(JSON.parse(event ?? "")).toEqual([expect.any(Number), "o", "hello"]);
  });
});
