import { cleanText } from "./clean.js";
import { parseJsonObject } from "../../json.js";
import type { Line } from "./line.js";
import { asBytes, decodeLine, LineSplitter, type RawLine } from "./lines.js";
import { mayStartWrapped, WrappedJson, type Rejoined } from "./rejoin.js";
import { skimBreaks } from "./skim.js";

/**
 * Whether a line is worth decoding, asked with its raw bytes (a latin1 string) just before it is
 * delivered, so the answer may depend on what the lines before it changed. `mayHaveControls`
 * false: a `ControlFinder` saw none of the bytes cleaning looks for in the line.
 */
export type LineFilter = (bytes: string, mayHaveControls: boolean) => boolean;

/**
 * Finds, in a chunk of at most `maxBytes`, the offsets of every byte that could make a line need
 * cleaning (controls but tab and LF, DEL, 0xc2), in order: ./control-scan.ts does it
 * 16 bytes at a time in WebAssembly. The result may be a view that the next call overwrites.
 */
export interface ControlFinder {
  readonly maxBytes: number;
  scan(chunk: Uint8Array): ArrayLike<number>;
  /** The same, with every LF and "{" too (a view of its own: `scan`'s result stays). */
  events(chunk: Uint8Array): ArrayLike<number>;
}

/**
 * Asked of whole lines (their bytes as one latin1 string) whose shapes need no line of their own
 * (skim.ts): true when `wanted` would turn down every one of them, as things stand now.
 */
export type LinesFilter = (lines: string) => boolean;

const LF = 0x0a;

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
  /**
   * With `controls` and `wanted`: each chunk's lines but its first and last are offered whole
   * first; when it says yes they are counted and passed over, never split into lines.
   */
  readonly skim?: LinesFilter;
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
  readonly #skim: LinesFilter | undefined;
  /** Bytes pushed so far: the stream offset of the next chunk. */
  #pushed = 0;
  /** The offset of the last control byte found before the lines being delivered; -1 before any. */
  #lastControl = -1;
  #pieceControls: ArrayLike<number> = [];
  /** With a skim, `#pieceControls` are its events: LFs and "{"s among the controls, told by these bytes. */
  #pieceBytes: Uint8Array | undefined;
  #pieceAt = 0;
  #nextControl = 0;

  constructor(options: CaptureOptions = {}) {
    this.#splitter = new LineSplitter(options.maxLineBytes);
    this.#wanted = options.wanted;
    this.#wrapped = new WrappedJson(options.width);
    this.#controls = options.wanted === undefined ? undefined : options.controls;
    this.#skim = this.#controls === undefined ? undefined : options.skim;
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
      const piece = chunk.length <= controls.maxBytes ? chunk : chunk.subarray(at, at + controls.maxBytes);
      const skim = this.#skim;
      // One scan serves both: the skim's events hold the controls.
      this.#pieceControls = skim === undefined ? controls.scan(piece) : controls.events(piece);
      this.#pieceBytes = skim === undefined ? undefined : piece;
      this.#pieceAt = this.#pushed;
      this.#nextControl = 0;
      if (skim === undefined) this.#deliver(this.#splitter.push(piece), onLine);
      else this.#skimmed(piece, skim, onLine);
      this.#pushed += piece.length;
      // The line still open may have control bytes of this piece.
      for (let i = this.#pieceControls.length - 1; i >= 0; i--) {
        const offset = this.#pieceControls[i] ?? 0;
        if (!this.#isControl(offset)) continue;
        this.#lastControl = this.#pieceAt + offset;
        break;
      }
    }
  }

  #isControl(offset: number): boolean {
    const byte = this.#pieceBytes?.[offset];
    return byte !== LF && byte !== OPEN_BRACE;
  }

  /**
   * Delivers the piece's lines up to its first LF, passes over the whole lines after them up to
   * its last LF when the skim allows (delivers them otherwise), then takes the rest.
   */
  #skimmed(piece: Uint8Array, skim: LinesFilter, onLine: (line: Line) => void): void {
    const bytes = Buffer.isBuffer(piece) ? piece : Buffer.from(piece.buffer, piece.byteOffset, piece.byteLength);
    const push = (from: number, to: number): void => this.#deliver(this.#splitter.push(bytes.toString("latin1", from, to), "latin1"), onLine);
    const first = bytes.indexOf(LF) + 1;
    const last = bytes.lastIndexOf(LF) + 1;
    if (first === 0 || last === first) {
      push(0, bytes.length);
      return;
    }
    push(0, first);
    const breaks = this.#splitter.idle && !this.#wrapped.holding ? skimBreaks(bytes, first, last, this.#pieceControls) : undefined;
    const lines = bytes.toString("latin1", first, last);
    if (breaks !== undefined && skim(lines)) this.#splitter.skip(last - first, breaks);
    else this.#deliver(this.#splitter.push(lines, "latin1"), onLine);
    if (last < bytes.length) push(last, bytes.length);
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
      const offset = found[this.#nextControl] ?? 0;
      if (this.#pieceAt + offset >= to) break;
      if (this.#isControl(offset)) this.#lastControl = this.#pieceAt + offset;
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
