const LF = 0x0a;
const CR = 0x0d;
const ESCAPE_BREAK = /\x1b(?:\[[0-9;]*[ABEFHdf]|[DEM])/y;

/**
 * Where the lines of one string end: LF or CRLF; a lone CR (the next text overwrites the line);
 * and the cursor movements a TUI uses instead of newlines to reach another row (CUU/CUD/CNL/CPL/
 * CUP/HVP/VPA, IND/NEL/RI). A run of CRs only counts once the character after it is known, and an
 * escape sequence only once it is complete, so a chunk boundary never changes where lines end.
 *
 * Found by indexOf for each of the three bytes a break starts with, each string scanned once per
 * byte, and checked where one is: one regex alternation tried at every position was replay's
 * largest cost.
 */
class Breaks {
  #lf = -1;
  #cr = -1;
  #escape = -1;

  constructor(private readonly text: string) {}

  /** The first break at or after `from` (which only grows), or undefined. */
  next(from: number): { at: number; length: number } | undefined {
    const { text } = this;
    for (let at = from; ;) {
      if (this.#lf !== Infinity && this.#lf < at) this.#lf = found(text.indexOf("\n", at));
      if (this.#cr !== Infinity && this.#cr < at) this.#cr = found(text.indexOf("\r", at));
      if (this.#escape !== Infinity && this.#escape < at) this.#escape = found(text.indexOf("\x1b", at));
      at = Math.min(this.#lf, this.#cr, this.#escape);
      if (at === Infinity) return undefined;
      if (at === this.#lf) return { at, length: 1 };
      if (at === this.#cr) {
        let end = at;
        while (text.charCodeAt(end) === CR) end++;
        // A CR run at the end waits for the next byte: an LF would make it part of a line end.
        if (end === text.length) return undefined;
        return { at, length: end - at + (text.charCodeAt(end) === LF ? 1 : 0) };
      }
      ESCAPE_BREAK.lastIndex = at;
      if (ESCAPE_BREAK.test(text)) return { at, length: ESCAPE_BREAK.lastIndex - at };
      at++;
    }
  }
}

const found = (index: number): number => (index === -1 ? Infinity : index);

/** Lines longer than this many bytes are cut, so one endless line cannot grow memory without bound. */
export const MAX_LINE_BYTES = 1024 * 1024;

// A break is at most this long (an escape sequence with its parameters), so after new bytes
// arrive only this much of the old ones needs searching again.
const LONGEST_BREAK = 32;

/**
 * One line's bytes, undecoded. Lines are split on bytes, not text: every break is ASCII, which
 * UTF-8 never uses inside a multi-byte character, so a read that ends inside a character needs
 * nothing held back for it; each line is decoded whole (pipeline.ts).
 */
export interface RawLine {
  /** 1-based, counting every line break (chunk-independent). */
  readonly n: number;
  /** The line's bytes as a latin1 string: one character per byte, cheap to make and to search. */
  readonly bytes: string;
  /** Byte offset of the line's start in the output. */
  readonly offset: number;
  /** The line was longer than the limit and was cut to it. */
  readonly cut?: true;
}

// Reused by every decode: a new Buffer per line cost more than the decoding itself.
let scratch = Buffer.alloc(64 * 1024);

/** A raw line's text: its bytes decoded as UTF-8. */
export function decodeLine(bytes: string): string {
  if (bytes.length > scratch.length) scratch = Buffer.alloc(bytes.length * 2);
  const length = scratch.write(bytes, 0, "latin1");
  return scratch.toString("utf8", 0, length);
}

/** Text as the latin1 string of its UTF-8 bytes, the form `RawLine.bytes` and searches in it use. */
export function asBytes(text: string): string {
  return Buffer.from(text, "utf8").toString("latin1");
}

/** Where a splitter starts in an output: after `lines` line breaks, at byte `offset`. */
export interface SplitFrom {
  readonly lines: number;
  readonly offset: number;
}

/**
 * Bytes in, complete lines out, synchronously: `push` returns the lines a chunk completed, `end`
 * the last one. Memory stays within `maxLineBytes` whatever the input.
 *
 * A chunk that ends in a CR run ends its line at once: a TUI that wrote its last row with a CR
 * and waits for input has that row read now, not at its next byte. The CRs and the one LF that
 * may follow in the next chunk are taken as the rest of that line's separator, so the lines,
 * numbers and offsets are those of the output read in one go.
 */
export class LineSplitter {
  #carry = "";
  #searched = 0;
  #n: number;
  #offset: number;
  /** The rest of an overlong line, already emitted cut, is being skipped. */
  #dropping = false;
  /** The last chunk ended a line at a CR run: more CRs and one LF that follow are its separator still. */
  #afterCr = false;

  /** `from`: for a splitter that starts part-way through an output, at a line start. */
  constructor(private readonly maxLineBytes = MAX_LINE_BYTES, from: SplitFrom = { lines: 0, offset: 0 }) {
    this.#n = from.lines;
    this.#offset = from.offset;
  }

  /** Lines completed so far: the number of the last one. */
  get lines(): number {
    return this.#n;
  }

  /** `encoding` "latin1": a string chunk is bytes already (one character per byte), not text. */
  push(chunk: Uint8Array | string, encoding: "utf8" | "latin1" = "utf8"): RawLine[] {
    let bytes = typeof chunk !== "string" ? Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength).toString("latin1") : encoding === "latin1" ? chunk : asBytes(chunk);
    if (this.#afterCr) bytes = this.#separatorRest(bytes);
    this.#carry += bytes;
    const lines = this.#split(false);
    if (!this.#dropping && this.#carry.charCodeAt(this.#carry.length - 1) === CR) {
      this.#takeCarry(lines);
      this.#searched = 0;
      this.#afterCr = true;
    }
    return lines;
  }

  /** `bytes` without the CRs and the LF that continue the separator the last chunk ended a line at. */
  #separatorRest(bytes: string): string {
    let at = 0;
    while (bytes.charCodeAt(at) === CR) at++;
    if (at < bytes.length) {
      if (bytes.charCodeAt(at) === LF) at++;
      this.#afterCr = false;
    }
    this.#offset += at;
    return at === 0 ? bytes : bytes.slice(at);
  }

  end(): RawLine[] {
    return this.#split(true);
  }

  #split(final: boolean): RawLine[] {
    const lines: RawLine[] = [];
    const text = this.#carry;
    // Bytes before this had no break in them, except possibly one the new bytes complete; a CR
    // run is searched whole, or its end would be taken for a break of its own.
    let from = Math.max(0, this.#searched - LONGEST_BREAK);
    while (from > 0 && text.charCodeAt(from - 1) === CR) from--;
    const breaks = new Breaks(text);
    let start = 0;
    for (let next = breaks.next(from); next !== undefined; next = breaks.next(start)) {
      this.#take(lines, text.slice(start, next.at), next.length);
      start = next.at + next.length;
    }
    this.#carry = this.#carry.slice(start);
    if (final) {
      // A trailing CR run was held back for its next character; there is none.
      if (this.#carry !== "" || this.#dropping) this.#takeCarry(lines);
    } else if (this.#carry.length > this.maxLineBytes + LONGEST_BREAK) {
      this.#cut(lines);
    }
    this.#searched = this.#carry.length;
    return lines;
  }

  /** The open line, as a line now: a CR run it ends in (held back for its next byte) is its separator. */
  #takeCarry(lines: RawLine[]): void {
    const content = this.#carry.replace(/\r+$/, "");
    this.#take(lines, content, this.#carry.length - content.length);
    this.#carry = "";
  }

  /** Emits the overlong line now, cut to the limit; the rest of it is skipped as it arrives. */
  #cut(lines: RawLine[]): void {
    const keep = this.#carry.length - LONGEST_BREAK;
    if (!this.#dropping) lines.push({ n: ++this.#n, bytes: cutAt(this.#carry, this.maxLineBytes), offset: this.#offset, cut: true });
    this.#dropping = true;
    this.#offset += keep;
    this.#carry = this.#carry.slice(keep);
  }

  #take(lines: RawLine[], content: string, separator: number): void {
    if (this.#dropping) {
      this.#dropping = false;
    } else if (content.length > this.maxLineBytes) {
      lines.push({ n: ++this.#n, bytes: cutAt(content, this.maxLineBytes), offset: this.#offset, cut: true });
    } else {
      lines.push({ n: ++this.#n, bytes: content, offset: this.#offset });
    }
    this.#offset += content.length + separator;
  }
}

/** The first `limit` bytes, shortened to a character boundary so the cut text decodes cleanly. */
function cutAt(bytes: string, limit: number): string {
  let end = limit;
  // UTF-8 continuation bytes are 10xxxxxx: the character they belong to started earlier.
  while (end > 0 && (bytes.charCodeAt(end) & 0xc0) === 0x80) end--;
  return bytes.slice(0, end);
}
