import { StringDecoder } from "node:string_decoder";
import type { Logger } from "../log/logger.js";
import { LineFile } from "./line-file.js";

/**
 * An asciicast v2 recording (docs.asciinema.org/manual/asciicast/v2): a JSON header line, then one
 * `[seconds, "o"|"i"|"r", data]` line per event, each written whole at once (see LineFile), so a
 * run killed at any moment leaves a valid prefix and nothing is held in memory.
 */
export interface CastHeader {
  readonly width: number;
  readonly height: number;
  readonly command: string;
  readonly env: Readonly<Record<string, string>>;
}

export class CastRecorder {
  readonly #started: number;
  // Events must be valid JSON strings: a UTF-8 character split between two reads waits for its rest.
  readonly #decoders = { o: new StringDecoder("utf8"), i: new StringDecoder("utf8") };

  private constructor(
    private readonly file: LineFile,
    private readonly now: () => number,
    /** Typed input is recorded only when asked: it can hold secrets. */
    readonly withInput: boolean,
  ) {
    this.#started = now();
  }

  /** Opens `path`; undefined (and logged) when it cannot. */
  static open(
    path: string,
    header: CastHeader,
    options: { readonly log: Logger; readonly withInput: boolean; readonly now?: () => number },
  ): CastRecorder | undefined {
    const { log, withInput, now = Date.now } = options;
    const file = LineFile.open(path, log, { version: 2, ...header, timestamp: Math.floor(now() / 1000) });
    if (file === undefined) return undefined;
    if (withInput) log.warn(`recording typed input to ${path}: anything typed, secrets included, is in that file`);
    return new CastRecorder(file, now, withInput);
  }

  output(chunk: Buffer): void {
    this.#event("o", chunk);
  }

  input(chunk: Buffer): void {
    if (this.withInput) this.#event("i", chunk);
  }

  resize(cols: number, rows: number): void {
    this.file.write([this.#seconds(), "r", `${cols}x${rows}`]);
  }

  close(): void {
    this.file.close();
  }

  #event(kind: "o" | "i", chunk: Buffer): void {
    const text = this.#decoders[kind].write(chunk);
    if (text !== "") this.file.write([this.#seconds(), kind, text]);
  }

  #seconds(): number {
    return Math.round(this.now() - this.#started) / 1000;
  }
}
