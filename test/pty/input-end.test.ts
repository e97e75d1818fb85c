import type { IPty } from "@lydell/node-pty";
import { afterEach, describe, expect, it } from "vitest";
import { endInputOnceRead } from "../../src/pty/input-end.js";
import { ptyModule } from "../../src/pty/native.js";

interface Running {
  readonly pty: IPty;
  readonly device: string;
  readonly output: () => string;
  readonly exited: Promise<number>;
}

const started: IPty[] = [];
afterEach(() => {
  for (const pty of started.splice(0)) {
    try {
      pty.kill("SIGKILL");
    } catch {
      // Already gone.
    }
  }
});

/** `sh -c script` in a real PTY; its slave's device read as host.ts reads it. */
function inPty(script: string): Running {
  const pty = ptyModule().spawn("sh", ["-c", script], { cols: 80, rows: 24, cwd: process.cwd(), env: { PATH: process.env["PATH"] ?? "" }, encoding: null });
  started.push(pty);
  let out = "";
  pty.onData((chunk: Buffer | string) => void (out += chunk.toString()));
  const exited = new Promise<number>((resolve) => pty.onExit(({ exitCode }) => resolve(exitCode)));
  return { pty, device: (pty as unknown as { _pty: string })._pty, output: () => out, exited };
}

async function until(check: () => boolean, what: string, ms = 10_000): Promise<void> {
  for (const end = Date.now() + ms; !check();) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

const within = <T>(promise: Promise<T>, ms: number): Promise<T | "still running"> =>
  Promise.race([promise, new Promise<"still running">((resolve) => setTimeout(() => resolve("still running"), ms).unref())]);

describe("endInputOnceRead", () => {
  it("gives each line reader that waits on the terminal one end-of-file, as ^D typed at it would", async () => {
    const run = inPty("echo ready; cat; echo cat-done; wc -c; echo wc-done");
    await until(() => run.output().includes("ready"), "ready");
    const cancel = endInputOnceRead(run.pty.pid, run.device, (data) => run.pty.write(data.toString("latin1")), false);
    try {
      expect(await within(run.exited, 10_000)).toBe(0);
    } finally {
      cancel();
    }
    expect(run.output()).toMatch(/cat-done\r\n\s*0\r\nwc-done/);
  }, 20_000);

  it("ends a line in progress first, so the reader gets its text and then the end", async () => {
    const run = inPty("echo ready; od -An -c; echo od-done");
    await until(() => run.output().includes("ready"), "ready");
    run.pty.write("half");
    const cancel = endInputOnceRead(run.pty.pid, run.device, (data) => run.pty.write(data.toString("latin1")), true);
    try {
      expect(await within(run.exited, 10_000)).toBe(0);
    } finally {
      cancel();
    }
    expect(run.output()).toMatch(/h\s+a\s+l\s+f\s*\r\nod-done/);
  }, 20_000);

  it("sends nothing to a reader in raw mode, where ^D would be a key", async () => {
    const run = inPty("stty raw -echo; echo ready; head -c 1 | od -An -c; echo got-a-key");
    await until(() => run.output().includes("ready"), "ready");
    const sent: Buffer[] = [];
    const cancel = endInputOnceRead(run.pty.pid, run.device, (data) => {
      sent.push(data);
      run.pty.write(data.toString("latin1"));
    }, false);
    try {
      expect(await within(run.exited, 2_500)).toBe("still running");
    } finally {
      cancel();
    }
    expect(sent).toEqual([]);
    expect(run.output()).not.toContain("got-a-key");
  }, 20_000);

  it("sends nothing once cancelled", async () => {
    const run = inPty("echo ready; cat; echo cat-done");
    await until(() => run.output().includes("ready"), "ready");
    const sent: Buffer[] = [];
    endInputOnceRead(run.pty.pid, run.device, (data) => void sent.push(data), false)();
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect(sent).toEqual([]);
    expect(run.output()).not.toContain("cat-done");
  }, 20_000);
});
