/**
 * agentPipes through real FIFOs and a real child: what the agent writes to either write end comes
 * out of the matching read stream, the ends are FIFOs (a shell's pipe, not a socket), and nothing
 * is left in the temp folder; where no FIFO can be made there are none, and no descriptor leaks.
 */
import { spawn } from "node:child_process";
import { closeSync, fstatSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { agentPipes } from "../../src/pty/fifo.js";
import { ownTmpPerTest } from "../helpers/own-tmp.js";

/** A temp folder of this test's own, as TMPDIR: what sessionpin leaves in it can be counted. */
const ownTmp = ownTmpPerTest("fifo-test");

const openFds = (): number => readdirSync("/proc/self/fd").length;

describe("agentPipes", () => {
  it("gives two FIFOs whose write ends a child writes to and whose read streams deliver it, leaving no file behind", async () => {
    const tmp = ownTmp();
    const pipes = agentPipes();
    expect(pipes).toBeDefined();
    if (pipes === undefined) return;
    expect(readdirSync(tmp)).toEqual([]);
    for (const pipe of [pipes.stdout, pipes.stderr]) expect(fstatSync(pipe.write).isFIFO()).toBe(true);
    const child = spawn("sh", ["-c", "echo out; echo err >&2"], { stdio: ["ignore", pipes.stdout.write, pipes.stderr.write] });
    closeSync(pipes.stdout.write);
    closeSync(pipes.stderr.write);
    const read = (stream: NodeJS.ReadableStream): Promise<string> => new Promise((resolve) => {
      let text = "";
      stream.on("data", (chunk: Buffer) => void (text += chunk.toString()));
      stream.on("end", () => resolve(text));
    });
    const [out, err] = await Promise.all([read(pipes.stdout.read), read(pipes.stderr.read), new Promise((resolve) => child.on("exit", resolve))]);
    expect({ out, err }).toEqual({ out: "out\n", err: "err\n" });
  });

  it("gives none, and keeps no descriptor open, where the temp folder is not there", () => {
    process.env["TMPDIR"] = join(ownTmp(), "missing");
    const before = openFds();
    expect(agentPipes()).toBeUndefined();
    expect(openFds()).toBe(before);
  });
});
