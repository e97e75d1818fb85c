import { spawn } from "node:child_process";
import { closeSync } from "node:fs";
import { constants } from "node:os";
import type { Readable } from "node:stream";
import { SessionpinError } from "../errors.js";
import { agentPipes } from "./fifo.js";
import type { AgentPty, ExitStatus, OutputStream, SpawnOptions } from "./host.js";
import { signalGroup } from "./signals.js";
import type { OuterSide } from "./terminal.js";

/**
 * The agent on pipes, for a run whose output goes to no terminal (a CI job, a bridge, `| jq`): as
 * the agent would run in that pipe without sessionpin. Its stdout and stderr come apart, byte for
 * byte; its stdin is sessionpin's own (inherited: read by the agent, never by sessionpin), or
 * nothing when sessionpin took it as the run's message. It leads a process group of its own, as a
 * PTY's session leader does, so that a signal reaches what it started, and once: a ^C at a
 * terminal goes to sessionpin's group only, and is passed on.
 */
export function spawnPiped(argv: readonly string[], options: SpawnOptions & { readonly stdin: "inherit" | "ignore"; readonly outer: PipedOuter }): AgentPty {
  const [file, ...args] = argv;
  if (file === undefined) throw new Error("spawnPiped needs a command");
  const pipes = agentPipes();
  const ends = pipes === undefined ? [] : [pipes.stdout, pipes.stderr];
  let child;
  try {
    child = spawn(file, args, { cwd: options.cwd, env: { ...options.env }, stdio: [options.stdin, pipes?.stdout.write ?? "pipe", pipes?.stderr.write ?? "pipe"], detached: true });
  } catch (error) {
    for (const pipe of ends) pipe.read.destroy();
    throw error;
  } finally {
    // The agent holds the write ends now: ours would keep its pipes open after it exited.
    for (const pipe of ends) closeSync(pipe.write);
  }
  const streams: Readonly<Record<OutputStream, Readable>> = pipes === undefined
    ? { stdout: child.stdout as Readable, stderr: child.stderr as Readable }
    : { stdout: pipes.stdout.read, stderr: pipes.stderr.read };
  const listeners: Array<(chunk: Buffer, stream: OutputStream) => void> = [];
  const deliver = (stream: OutputStream) => (chunk: Buffer): void => {
    for (const listener of listeners) listener(chunk, stream);
  };
  streams.stdout.on("data", deliver("stdout"));
  streams.stderr.on("data", deliver("stderr"));
  // Our reader went away (`… | head -1`): so does the agent's, as if it wrote into that pipe
  // itself. Its next write fails (SIGPIPE, or EPIPE where it ignores that) and it ends as it
  // would there, instead of writing for ever into nowhere (`yes`).
  options.outer.onReaderGone((stream) => streams[stream].destroy());
  const closed = Promise.all(Object.values(streams).map((stream) => new Promise<void>((resolve) => {
    if (stream.destroyed) resolve();
    else stream.once("close", () => resolve());
  })));
  const exited = new Promise<ExitStatus>((resolve) => {
    let status: ExitStatus | undefined;
    const done = (): void => resolve(status ?? { exitCode: 1, signal: 0 });
    child.once("error", (error: NodeJS.ErrnoException) => {
      status = { exitCode: error.code === "ENOENT" ? 127 : 126, signal: 0 };
      for (const stream of Object.values(streams)) stream.destroy();
      done();
    });
    child.once("exit", (code, signal) => {
      status = { exitCode: code ?? 0, signal: signal === null ? 0 : (constants.signals[signal] ?? 0) };
      // The pipes close once the last writer does: a child the agent left running may hold them
      // for ever. Whatever came before the agent's exit is read; after a moment, they are let go.
      const late = setTimeout(() => {
        for (const stream of Object.values(streams)) stream.destroy();
      }, STRAGGLER_MS);
      void closed.then(() => {
        clearTimeout(late);
        done();
      });
    });
  });
  return {
    // A failed spawn has no pid: its 127 or 126 comes through `exited`.
    pid: child.pid ?? 0,
    write: () => undefined,
    resize: () => undefined,
    signal: (signal) => {
      if (child.pid !== undefined) signalGroup(child.pid, signal);
    },
    onData: (listener) => void listeners.push(listener),
    pause: () => {
      streams.stdout.pause();
      streams.stderr.pause();
    },
    resume: () => {
      streams.stdout.resume();
      streams.stderr.resume();
    },
    exited,
  };
}

/** How long the pipes may stay open after the agent exited, held by a child it left running. */
const STRAGGLER_MS = 200;

/**
 * sessionpin's own side of a run on pipes: the agent's stdout to sessionpin's stdout and its
 * stderr to sessionpin's stderr, each as it came; no size (nothing wraps), no input to pass on
 * (the agent has sessionpin's stdin itself), nothing to resize.
 */
export class PipedOuter implements OuterSide {
  readonly isTTY = false;
  readonly streamsApart = true;
  readonly #gone = new Set<OutputStream>();
  readonly #drainListeners: Array<() => void> = [];
  readonly #goneListeners: Array<(stream: OutputStream) => void> = [];

  constructor(private readonly streams: Readonly<Record<OutputStream, NodeJS.WritableStream>> = { stdout: process.stdout, stderr: process.stderr }) {}

  open(): void {
    // A reader that went away (`… | head -1`) must not crash sessionpin, nor leave the agent
    // paused for a drain that never comes: output to it goes nowhere from then on, and the
    // agent's own pipe is closed the same way (spawnPiped).
    // A pipe's reader gone is EPIPE; a socket's (a bridge that spawned sessionpin) may be a
    // plain close, after which writes fail with no error event at all.
    for (const stream of ["stdout", "stderr"] as const) {
      const gone = (): void => {
        if (this.#gone.has(stream)) return;
        this.#gone.add(stream);
        for (const listener of this.#goneListeners) listener(stream);
        for (const listener of this.#drainListeners) listener();
      };
      this.streams[stream].on("error", gone);
      this.streams[stream].on("close", gone);
    }
  }

  /** `listener` hears of each stream whose reader went away, once: at once for one already gone (a second attempt's agent). */
  onReaderGone(listener: (stream: OutputStream) => void): void {
    this.#goneListeners.push(listener);
    for (const stream of this.#gone) listener(stream);
  }

  size(): { cols: number; rows: number } {
    return { cols: 0, rows: 0 };
  }

  attach(): void {}

  detach(): void {}

  write(chunk: Buffer, stream: OutputStream = "stdout"): boolean {
    return this.#gone.has(stream) || this.streams[stream].write(chunk);
  }

  onResize(): void {}

  onDrain(listener: () => void): void {
    this.#drainListeners.push(listener);
    this.streams.stdout.on("drain", listener);
    this.streams.stderr.on("drain", listener);
  }

  flush(): Promise<void> {
    const written = (["stdout", "stderr"] as const)
      .filter((stream) => !this.#gone.has(stream))
      .map((stream) => new Promise<void>((resolve) => this.streams[stream].write("", () => resolve())));
    return Promise.all(written).then(() => undefined);
  }

  close(): void {}
}

/**
 * Where the agent runs: on pipes when sessionpin's stdout is no terminal (a CI job, a bridge,
 * `| jq`), as the agent would write into that pipe itself; in a PTY otherwise (a person's terminal,
 * agentapi's). `--pty` / `--no-pty` (SESSIONPIN_PTY=1/0) choose either.
 */
export function chooseTransport(pty: boolean | undefined, noPty: boolean | undefined, stdoutIsTerminal: boolean): "pty" | "pipes" {
  if (pty === true && noPty === true) throw new SessionpinError("usage", "sessionpin: give --pty or --no-pty, not both");
  if (pty !== undefined) return pty ? "pty" : "pipes";
  if (noPty === true) return "pipes";
  return stdoutIsTerminal ? "pty" : "pipes";
}
