import { cleanText } from "./clean.js";
import { parseJsonObject } from "./json.js";
import type { Line } from "./line.js";
import { decodeLine, LineSplitter, type RawLine } from "./lines.js";

/**
 * Whether a line is worth decoding, asked with its raw bytes (a latin1 string) just before it is
 * delivered, so the answer may depend on what the lines before it changed.
 */
export type LineFilter = (bytes: string) => boolean;

// Bytes that are all printable ASCII (most lines) are their own text: nothing to decode or clean.
const PLAIN_ASCII = /^[\t\x20-\x7e]*$/;

export interface CaptureOptions {
  readonly maxLineBytes?: number;
  /** Lines it turns down are counted but not delivered; cut lines are always delivered. */
  readonly wanted?: LineFilter;
}

/**
 * The whole capture pipeline: raw output bytes in any chunking → `Line`s (blank lines are counted
 * but not delivered). Synchronous and pure, so `run` and `replay` share it and each line can be
 * tied to the chunk (and the recording time) that completed it.
 */
export class Capture {
  readonly #splitter: LineSplitter;
  readonly #wanted: LineFilter | undefined;

  constructor(options: CaptureOptions = {}) {
    this.#splitter = new LineSplitter(options.maxLineBytes);
    this.#wanted = options.wanted;
  }

  push(chunk: Uint8Array | string, onLine: (line: Line) => void): void {
    this.#deliver(this.#splitter.push(chunk), onLine);
  }

  end(onLine: (line: Line) => void): void {
    this.#deliver(this.#splitter.end(), onLine);
  }

  #deliver(raw: readonly RawLine[], onLine: (line: Line) => void): void {
    for (const line of raw) {
      if (line.cut === undefined && this.#wanted !== undefined && !this.#wanted(line.bytes)) continue;
      const text = PLAIN_ASCII.test(line.bytes) ? line.bytes.trimEnd() : cleanText(decodeLine(line.bytes));
      if (text === "") continue;
      const json = line.cut ? undefined : parseJsonObject(text);
      onLine({ n: line.n, text, offset: line.offset, ...(line.cut ? { cut: true } : {}), ...(json === undefined ? {} : { json }) });
    }
  }
}

/** Every line of a complete output. */
export function captureAll(chunks: Iterable<Uint8Array | string>, maxLineBytes?: number): Line[] {
  const capture = new Capture(maxLineBytes === undefined ? {} : { maxLineBytes });
  const lines: Line[] = [];
  const keep = (line: Line): void => void lines.push(line);
  for (const chunk of chunks) capture.push(chunk, keep);
  capture.end(keep);
  return lines;
}
