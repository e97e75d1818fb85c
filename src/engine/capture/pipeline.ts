import { cleanText } from "./clean.js";
import { parseJsonObject } from "../../json.js";
import type { Line } from "./line.js";
import { asBytes, decodeLine, LineSplitter, type RawLine } from "./lines.js";
import { mayStartWrapped, WrappedJson, type Rejoined } from "./rejoin.js";
import { firstLineStart } from "./skim.js";
import { ControlCursor } from "./control-cursor.js";

/**
 * Whether a line is worth decoding, asked with its raw bytes (a latin1 string) just before it is
 * delivered, so the answer may depend on what the lines before it changed. `mayHaveControls`
 * false: a `ControlFinder` saw none of the bytes cleaning looks for in the line.
 */
export type LineFilter = (bytes: string, mayHaveControls: boolean) => boolean;

/**
 * Finds, in a chunk of at most `maxBytes`, the offsets of every byte that could make a line need
 * cleaning (controls but tab and LF, DEL, 0xc2), in order: ./control-scan.ts does it
 * 64 bytes a turn in WebAssembly. The result may be a view that the next call overwrites.
 */
export interface ControlFinder {
  readonly maxBytes: number;
  /**
   * Bytes read or copied into this are scanned where they lie (at its start); a skim holds a
   * partial line here. A scan overwrites what lies past its chunk.
   */
  readonly input: Buffer;
  scan(chunk: Uint8Array): ArrayLike<number>;
  /**
   * Looks at the lines of the chunk's first `end` bytes from `from` (a line start) on; returns the
   * offset just after their last LF (`from` when there is none).
   */
  shape(chunk: Uint8Array, from: number, end?: number): number;
  /** The line breaks of the lines `shape` looked at last, or undefined when one must go through the splitter (skim.ts). */
  readonly breaks: number | undefined;
  /** Bytes [from, to) of the chunk `shape` took last, to search: valid until the next call. */
  lines(from: number, to: number): LinesBytes;
}

/** Whole lines, searched in their bytes for a few needles at once (ControlScan.tally). */
export interface LinesBytes {
  /** Whether one byte (a latin1 character) is anywhere in the lines. */
  includes(byte: string): boolean;
  /**
   * For each needle, the places its first `counted` bytes start at in the lines, or -1 when the
   * rest of it does not follow one of them. Valid until the next call.
   */
  tally(needles: readonly Needle[]): ArrayLike<number>;
}

/** A latin1 string looked for: the places of its first `counted` bytes, each followed by the rest or not. */
export interface Needle {
  readonly bytes: string;
  readonly counted: number;
}

/**
 * Asked of whole lines whose shapes need no line of their own (skim.ts): true when `wanted`
 * would turn down every one of them, as things stand now. No string is made of them for it.
 */
export type LinesFilter = (lines: LinesBytes) => boolean;

const OPEN_BRACE = 0x7b;
// Longer partial lines go to the splitter, as before: a line with no LF for this long is a TUI's
// (cursor moves break its lines), and copying it behind every piece would cost more than it saves.
const MAX_HELD_BYTES = 16 * 1024;

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
  readonly #cursor = new ControlCursor();
  /**
   * With a skim: the bytes after the last LF seen, not yet given to the splitter, at the front
   * of a buffer the next piece is copied behind. Each piece then starts where a line starts, and
   * the skim passes over its lines up to the last LF, the line the previous piece began among
   * them; without it that line went through the splitter in two halves, on every 4 KiB read.
   * Held only while the splitter is idle, so nothing is held twice. The buffer is the scanner's
   * `input`: the piece is copied once, where it is scanned.
   */
  readonly #held: Buffer | undefined;
  #heldLength = 0;

  constructor(options: CaptureOptions = {}) {
    this.#splitter = new LineSplitter(options.maxLineBytes);
    this.#wanted = options.wanted;
    this.#wrapped = new WrappedJson(options.width);
    this.#controls = options.wanted === undefined ? undefined : options.controls;
    this.#skim = this.#controls === undefined ? undefined : options.skim;
    // Held bytes and the piece behind them fit one scan (push releases them first otherwise).
    this.#held = this.#skim === undefined ? undefined : this.#controls?.input;
  }

  push(chunk: Uint8Array | string, onLine: (line: Line) => void): void {
    const controls = this.#controls;
    if (controls === undefined) {
      this.#deliver(this.#splitter.push(chunk), onLine);
      return;
    }
    if (typeof chunk === "string") {
      this.#release(onLine);
      const bytes = asBytes(chunk);
      this.#pushed += bytes.length;
      this.#cursor.unscanned(this.#pushed);
      this.#deliver(this.#splitter.push(bytes, "latin1"), onLine);
      return;
    }
    for (let at = 0; at < chunk.length; at += controls.maxBytes) {
      const piece = chunk.length <= controls.maxBytes ? chunk : chunk.subarray(at, at + controls.maxBytes);
      const skim = this.#skim;
      if (skim === undefined) {
        this.#cursor.piece(controls.scan(piece), this.#pushed);
        this.#deliver(this.#splitter.push(piece), onLine);
      } else {
        if (this.#heldLength + piece.length > controls.maxBytes) this.#release(onLine);
        this.#skimmed(piece, controls, skim, onLine);
      }
      this.#pushed += piece.length;
      this.#cursor.endPiece();
    }
  }

  /**
   * Delivers the lines up to the first LF when the splitter holds the start of one, passes over
   * the whole lines after them up to the last LF when the skim allows (delivers them otherwise),
   * and holds the rest while the splitter is idle (gives it to the splitter otherwise). The piece
   * follows the held bytes, if any: then it is copied behind them and both are `#held`'s first
   * `length` bytes (no view is made of them: this runs on every read).
   */
  #skimmed(piece: Uint8Array, controls: ControlFinder, skim: LinesFilter, onLine: (line: Line) => void): void {
    const held = this.#heldLength;
    const start = this.#pushed - held;
    const length = held + piece.length;
    let bytes: Buffer;
    if (held === 0) bytes = Buffer.isBuffer(piece) ? piece : Buffer.from(piece.buffer, piece.byteOffset, piece.byteLength);
    else {
      bytes = this.#held as Buffer;
      bytes.set(piece, held);
      this.#heldLength = 0;
    }
    // Bytes are held only while the splitter is idle: behind them this is 0, never past `length`.
    const first = firstLineStart(bytes, this.#splitter.idle);
    const last = controls.shape(bytes, first, length);
    this.#cursor.pieceIn(controls, length, start);
    if (first > 0) this.#split(bytes, 0, first, onLine);
    if (last > first) {
      const breaks = this.#splitter.idle && !this.#wrapped.holding ? controls.breaks : undefined;
      if (breaks !== undefined && skim(controls.lines(first, last))) this.#splitter.skip(last - first, breaks);
      else this.#split(bytes, first, last, onLine);
    }
    const rest = Math.max(first, last);
    if (rest < length) {
      if (!this.#splitter.idle || length - rest > MAX_HELD_BYTES) this.#split(bytes, rest, length, onLine);
      else this.#hold(bytes, rest, length);
    }
  }

  #split(bytes: Buffer, from: number, to: number, onLine: (line: Line) => void): void {
    this.#deliver(this.#splitter.push(bytes.toString("latin1", from, to), "latin1"), onLine);
  }

  /** Keeps bytes [rest, length) of `bytes` at the front of the held buffer, for the next piece to follow. */
  #hold(bytes: Buffer, rest: number, length: number): void {
    const held = this.#held as Buffer;
    // `bytes` is the held buffer itself, unless nothing was held before this piece.
    if (bytes.buffer === held.buffer && bytes.byteOffset === held.byteOffset) held.copyWithin(0, rest, length);
    else held.set(bytes.subarray(rest, length));
    this.#heldLength = length - rest;
  }

  /**
   * Whether bytes after the last LF are held back: a skim's partial line, for the next piece to
   * follow, or a line ended by a CR run that waits for its next byte. `flush` delivers the lines
   * a CR or a row move ended among them.
   */
  get holding(): boolean {
    return this.#heldLength > 0 || this.#splitter.endsInCr;
  }

  /** Rows that may be a JSON line a screen snapshot wrapped are held: the lines that follow may complete it. */
  get holdingRows(): boolean {
    return this.#wrapped.holding;
  }

  /**
   * The held bytes go to the splitter, so the lines a CR or a row move ended among them are
   * delivered now, a last one ended by a CR run too; only the line still open stays, in the
   * splitter. For an output gone quiet: a TUI that drew its frame with cursor moves and waits
   * for input must not wait for more output.
   */
  flush(onLine: (line: Line) => void): void {
    this.#release(onLine);
    this.#deliver(this.#splitter.quiet(), onLine);
  }

  /** The held bytes go to the splitter: what comes next is not copied behind them. */
  #release(onLine: (line: Line) => void): void {
    if (this.#heldLength === 0) return;
    const held = (this.#held as Buffer).toString("latin1", 0, this.#heldLength);
    this.#heldLength = 0;
    this.#deliver(this.#splitter.push(held, "latin1"), onLine);
  }

  end(onLine: (line: Line) => void): void {
    this.#release(onLine);
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
      if (line.cut === undefined && this.#wanted !== undefined &&
        !this.#wanted(line.bytes, this.#controls === undefined || this.#cursor.mayHaveControls(line.offset, line.offset + line.bytes.length))) continue;
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
