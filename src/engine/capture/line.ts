/** One line of agent output after the capture stages, as plugin rules see it. */
export interface Line {
  /** 1-based, counting every line break in the output (chunk-independent). */
  readonly n: number;
  /** ANSI stripped, control characters removed. */
  readonly text: string;
  /** Byte offset of the line's start in the agent's output. */
  readonly offset?: number;
  /** The line was longer than the capture's limit and was cut to it (never parsed as JSON). */
  readonly cut?: true;
  /** Present when the whole line is one JSON object. */
  readonly json?: Readonly<Record<string, unknown>>;
}
