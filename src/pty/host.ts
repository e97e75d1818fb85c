import { closeSync, constants, openSync, readSync, writeSync } from "node:fs";
import type { IPty } from "@lydell/node-pty";
import { endInputOnceRead } from "./input-end.js";
import { ptyModule } from "./native.js";
import { signalGroup } from "./signals.js";
import { readIntoSlabs } from "./slab-reads.js";

export interface ExitStatus {
  readonly exitCode: number;
  /** The signal number that killed the agent, 0 when it exited by itself. */
  readonly signal: number;
}

/** Which of the agent's outputs a chunk came from: a PTY has one, pipes keep stderr apart. */
export type OutputStream = "stdout" | "stderr";

/**
 * A running agent, in a PTY (spawnAgent) or on pipes (pipes.ts): the one interface the session
 * loop drives, whichever ran it.
 */
export interface AgentPty {
  readonly pid: number;
  write(data: Buffer | string): void;
  resize(cols: number, rows: number): void;
  /** Sends `signal` to the agent's whole process group, as a terminal would. */
  signal(signal: NodeJS.Signals): void;
  onData(listener: (chunk: Buffer, stream: OutputStream) => void): void;
  /**
   * Our input ended (a pipe or file, not a terminal): end-of-file, as a user at a terminal gives
   * it, once the agent reads (input-end.ts). `lineOpen`: the last byte sent did not end a line.
   */
  endInput?(lineOpen: boolean): void;
  pause(): void;
  resume(): void;
  readonly exited: Promise<ExitStatus>;
}

export interface SpawnOptions {
  readonly cols: number;
  readonly rows: number;
  readonly cwd: string;
  readonly env: NodeJS.ProcessEnv;
}

/** Starts `argv` in a new PTY, raw bytes both ways. */
export function spawnAgent(argv: readonly string[], options: SpawnOptions): AgentPty {
  const [file, ...args] = argv;
  if (file === undefined) throw new Error("spawnAgent needs a command");
  const child = ptyModule().spawn(file, args, {
    cols: options.cols,
    rows: options.rows,
    cwd: options.cwd,
    // A copy: given process.env itself, node-pty deletes TMUX, STY, COLUMNS and others.
    env: { ...options.env },
    // Only name the terminal when the parent had one; otherwise node-pty's default applies.
    ...(options.env["TERM"] !== undefined ? { name: options.env["TERM"] } : {}),
    encoding: null,
  });
  // node-pty keeps the slave's device path in a field its typings do not declare.
  const device = (child as unknown as { _pty?: unknown })._pty;
  const release = holdSlave(device);
  const output = outputListeners(child);
  afterAgentExit(child, () => {
    drain(child, output.deliver);
    release();
  });
  const write = directWrite(child);
  let stopEnding = (): void => undefined;
  const exited = new Promise<ExitStatus>((resolve) => {
    child.onExit(({ exitCode, signal }) => {
      stopEnding();
      release();
      resolve({ exitCode, signal: signal ?? 0 });
    });
  });
  return {
    pid: child.pid,
    write,
    resize: (cols, rows) => child.resize(cols, rows),
    signal: (signal) => signalGroup(child.pid, signal),
    onData: output.add,
    endInput: (lineOpen) => {
      if (typeof device === "string") stopEnding = endInputOnceRead(child.pid, device, write, lineOpen);
    },
    pause: () => child.pause(),
    resume: () => child.resume(),
    exited,
  };
}

/**
 * Adds a listener for the agent's output. The first one starts the reads into slabs
 * (slab-reads.ts). node-pty's events stay subscribed: Node hands each read to one or the other,
 * so they deliver where this Node's sockets take no slabs, and would if a later Node ignored them.
 */
function outputListeners(terminal: IPty): { add(listener: (chunk: Buffer, stream: OutputStream) => void): void; deliver(chunk: Buffer): void } {
  const listeners: Array<(chunk: Buffer, stream: OutputStream) => void> = [];
  // A PTY has one output: stderr is on it too.
  const deliver = (chunk: Buffer): void => {
    for (const listener of listeners) listener(chunk, "stdout");
  };
  const add = (listener: (chunk: Buffer, stream: OutputStream) => void): void => {
    listeners.push(listener);
    if (listeners.length > 1) return;
    const socket = (terminal as unknown as { _socket?: unknown })._socket;
    // With `encoding: null` node-pty delivers Buffers; its typings still say string.
    terminal.onData((data) => deliver(data as unknown as Buffer));
    readIntoSlabs(socket, deliver);
  };
  return { add, deliver };
}

/**
 * Calls `then` the moment the agent has exited. node-pty reports an exit only once its socket has
 * closed, or 200 ms later (a timer for macOS sockets that never close); with the slave held open
 * (holdSlave) the socket never closes first, so every run ended 200 ms after its agent. node-pty
 * marks the exit itself in `_boundClose`, where it starts that timer: watched here, `then` can
 * read what is left and let the slave go, and the socket closes at once. Where the field is not
 * there (another node-pty), the 200 ms stay.
 */
function afterAgentExit(terminal: IPty, then: () => void): void {
  const own = Object.getOwnPropertyDescriptor(terminal, "_boundClose");
  if (own === undefined || !("value" in own) || own.value !== false) return;
  let value = false;
  Object.defineProperty(terminal, "_boundClose", {
    configurable: true,
    enumerable: own.enumerable ?? true,
    get: () => value,
    set: (next: boolean) => {
      value = next;
      if (next) then();
    },
  });
}

/**
 * Reads what the exited agent left in the PTY, up to what the kernel holds now (the master is
 * non-blocking: EAGAIN ends it). libuv has delivered every read it made before this runs (its
 * callbacks run as it reads), so the order is kept.
 */
function drain(terminal: IPty, deliver: (chunk: Buffer) => void): void {
  const fd = (terminal as unknown as { fd?: unknown }).fd;
  if (typeof fd !== "number") return;
  const buffer = Buffer.allocUnsafe(64 * 1024);
  for (;;) {
    let bytes: number;
    try {
      bytes = readSync(fd, buffer, 0, buffer.length, null);
    } catch {
      return;
    }
    if (bytes <= 0) return;
    deliver(Buffer.from(buffer.subarray(0, bytes)));
  }
}

/**
 * Input straight into the PTY with one write(2), when nothing is waiting before it. node-pty's
 * own write goes through libuv's thread pool (fs.write), a round trip between threads on every
 * keystroke: the largest part of the latency sessionpin added to typing. What the kernel does
 * not take at once (a large paste on a full PTY, EAGAIN) goes to node-pty's queue, and so does
 * everything after it until that queue is empty, so the order is kept. Without the fields this
 * relies on (another node-pty version) every write goes through node-pty.
 */
function directWrite(terminal: IPty): (data: Buffer | string) => void {
  const fd = (terminal as unknown as { fd?: unknown }).fd;
  const queue = (terminal as unknown as { _writeStream?: { _writeQueue?: unknown } })._writeStream?._writeQueue;
  if (typeof fd !== "number" || !Array.isArray(queue)) return (data) => terminal.write(data);
  return (data) => {
    const bytes = typeof data === "string" ? Buffer.from(data, "utf8") : data;
    let written = 0;
    if (queue.length === 0) {
      try {
        written = writeSync(fd, bytes);
      } catch {
        // EAGAIN, or an agent gone (EIO): node-pty's queue waits for room, or reports as before.
      }
    }
    if (written < bytes.length) terminal.write(bytes.subarray(written));
  };
}

/** The shell convention: the agent's own code, or 128+N when signal N killed it. */
export function exitCodeOf(status: ExitStatus): number {
  return status.signal > 0 ? 128 + status.signal : status.exitCode;
}

/**
 * Keeps our own handle on the PTY's slave side until the agent's exit has been reported. On
 * Linux, when the last slave handle closes, the master can hang up before the kernel handed it
 * everything the agent wrote, and node-pty drops the tail of the output (microsoft/node-pty#72,
 * #726: an agent that prints more than 4 KB and exits at once). With the slave held open the
 * master keeps delivering until it is drained. O_NOCTTY: it must not become our terminal.
 * Returns the release.
 */
function holdSlave(device: unknown): () => void {
  if (typeof device !== "string") return () => undefined;
  let fd: number | undefined;
  try {
    fd = openSync(device, constants.O_RDWR | constants.O_NOCTTY);
  } catch {
    return () => undefined;
  }
  return () => {
    if (fd !== undefined) closeSync(fd);
    fd = undefined;
  };
}
