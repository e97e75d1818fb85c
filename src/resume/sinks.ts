/**
 * Where the agent's output goes, each consumer behind one interface (as asciinema's outputs):
 * the screen first, then the recorder, the capture and the prompt's quiet trigger. A new
 * consumer is a new sink, not an edit of the PTY callback.
 */
export interface OutputSink {
  /** One chunk, in order; must not throw. */
  output(chunk: Buffer): void;
  /** The agent exited: flush what is held. */
  end?(): void;
}

/** Delivers every chunk to each sink in turn; `end` once the agent exited. */
export class Sinks {
  constructor(private readonly sinks: readonly OutputSink[]) {}

  output(chunk: Buffer): void {
    for (const sink of this.sinks) sink.output(chunk);
  }

  end(): void {
    for (const sink of this.sinks) sink.end?.();
  }
}
