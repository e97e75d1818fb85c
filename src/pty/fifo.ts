import { spawnSync } from "node:child_process";
import { closeSync, constants, mkdtempSync, openSync, rmSync } from "node:fs";
import { Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { OutputStream } from "./host.js";

/** One real pipe: the end the agent writes to, and the end sessionpin reads as a stream. */
export interface Pipe {
  readonly write: number;
  readonly read: Socket;
}

/**
 * Real pipes for the agent's stdout and stderr, as a shell gives them. Node's "pipe" stdio is a
 * socket pair (nodejs/node#21941): an agent on one cannot open /dev/stdout or /dev/stderr (ENXIO:
 * `echo x > /dev/stderr` in its scripts fails), and a reader that went away gives its writes
 * ECONNRESET instead of SIGPIPE. Node has no pipe(2), so each is a FIFO made in a private folder,
 * opened at both ends and unlinked at once. Undefined where FIFOs cannot be made (no `mkfifo`, a
 * temp folder that refuses them): the caller falls back to Node's sockets.
 */
export function agentPipes(): Readonly<Record<OutputStream, Pipe>> | undefined {
  let dir: string;
  try {
    dir = mkdtempSync(join(tmpdir(), "sessionpin-pipes-"));
  } catch {
    return undefined;
  }
  const opened: number[] = [];
  try {
    const paths = { stdout: join(dir, "stdout"), stderr: join(dir, "stderr") };
    const made = spawnSync("mkfifo", ["-m", "600", paths.stdout, paths.stderr], { stdio: "ignore", timeout: MKFIFO_MS });
    if (made.status !== 0) return undefined;
    const open = (path: string, flags: number): number => {
      const fd = openSync(path, flags);
      opened.push(fd);
      return fd;
    };
    // The read end first, without waiting for a writer; then the write end, which a reader lets
    // open at once, blocking as a shell's pipe is for the agent that inherits it.
    const pipe = (path: string): { read: number; write: number } => ({ read: open(path, constants.O_RDONLY | constants.O_NONBLOCK), write: open(path, constants.O_WRONLY) });
    const ends = { stdout: pipe(paths.stdout), stderr: pipe(paths.stderr) };
    const stream = ({ read, write }: { read: number; write: number }): Pipe => ({ write, read: new Socket({ fd: read, readable: true, writable: false }) });
    return { stdout: stream(ends.stdout), stderr: stream(ends.stderr) };
  } catch {
    for (const fd of opened) closeSync(fd);
    return undefined;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

// mkfifo returns in milliseconds; a machine that stalls it this long gets Node's sockets instead.
const MKFIFO_MS = 5_000;
