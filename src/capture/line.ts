/** One line of agent output after the capture stages, as plugin rules see it. */
export interface Line {
  /** 1-based, counting every line break in the output (chunk-independent). */
  readonly n: number;
  /** ANSI stripped, control characters removed. */
  readonly text: string;
  /** Present when the whole line is one JSON object. */
  readonly json?: Readonly<Record<string, unknown>>;
}
