import { spawnSync } from "node:child_process";
import { fstatSync } from "node:fs";
import type { OutputStream } from "./host.js";

/**
 * sessionpin's own side of a run, as the session loop uses it: where the agent's output goes, its
 * input comes from, and the size it gets. A terminal (OuterTerminal) or pipes (PipedOuter).
 */
export interface OuterSide {
  /** Whether sessionpin's stdin is a terminal (agentapi's PTY, a person's) rather than a pipe or file. */
  readonly isTTY: boolean;
  /** Whether the agent's stdout and stderr reach the caller apart (pipes), or as one (a PTY). */
  readonly streamsApart: boolean;
  open(): void;
  size(): { cols: number; rows: number };
  /** Input goes to `sink` from now on; its end (a pipe or file) to `onEnd`. */
  attach(sink: (chunk: Buffer) => void, onEnd?: () => void): void;
  detach(): void;
  /** Writes agent output; false when the caller should wait for `drain`. */
  write(chunk: Buffer, stream?: OutputStream): boolean;
  onResize(listener: (cols: number, rows: number) => void): void;
  onDrain(listener: () => void): void;
  /** Waits until everything written has been handed to the OS. */
  flush(): Promise<void>;
  close(): void;
}

/**
 * The outer terminal sessionpin runs in (agentapi's PTY, or a person's): its size, raw mode,
 * input and output. Input is read from the start and held until an agent is attached, because
 * agentapi writes to the PTY (`" \b"`, cursor-position replies) before any agent is up.
 */
export class OuterTerminal implements OuterSide {
  readonly streamsApart = false;
  #sink: ((chunk: Buffer) => void) | undefined;
  /** The output side failed (its reader went away): output is dropped from now on. */
  #gone = false;
  readonly #drainListeners: Array<() => void> = [];
  #held: Buffer[] = [];
  #wasRaw = false;
  #ended = false;
  #onEnd: (() => void) | undefined;
  #savedOutputMode: string | undefined;

  constructor(
    private readonly stdin: NodeJS.ReadStream & { readonly fd: number } = process.stdin,
    private readonly stdout: NodeJS.WriteStream & { readonly fd: number } = process.stdout,
  ) {}

  get isTTY(): boolean {
    return this.stdin.isTTY === true;
  }

  /** The inherited window size; 80x24 when there is no terminal to ask. */
  size(): { cols: number; rows: number } {
    const cols = this.stdout.isTTY ? this.stdout.columns : 0;
    const rows = this.stdout.isTTY ? this.stdout.rows : 0;
    return cols > 0 && rows > 0 ? { cols, rows } : { cols: 80, rows: 24 };
  }

  /** Raw mode (when stdin is a terminal), no output processing, and start reading input. */
  open(): void {
    // A terminal that went away (SIGHUP, a closed agentapi) must not crash sessionpin before
    // the agent's exit code is known.
    // Nor may it stop the agent: paused for a drain that never comes, it would hang for good.
    // Its output goes nowhere from then on, and capture goes on, so the pointer stays current.
    this.stdout.on("error", () => {
      this.#gone = true;
      for (const listener of this.#drainListeners) listener();
    });
    if (this.stdin.isTTY) {
      this.#wasRaw = this.stdin.isRaw;
      this.stdin.setRawMode(true);
    }
    // The agent's own PTY already turned its "\n" into "\r\n"; libuv's raw mode keeps ONLCR on,
    // so the outer terminal would add another "\r". Output must pass through untouched. When stdin
    // is the same terminal, leaving raw mode in close() puts back the modes libuv saved before
    // this, output processing included: one `stty`, as a plain Node relay pays. Otherwise one
    // shell saves the settings first (each spawn from Node costs 2-4 ms of the agent's start).
    if (this.stdout.isTTY && this.stdin.isTTY && sameDevice(this.stdin, this.stdout)) {
      stty(this.stdout, "stty", ["-opost"]);
    } else if (this.stdout.isTTY) {
      const saved = stty(this.stdout, "/bin/sh", ["-c", "stty -g && stty -opost"]);
      // `stty -g` prints hex fields and colons; only that goes back to stty at the end.
      if (saved !== undefined && /^[0-9a-fA-F:]+$/.test(saved)) this.#savedOutputMode = saved;
    }
    this.stdin.on("data", (chunk: Buffer) => {
      if (this.#sink) this.#sink(chunk);
      else this.#held.push(chunk);
    });
    // A terminal never ends; a pipe or a file does, and the agent reading it must hear so. Read
    // to its end already (the run's message, `echo MSG | sessionpin run -- claude -p`), it has.
    if (this.stdin.readableEnded || this.stdin.destroyed) {
      this.#ended = true;
      return;
    }
    this.stdin.once("end", () => {
      this.#ended = true;
      if (this.#sink) this.#onEnd?.();
    });
    this.stdin.resume();
  }

  /**
   * Input goes to `sink` from now on, starting with whatever arrived while nobody listened; its
   * end (stdin a pipe or file) to `onEnd`.
   */
  attach(sink: (chunk: Buffer) => void, onEnd?: () => void): void {
    this.#sink = sink;
    this.#onEnd = onEnd;
    const held = this.#held;
    this.#held = [];
    for (const chunk of held) sink(chunk);
    if (this.#ended) onEnd?.();
  }

  /** Input is held again (between one agent's exit and the next one's start). */
  detach(): void {
    this.#sink = undefined;
    this.#onEnd = undefined;
  }

  /** Drops input held so far and returns its size (a piped prompt not to be sent again). */
  discardHeld(): number {
    const bytes = this.#held.reduce((sum, chunk) => sum + chunk.length, 0);
    this.#held = [];
    return bytes;
  }

  onResize(listener: (cols: number, rows: number) => void): void {
    if (!this.stdout.isTTY) return;
    this.stdout.on("resize", () => {
      const { cols, rows } = this.size();
      listener(cols, rows);
    });
  }

  /** Writes agent output (a PTY's has one stream); false when the caller should wait for `drain`. */
  write(chunk: Buffer, _stream?: OutputStream): boolean {
    return this.#gone || this.stdout.write(chunk);
  }

  onDrain(listener: () => void): void {
    this.#drainListeners.push(listener);
    this.stdout.on("drain", listener);
  }

  /** Waits until everything written has been handed to the OS. */
  flush(): Promise<void> {
    if (this.#gone) return Promise.resolve();
    return new Promise((resolve) => this.stdout.write("", () => resolve()));
  }

  close(): void {
    if (this.stdin.isTTY) this.stdin.setRawMode(this.#wasRaw);
    if (this.#savedOutputMode !== undefined) stty(this.stdout, "stty", [this.#savedOutputMode]);
    this.stdin.pause();
    this.stdin.destroy();
  }
}

/** Runs an stty command on the terminal behind `stream` (its stdin); what it printed, or undefined. */
function stty(stream: { readonly fd: number }, file: string, args: readonly string[]): string | undefined {
  const result = spawnSync(file, args, { stdio: [stream.fd, "pipe", "ignore"], encoding: "utf8" });
  const printed = result.stdout?.trim() ?? "";
  return printed === "" ? undefined : printed;
}

/** Whether two streams are the same terminal device (not two terminals, one for each). */
function sameDevice(a: { readonly fd: number }, b: { readonly fd: number }): boolean {
  try {
    return fstatSync(a.fd).rdev === fstatSync(b.fd).rdev;
  } catch {
    return false;
  }
}
