import { closeSync, constants, mkdirSync, openSync, writeSync } from "node:fs";
import { dirname } from "node:path";
import { StringDecoder } from "node:string_decoder";
import type { Logger } from "../log/logger.js";

/**
 * An asciicast v2 recording (docs.asciinema.org/manual/asciicast/v2): a JSON header line, then one
 * `[seconds, "o"|"i"|"r", data]` line per event. Each event is one synchronous write of a whole
 * line, so a run killed at any moment leaves a valid prefix, and nothing is held in memory.
 * A failed write (disk full) ends the recording, is logged, and never touches the agent.
 */
export interface CastHeader {
  readonly width: number;
  readonly height: number;
  readonly command: string;
  readonly env: Readonly<Record<string, string>>;
}

export class CastRecorder {
  #fd: number | undefined;
  readonly #started: number;
  // Events must be valid JSON strings: a UTF-8 character split between two reads waits for its rest.
  readonly #decoders = { o: new StringDecoder("utf8"), i: new StringDecoder("utf8") };

  private constructor(
    fd: number,
    private readonly path: string,
    private readonly log: Logger,
    private readonly now: () => number,
    /** Typed input is recorded only when asked: it can hold secrets. */
    readonly withInput: boolean,
  ) {
    this.#fd = fd;
    this.#started = now();
  }

  /** Opens `path` (0600 in a 0700 folder, never through a symlink); undefined when it cannot. */
  static open(
    path: string,
    header: CastHeader,
    options: { readonly log: Logger; readonly withInput: boolean; readonly now?: () => number },
  ): CastRecorder | undefined {
    const { log, withInput, now = Date.now } = options;
    try {
      mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
      const fd = openSync(path, constants.O_WRONLY | constants.O_CREAT | constants.O_TRUNC | constants.O_NOFOLLOW, 0o600);
      const recorder = new CastRecorder(fd, path, log, now, withInput);
      if (withInput) log.warn(`recording typed input to ${path}: anything typed, secrets included, is in that file`);
      recorder.#line({ version: 2, ...header, timestamp: Math.floor(now() / 1000) });
      return recorder;
    } catch (error) {
      log.warn(`not recording to ${path}: ${String(error)}`);
      return undefined;
    }
  }

  output(chunk: Buffer): void {
    this.#event("o", chunk);
  }

  input(chunk: Buffer): void {
    if (this.withInput) this.#event("i", chunk);
  }

  resize(cols: number, rows: number): void {
    this.#line([this.#seconds(), "r", `${cols}x${rows}`]);
  }

  close(): void {
    if (this.#fd === undefined) return;
    closeSync(this.#fd);
    this.#fd = undefined;
  }

  #event(kind: "o" | "i", chunk: Buffer): void {
    const text = this.#decoders[kind].write(chunk);
    if (text !== "") this.#line([this.#seconds(), kind, text]);
  }

  #seconds(): number {
    return Math.round(this.now() - this.#started) / 1000;
  }

  #line(value: unknown): void {
    if (this.#fd === undefined) return;
    try {
      writeSync(this.#fd, `${JSON.stringify(value)}\n`);
    } catch (error) {
      this.log.warn(`recording to ${this.path} stopped: ${String(error)}`);
      try {
        closeSync(this.#fd);
      } catch {
        // Already unusable; the agent goes on regardless.
      }
      this.#fd = undefined;
    }
  }
}
