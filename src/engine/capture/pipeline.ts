import { cleanText } from "./clean.js";
import { parseJsonObject } from "../../json.js";
import type { Line } from "./line.js";
import { decodeLine, LineSplitter, type RawLine } from "./lines.js";
import { mayStartWrapped, WrappedJson, type Rejoined } from "./rejoin.js";

/**
 * Whether a line is worth decoding, asked with its raw bytes (a latin1 string) just before it is
 * delivered, so the answer may depend on what the lines before it changed.
 */
export type LineFilter = (bytes: string) => boolean;

const OPEN_BRACE = 0x7b;

// Bytes that are all printable ASCII (most lines) are their own text: nothing to decode or clean.
const PLAIN_ASCII = /^[\t\x20-\x7e]*$/;

export interface CaptureOptions {
  readonly maxLineBytes?: number;
  /** Lines it turns down are counted but not delivered; cut lines are always delivered. */
  readonly wanted?: LineFilter;
  /** The screen's width, when known: rows of a wrapped JSON line are joined even if each lost its trailing spaces. */
  readonly width?: number;
}

/**
 * The whole capture pipeline: raw output bytes in any chunking → `Line`s (blank lines are counted
 * but not delivered). Synchronous and pure, so `run` and `replay` share it and each line can be
 * tied to the chunk (and the recording time) that completed it.
 */
export class Capture {
  readonly #splitter: LineSplitter;
  readonly #wanted: LineFilter | undefined;
  // JSON lines a screen snapshot wrapped into rows (agentapi's state file, tmux capture-pane).
  readonly #wrapped: WrappedJson;

  constructor(options: CaptureOptions = {}) {
    this.#splitter = new LineSplitter(options.maxLineBytes);
    this.#wanted = options.wanted;
    this.#wrapped = new WrappedJson(options.width);
  }

  push(chunk: Uint8Array | string, onLine: (line: Line) => void): void {
    this.#deliver(this.#splitter.push(chunk), onLine);
  }

  end(onLine: (line: Line) => void): void {
    this.#deliver(this.#splitter.end(), onLine);
    this.#each(this.#wrapped.flush(), onLine);
  }

  #deliver(raw: readonly RawLine[], onLine: (line: Line) => void): void {
    const wrapped = this.#wrapped;
    for (const line of raw) {
      // Rows are held only after one that starts like a wrapped object: other lines cost one check.
      if (wrapped.holding || (line.bytes.charCodeAt(0) === OPEN_BRACE && mayStartWrapped(line.bytes))) {
        this.#each(wrapped.offer(line), onLine);
        continue;
      }
      if (line.cut === undefined && this.#wanted !== undefined && !this.#wanted(line.bytes)) continue;
      this.#one(line, onLine);
    }
  }

  #each(lines: readonly Rejoined[], onLine: (line: Line) => void): void {
    for (const item of lines) {
      if (item.kind === "row") {
        if (item.line.cut === undefined && this.#wanted !== undefined && !this.#wanted(item.line.bytes)) continue;
        this.#one(item.line, onLine);
        continue;
      }
      const { n, offset, bytes, text, json } = item.line;
      if (this.#wanted !== undefined && !this.#wanted(bytes)) continue;
      onLine({ n, text, offset, json });
    }
  }

  /** A line the filter let through: decoded, cleaned, parsed. */
  #one(line: RawLine, onLine: (line: Line) => void): void {
    const text = PLAIN_ASCII.test(line.bytes) ? line.bytes.trimEnd() : cleanText(decodeLine(line.bytes));
    if (text === "") return;
    const json = line.cut ? undefined : parseJsonObject(text);
    onLine({ n: line.n, text, offset: line.offset, ...(line.cut ? { cut: true } : {}), ...(json === undefined ? {} : { json }) });
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
