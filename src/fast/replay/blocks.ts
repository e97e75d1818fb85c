import type { Pinned } from "../../engine/tracker.js";
import { LineSplitter, type RawLine } from "../../engine/capture/lines.js";
import { BYTE_SCAN_BYTES, ByteScan } from "../skim/byte-scan.js";
import type { Block } from "./block.js";
import { IRRELEVANT, JUDGE, lineClues, type LineClues, type RelevanceRules } from "./clues.js";
import { linesRelevance, MAY_CHANGE, NAMES_PIN, type LinesRelevance } from "./lines-clues.js";
import { RANGE_READ_BYTES } from "./ranges.js";

const LF = 0x0a;

/** What a line is to the guessed pin: may change it, changes nothing, names it, names it and may confirm it. */
const LOUD = 0;
const QUIET = 1;
const QUIET_VALUE = 2;
const QUIET_MAY_CONFIRM = 3;
type Quiet = typeof LOUD | typeof QUIET | typeof QUIET_VALUE | typeof QUIET_MAY_CONFIRM;

// A block to skip smaller than this is read instead: each block costs a message and a look.
const SMALLEST_SKIP_BYTES = 32 * 1024;

/**
 * Splits one stretch of a file (starting at a line start) into blocks, from its bytes alone. It
 * guesses the pin by assuming each new ID value is taken, and starts a block to skip after every
 * line that could change that guess; a wrong guess only means a block the main thread reads.
 */
export class BlockScanner {
  readonly #clues: LineClues;
  /** Made anew after each run of lines passed over, numbering on from it. */
  #splitter = new LineSplitter();
  /** What the splitter was given ends with an LF (or it was given nothing): it holds no line. */
  #betweenLines = true;
  readonly #blocks: Block[] = [];
  /** The skip block being grown, or undefined while lines must be read. */
  #open: { start: number; before: number; value?: string | undefined; mayConfirm: boolean } | undefined;
  #guess: string | undefined;
  #guessConfirmed = false;
  #end: number;
  readonly #scan = new ByteScan();
  readonly #linesRelevance: LinesRelevance;
  /** The guess as a pin, for the skim, and the guess's bytes it was made from. */
  #guessPinned: { readonly from: string; readonly pinned: Pinned } | undefined;

  constructor(rules: RelevanceRules, private readonly start: number) {
    this.#clues = lineClues(rules);
    this.#linesRelevance = linesRelevance(rules);
    this.#end = start;
  }

  /** Chunks read into this buffer are looked at where they lie, not copied. */
  get readBuffer(): Buffer {
    return this.#scan.input.subarray(0, RANGE_READ_BYTES);
  }

  push(chunk: Buffer): void {
    for (let at = 0; at < chunk.length; at += BYTE_SCAN_BYTES) {
      const piece = chunk.subarray(at, at + BYTE_SCAN_BYTES);
      // Whole lines start at the piece's start, or after its first LF while a line is open.
      const first = this.#betweenLines ? 0 : piece.indexOf(LF) + 1;
      const last = this.#scan.shape(piece, first);
      if (first > 0) this.#split(piece.subarray(0, first));
      if (last > first) this.#skimOrSplit(piece, first, last);
      const rest = Math.max(first, last);
      if (rest < piece.length) this.#split(piece.subarray(rest));
      this.#end += piece.length;
    }
  }

  #split(bytes: Buffer): void {
    for (const line of this.#splitter.push(bytes)) this.#line(line);
    if (bytes.length > 0) this.#betweenLines = bytes[bytes.length - 1] === LF;
  }

  /**
   * The whole lines of `piece[first, last)`: passed over into the open skip block when none of
   * them could change the guess (the skim: ByteScan.shape, lines-clues.ts), without a string made
   * of each; split and looked at one by one otherwise.
   */
  #skimOrSplit(piece: Buffer, first: number, last: number): void {
    const breaks = this.#guess !== undefined && this.#betweenLines ? this.#scan.breaks : undefined;
    const verdict = breaks === undefined ? MAY_CHANGE : this.#linesRelevance(this.#scan.lines(first, last), this.#guessAsPin());
    if (breaks === undefined || verdict === MAY_CHANGE) {
      this.#split(piece.subarray(first, last));
      return;
    }
    const open = (this.#open ??= { start: this.#end + first, before: this.#splitter.lines, mayConfirm: false });
    // As #line does for each line that names the guess (once confirmed, it may confirm it again).
    if (verdict === NAMES_PIN) {
      open.value = this.#guess;
      open.mayConfirm ||= this.#guessConfirmed;
    }
    this.#splitter = new LineSplitter(undefined, { lines: this.#splitter.lines + breaks, offset: this.#end + last - this.start });
  }

  #guessAsPin(): Pinned | undefined {
    const guess = this.#guess;
    if (guess === undefined) return undefined;
    const state = this.#guessConfirmed ? "confirmed" : "provisional";
    const made = this.#guessPinned;
    if (made?.from === guess && made.pinned.state === state) return made.pinned;
    const pinned: Pinned = { id: Buffer.from(guess, "latin1").toString("utf8"), state, rule: "guess" };
    this.#guessPinned = { from: guess, pinned };
    return pinned;
  }

  /** The stretch is over: every block is final. */
  end(): void {
    for (const line of this.#splitter.end()) this.#line(line);
    this.#close(this.#end);
  }

  /** Lines of the stretch so far. */
  get lines(): number {
    return this.#splitter.lines;
  }

  /** The offset in the file the stretch has been read to. */
  get scannedTo(): number {
    return this.#end;
  }

  /** The blocks completed since the last call, in order. */
  take(): Block[] {
    return this.#blocks.splice(0, this.#blocks.length);
  }

  #line(line: RawLine): void {
    const start = this.start + line.offset;
    const quiet = this.#quiet(line);
    if (quiet !== LOUD) {
      const open = (this.#open ??= { start, before: line.n - 1, mayConfirm: false });
      if (quiet !== QUIET) {
        open.value = this.#guess;
        open.mayConfirm ||= quiet === QUIET_MAY_CONFIRM;
      }
      return;
    }
    this.#close(start);
    this.#mustRead(start, line.n - 1);
  }

  /** Whether the line leaves the guessed pin as it is, and what it says about the guess if it does. */
  #quiet(line: RawLine): Quiet {
    if (line.cut) return LOUD;
    const clue = this.#clues.clue(line.bytes);
    if (clue === IRRELEVANT) return QUIET;
    if (clue === JUDGE) {
      this.#guess = undefined;
      return LOUD;
    }
    if (clue !== this.#guess) {
      // The clue is a slice of the chunk's string. Held as the guess and by the blocks that name
      // it, it kept the whole 64 KiB alive into the old generation: peak memory grew with the
      // file (3 GB: 104 MB). A copy holds only its own bytes.
      this.#guess = Buffer.from(clue, "latin1").toString("latin1");
      this.#guessConfirmed = this.#clues.confirms(line.bytes);
      return LOUD;
    }
    // Once the guess is confirmed, whether a line confirms is not worked out: it may.
    if (this.#guessConfirmed) return QUIET_MAY_CONFIRM;
    if (!this.#clues.confirms(line.bytes)) return QUIET_VALUE;
    this.#guessConfirmed = true;
    return LOUD;
  }

  /** Ends the open skip block at `end`; one too small to be worth a look joins the lines to read. */
  #close(end: number): void {
    const open = this.#open;
    if (open === undefined) return;
    this.#open = undefined;
    if (end - open.start < SMALLEST_SKIP_BYTES) {
      this.#mustRead(open.start, open.before);
      return;
    }
    const { value, mayConfirm } = open;
    this.#blocks.push({ start: open.start, before: open.before, skip: { ...(value === undefined ? {} : { value }), mayConfirm } });
  }

  /** Lines from `start` on must be read: a block to read starts there, unless one is open already. */
  #mustRead(start: number, before: number): void {
    const last = this.#blocks.at(-1);
    if (last === undefined || last.skip !== undefined) this.#blocks.push({ start, before });
  }
}
