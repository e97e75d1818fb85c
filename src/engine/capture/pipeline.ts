import { cleanText } from "./clean.js";
import { parseJsonObject } from "../../json.js";
import type { Line } from "./line.js";
import { asBytes, decodeLine, LineSplitter, type RawLine } from "./lines.js";
import { mayStartWrapped, WrappedJson, type Rejoined } from "./rejoin.js";

/**
 * Whether a line is worth decoding, asked with its raw bytes (a latin1 string) just before it is
 * delivered, so the answer may depend on what the lines before it changed. `mayHaveControls`
 * false: a `ControlFinder` saw none of the bytes cleaning looks for in the line.
 */
export type LineFilter = (bytes: string, mayHaveControls: boolean) => boolean;

/**
 * Finds, in a chunk of at most `maxBytes`, the offsets of every byte that could make a line need
 * cleaning (controls but tab and LF, DEL, 0xc2), in order: src/replay/fast/control-scan.ts does it
 * 16 bytes at a time in WebAssembly. The result may be a view that the next call overwrites.
 */
export interface ControlFinder {
  readonly maxBytes: number;
  scan(chunk: Uint8Array): ArrayLike<number>;
}

const OPEN_BRACE = 0x7b;

// Bytes that are all printable ASCII (most lines) are their own text: nothing to decode or clean.
const PLAIN_ASCII = /^[\t\x20-\x7e]*$/;

export interface CaptureOptions {
  readonly maxLineBytes?: number;
  /** Lines it turns down are counted but not delivered; cut lines are always delivered. */
  readonly wanted?: LineFilter;
  /** The screen's width, when known: rows of a wrapped JSON line are joined even if each lost its trailing spaces. */
  readonly width?: number;
  /**
   * Scans each chunk for control bytes before it is split, so `wanted` learns which lines have
   * none: on JSON lines the regex that asks it was the largest part of `run`'s capture.
   */
  readonly controls?: ControlFinder;
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

  readonly #controls: ControlFinder | undefined;
  /** Bytes pushed so far: the stream offset of the next chunk. */
  #pushed = 0;
  /** The offset of the last control byte found before the lines being delivered; -1 before any. */
  #lastControl = -1;
  #pieceControls: ArrayLike<number> = [];
  #pieceAt = 0;
  #nextControl = 0;

  constructor(options: CaptureOptions = {}) {
    this.#splitter = new LineSplitter(options.maxLineBytes);
    this.#wanted = options.wanted;
    this.#wrapped = new WrappedJson(options.width);
    this.#controls = options.wanted === undefined ? undefined : options.controls;
  }

  push(chunk: Uint8Array | string, onLine: (line: Line) => void): void {
    const controls = this.#controls;
    if (controls === undefined) {
      this.#deliver(this.#splitter.push(chunk), onLine);
      return;
    }
    if (typeof chunk === "string") {
      // Not scanned: every line that has a byte of it may have controls.
      const bytes = asBytes(chunk);
      this.#pieceControls = [];
      this.#lastControl = this.#pushed + bytes.length - 1;
      this.#pushed += bytes.length;
      this.#deliver(this.#splitter.push(bytes), onLine);
      return;
    }
    for (let at = 0; at < chunk.length; at += controls.maxBytes) {
      const piece = chunk.subarray(at, at + controls.maxBytes);
      this.#pieceControls = controls.scan(piece);
      this.#pieceAt = this.#pushed;
      this.#nextControl = 0;
      this.#deliver(this.#splitter.push(piece), onLine);
      this.#pushed += piece.length;
      // The line still open may have control bytes of this piece.
      const last = this.#pieceControls.length === 0 ? undefined : this.#pieceControls[this.#pieceControls.length - 1];
      if (last !== undefined) this.#lastControl = this.#pieceAt + last;
    }
  }

  end(onLine: (line: Line) => void): void {
    this.#deliver(this.#splitter.end(), onLine);
    this.#each(this.#wrapped.flush(), onLine);
  }

  /**
   * Whether a control byte may lie in [from, to): lines come in order, so the last control byte
   * before `to` tells (as in src/replay/fast/blocks.ts). Always true without a ControlFinder.
   */
  #mayHaveControls(from: number, to: number): boolean {
    if (this.#controls === undefined) return true;
    const found = this.#pieceControls;
    for (; this.#nextControl < found.length; this.#nextControl++) {
      const at = this.#pieceAt + (found[this.#nextControl] ?? 0);
      if (at >= to) break;
      this.#lastControl = at;
    }
    return this.#lastControl >= from;
  }

  #deliver(raw: readonly RawLine[], onLine: (line: Line) => void): void {
    const wrapped = this.#wrapped;
    for (const line of raw) {
      // Rows are held only after one that starts like a wrapped object: other lines cost one check.
      if (wrapped.holding || (line.bytes.charCodeAt(0) === OPEN_BRACE && mayStartWrapped(line.bytes))) {
        this.#each(wrapped.offer(line), onLine);
        continue;
      }
      if (line.cut === undefined && this.#wanted !== undefined &&
        !this.#wanted(line.bytes, this.#mayHaveControls(line.offset, line.offset + line.bytes.length))) continue;
      this.#one(line, onLine);
    }
  }

  #each(lines: readonly Rejoined[], onLine: (line: Line) => void): void {
    for (const item of lines) {
      if (item.kind === "row") {
        if (item.line.cut === undefined && this.#wanted !== undefined && !this.#wanted(item.line.bytes, true)) continue;
        this.#one(item.line, onLine);
        continue;
      }
      const { n, offset, bytes, text, json } = item.line;
      if (this.#wanted !== undefined && !this.#wanted(bytes, true)) continue;
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
