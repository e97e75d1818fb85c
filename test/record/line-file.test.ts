/**
 * The private append-only file recordings and traces are written to: made 0600 in 0700 folders,
 * a recording's header there from the first moment, never through a link, and a cut last line
 * cut off before lines are added to it.
 */
import { readdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it, vi } from "vitest";
import { LineFile } from "../../src/record/line-file.js";
import { memoryLog } from "../helpers/webhook-receiver.js";
import { useTempDir } from "../pointer/tempdir.js";

const tmp = useTempDir();

describe("LineFile", () => {
  it("opens with its first line already there, private, in private folders, and adds whole lines", () => {
    const path = join(tmp.path, "runs", "deep", "run.cast");
    const file = LineFile.open(path, memoryLog(), { version: 2 });
    if (file === undefined) throw new Error("not opened");
    expect(readFileSync(path, "utf8")).toBe('{"version":2}\n');
    file.write([0.5, "o", "hi"]);
    file.close();
    file.write([1, "o", "after close"]);
    expect(readFileSync(path, "utf8")).toBe('{"version":2}\n[0.5,"o","hi"]\n');
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(statSync(join(tmp.path, "runs")).mode & 0o777).toBe(0o700);
    expect(readdirSync(join(tmp.path, "runs", "deep"))).toEqual(["run.cast"]);
  });

  it("writes nothing through a link, and says so on stderr and in the log", () => {
    writeFileSync(join(tmp.path, "target"), "precious\n");
    symlinkSync(join(tmp.path, "target"), join(tmp.path, "trace.jsonl"));
    const log = memoryLog();
    const stderr = vi.spyOn(process.stderr, "write").mockImplementation(() => true);
    try {
      expect(LineFile.open(join(tmp.path, "trace.jsonl"), log)).toBeUndefined();
      expect(stderr).toHaveBeenCalledWith(expect.stringMatching(/^sessionpin: cannot write .*trace\.jsonl \(.*\): running the agent without it\n$/));
    } finally {
      stderr.mockRestore();
    }
    expect(log.lines).toEqual([expect.stringMatching(/^warn cannot write .*trace\.jsonl: .*; running the agent without it$/)]);
    expect(readFileSync(join(tmp.path, "target"), "utf8")).toBe("precious\n");
  });

  it("appends after the whole lines it keeps, cutting off a line a killed run left, and says so", () => {
    const path = join(tmp.path, "run.cast");
    const whole = '{"version":2}\n[1,"o","a"]\n';
    writeFileSync(path, `${whole}[2,"o","cu`);
    const log = memoryLog();
    const file = LineFile.append(path, log, Buffer.byteLength(whole), '[3,"m",""]\n');
    if (file === undefined) throw new Error("not opened");
    file.write([4, "o", "b"]);
    file.close();
    expect(readFileSync(path, "utf8")).toBe(`${whole}[3,"m",""]\n[4,"o","b"]\n`);
    expect(log.lines).toEqual([`warn ${path} ended in a cut line (10 bytes, from a run killed mid-write or a full disk): cut off before adding to it`]);
  });
});
