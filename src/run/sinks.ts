import type { OutputStream } from "../pty/host.js";

/**
 * Where the agent's output goes, each consumer behind one interface (as asciinema's outputs):
 * the screen first, then the recorder, the capture and the prompt's quiet trigger. A new
 * consumer is a new sink, not an edit of the PTY callback.
 */
export interface OutputSink {
  /** One chunk, in order, and which of the agent's outputs it came from; must not throw. */
  output(chunk: Buffer, stream: OutputStream): void;
  /** The agent exited: flush what is held. */
  end?(): void;
}

/** Delivers every chunk to each sink in turn; `end` once the agent exited. */
export class Sinks {
  constructor(private readonly sinks: readonly OutputSink[]) {}

  output(chunk: Buffer, stream: OutputStream): void {
    for (const sink of this.sinks) sink.output(chunk, stream);
  }

  end(): void {
    for (const sink of this.sinks) sink.end?.();
  }
}

/** What a warm one-shot run may print before its ID can be called accepted: then it goes out. */
const HOLD_LIMIT = 1 << 20;

/**
 * A warm one-shot run's stdout, held while its output can still reject the stored ID: a bridge or
 * a CI job reading stdout must never get a refused attempt's output and then a new session's.
 * `release("stdout")` once the agent shows the session (or the fallback window, or HOLD_LIMIT,
 * passes); `release("stderr")` when the ID was rejected: that output is about sessionpin's
 * attempt, not the answer. stderr is never held.
 */
export class HeldStdout implements OutputSink {
  #held: Buffer[] | undefined = [];
  #bytes = 0;

  constructor(private readonly write: (chunk: Buffer, stream: OutputStream) => void) {}

  output(chunk: Buffer, stream: OutputStream): void {
    if (stream !== "stdout" || this.#held === undefined) {
      this.write(chunk, stream);
      return;
    }
    this.#held.push(chunk);
    this.#bytes += chunk.length;
    if (this.#bytes > HOLD_LIMIT) this.release("stdout");
  }

  /** Writes what is held to `to`, then passes everything on; later calls do nothing. */
  release(to: OutputStream): void {
    const held = this.#held;
    this.#held = undefined;
    for (const chunk of held ?? []) this.write(chunk, to);
  }
}
