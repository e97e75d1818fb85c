import { StringDecoder } from "node:string_decoder";

/**
 * Where one terminal line ends: LF or CRLF; a lone CR (the next text overwrites the line); and
 * the cursor movements a TUI uses instead of newlines to reach another row (CUU/CUD/CNL/CPL/CUP/
 * HVP/VPA, IND/NEL/RI). A run of CRs only counts once the character after it is known, and an
 * escape sequence only once it is complete, so a chunk boundary never changes where lines end.
 */
export const LINE_BREAK = /\r*\n|\r+(?!\r|$)|\x1b\[[0-9;]*[ABEFHdf]|\x1b[DEM]/g;

/** Lines longer than this are cut, so one endless line cannot grow memory without bound. */
export const MAX_LINE_CHARS = 1024 * 1024;

// A break is at most this long (an escape sequence with its parameters), so after new text
// arrives only this much of the old text needs searching again.
const LONGEST_BREAK = 32;

export interface RawLine {
  /** 1-based, counting every line break (chunk-independent). */
  readonly n: number;
  readonly raw: string;
  /** Byte offset of the line's start in the output (UTF-8; approximate after invalid bytes). */
  readonly offset: number;
  /** The line was longer than the limit and was cut to it. */
  readonly cut?: true;
}

/**
 * Bytes in, complete lines out, synchronously: `push` returns the lines a chunk completed, `end`
 * the last one. UTF-8 characters split between chunks are kept whole. Memory stays within
 * `maxLineChars` whatever the input.
 */
export class LineSplitter {
  readonly #decoder = new StringDecoder("utf8");
  #carry = "";
  #searched = 0;
  #n = 0;
  #offset = 0;
  /** The rest of an overlong line, already emitted cut, is being skipped. */
  #dropping = false;

  constructor(private readonly maxLineChars = MAX_LINE_CHARS) {}

  push(chunk: Uint8Array | string): RawLine[] {
    this.#carry += typeof chunk === "string" ? chunk : this.#decoder.write(Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength));
    return this.#split(false);
  }

  end(): RawLine[] {
    this.#carry += this.#decoder.end();
    return this.#split(true);
  }

  #split(final: boolean): RawLine[] {
    const lines: RawLine[] = [];
    // Text before this had no break in it, except possibly one the new text completes; a CR run
    // is searched whole, or its end would be taken for a break of its own.
    let from = Math.max(0, this.#searched - LONGEST_BREAK);
    while (from > 0 && this.#carry[from - 1] === "\r") from--;
    LINE_BREAK.lastIndex = from;
    let start = 0;
    for (let match = LINE_BREAK.exec(this.#carry); match !== null; match = LINE_BREAK.exec(this.#carry)) {
      this.#take(lines, this.#carry.slice(start, match.index), match[0]);
      start = match.index + match[0].length;
    }
    this.#carry = this.#carry.slice(start);
    if (final) {
      // A trailing CR run was held back for its next character; there is none.
      if (this.#carry !== "" || this.#dropping) this.#take(lines, this.#carry.replace(/\r+$/, ""), this.#carry.match(/\r+$/)?.[0] ?? "");
      this.#carry = "";
    } else if (this.#carry.length > this.maxLineChars + LONGEST_BREAK) {
      this.#cut(lines);
    }
    this.#searched = this.#carry.length;
    return lines;
  }

  /** Emits the overlong line now, cut to the limit; the rest of it is skipped as it arrives. */
  #cut(lines: RawLine[]): void {
    const keep = this.#carry.length - LONGEST_BREAK;
    if (!this.#dropping) lines.push({ n: ++this.#n, raw: this.#carry.slice(0, this.maxLineChars), offset: this.#offset, cut: true });
    this.#dropping = true;
    this.#offset += Buffer.byteLength(this.#carry.slice(0, keep));
    this.#carry = this.#carry.slice(keep);
  }

  #take(lines: RawLine[], content: string, separator: string): void {
    const length = Buffer.byteLength(content) + Buffer.byteLength(separator);
    if (this.#dropping) {
      this.#dropping = false;
    } else if (content.length > this.maxLineChars) {
      lines.push({ n: ++this.#n, raw: content.slice(0, this.maxLineChars), offset: this.#offset, cut: true });
    } else {
      lines.push({ n: ++this.#n, raw: content, offset: this.#offset });
    }
    this.#offset += length;
  }
}
