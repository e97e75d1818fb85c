/**
 * The agent on pipes (spawnPiped with the outer side a CI step gives it), through real processes:
 * its stdout and stderr are FIFOs as a shell's are, kept apart; a reader that goes away ends it
 * as it would end bare; where no FIFO can be made it still runs, on Node's sockets.
 */
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { PassThrough } from "node:stream";
import { describe, expect, it } from "vitest";
import type { OutputStream } from "../../src/pty/host.js";
import { PipedOuter, spawnPiped } from "../../src/pty/pipes.js";
import { ownTmpPerTest } from "../helpers/own-tmp.js";

/** A temp folder of this test's own, as TMPDIR: what sessionpin leaves in it can be counted. */
const ownTmp = ownTmpPerTest("pipes-test");

function run(script: string, outer: PipedOuter) {
  outer.open();
  const agent = spawnPiped(["sh", "-c", script], { cols: 0, rows: 0, cwd: process.cwd(), env: process.env, stdin: "ignore", outer });
  const got: Record<OutputStream, string> = { stdout: "", stderr: "" };
  agent.onData((chunk, stream) => {
    if (got[stream].length < 100) got[stream] += chunk.toString();
    // On to the outer side, as the attempt's screen sink sends it.
    outer.write(chunk, stream);
  });
  return agent.exited.then((status) => ({ status, got }));
}

/** Outer streams nobody reads: what reaches them is not the question here. */
const collecting = () => ({ stdout: new PassThrough(), stderr: new PassThrough() });

describe("spawnPiped", () => {
  it("gives the agent FIFOs for stdout and stderr, kept apart, and leaves nothing in the temp folder", async () => {
    const tmp = ownTmp();
    const { status, got } = await run("stat -L -c %F /dev/stdout /dev/stderr; echo out > /dev/stdout; echo err > /dev/stderr; exit 3", new PipedOuter(collecting()));
    expect(status).toEqual({ exitCode: 3, signal: 0 });
    expect(got).toEqual({ stdout: "fifo\nfifo\nout\n", stderr: "err\n" });
    expect(readdirSync(tmp)).toEqual([]);
  });

  it("still runs the agent, on Node's sockets, where no FIFO can be made (a temp folder that is not there)", async () => {
    process.env["TMPDIR"] = join(ownTmp(), "missing");
    const { status, got } = await run("stat -L -c %F /proc/self/fd/1; echo err >&2", new PipedOuter(collecting()));
    expect(status).toEqual({ exitCode: 0, signal: 0 });
    expect(got).toEqual({ stdout: "socket\n", stderr: "err\n" });
  });

  it("ends an agent that writes for ever by SIGPIPE once the outer stream closed, as `yes | head -c 1` ends", async () => {
    ownTmp();
    // The reader closes after its first bytes, with no error: as a socket a bridge spawned
    // sessionpin on closes (a pipe's EPIPE is the e2e test's, headless.test.ts).
    const reader = new PassThrough();
    reader.once("data", () => reader.destroy());
    const outer = new PipedOuter({ stdout: reader, stderr: new PassThrough() });
    const { status, got } = await run("exec yes", outer);
    expect(status).toEqual({ exitCode: 0, signal: 13 });
    expect(got.stdout.startsWith("y\ny\n")).toBe(true);
  }, 15_000);

  it("ends a second agent started after the reader went away (a fresh attempt after a rejection) as it ended the first", async () => {
    ownTmp();
    const reader = new PassThrough();
    reader.once("data", () => reader.destroy());
    const outer = new PipedOuter({ stdout: reader, stderr: new PassThrough() });
    expect((await run("exec yes", outer)).status).toEqual({ exitCode: 0, signal: 13 });
    expect((await run("exec yes", outer)).status).toEqual({ exitCode: 0, signal: 13 });
  }, 15_000);
});
