import { IRRELEVANT, JUDGE, lineClues, type LineClues, type PinCheck, type RelevanceRules } from "../../engine/relevance.js";
import type { Pinned } from "../../engine/tracker.js";
import { CONTROL_SCAN_BYTES, ControlScan } from "../../engine/capture/control-scan.js";
import { LineSplitter, type RawLine } from "../../engine/capture/lines.js";
import { ControlCursor } from "../../engine/capture/control-cursor.js";
import { firstLineStart } from "../../engine/capture/skim.js";
import { linesRelevance, MAY_CHANGE, NAMES_PIN, type LinesRelevance } from "../../engine/relevance-lines.js";
import { RANGE_READ_BYTES } from "../ranges.js";

/**
 * A run of whole lines of one stretch of a file, as a worker thread found them. The main thread
 * reaches it later, knowing the pin by then: it skips a block that cannot matter and runs the
 * rest through the usual capture, so the result is the same as reading the file in one go.
 */
export interface Block {
  /** Byte offset in the file of the block's first line; it ends where the next block starts. */
  readonly start: number;
  /** Lines of the stretch before this block. */
  readonly before: number;
  /** Absent: the lines must be read. Present: none of them could change a pin that says so. */
  readonly skip?: {
    /** The one ID value (as bytes) its lines name; absent when they name none. */
    readonly value?: string;
    /** Some line may confirm that value (a provisional pin of it must read the block). */
    readonly mayConfirm: boolean;
  };
}

/** Whether a block can be passed over with `pinned` held: judging each of its lines would change nothing. */
export function canSkip(block: Block, pinned: Pinned | undefined, check: PinCheck): boolean {
  if (block.skip === undefined) return false;
  if (block.skip.value === undefined) return true;
  const matters = check.matters(block.skip.value, pinned);
  return matters === false || (matters === undefined && !block.skip.mayConfirm);
}

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
  readonly #splitter: LineSplitter;
  readonly #blocks: Block[] = [];
  /** The skip block being grown, or undefined while lines must be read. */
  #open: { start: number; before: number; value?: string | undefined; mayConfirm: boolean } | undefined;
  #guess: string | undefined;
  #guessConfirmed = false;
  #end: number;
  readonly #controls = new ControlScan();
  readonly #cursor = new ControlCursor();
  readonly #linesRelevance: LinesRelevance;
  /** The guess as a pin, for the skim, and the guess's bytes it was made from. */
  #guessPinned: { readonly from: string; readonly pinned: Pinned } | undefined;

  constructor(rules: RelevanceRules, private readonly start: number) {
    this.#clues = lineClues(rules);
    this.#linesRelevance = linesRelevance(rules);
    this.#splitter = new LineSplitter();
    this.#end = start;
  }

  /** Chunks read into this buffer are scanned for control bytes where they lie. */
  get readBuffer(): Buffer {
    return this.#controls.input.subarray(0, RANGE_READ_BYTES);
  }

  push(chunk: Buffer): void {
    for (let at = 0; at < chunk.length; at += CONTROL_SCAN_BYTES) {
      const piece = chunk.subarray(at, at + CONTROL_SCAN_BYTES);
      const first = firstLineStart(piece, this.#splitter.idle);
      const last = this.#controls.shape(piece, first);
      this.#cursor.pieceIn(this.#controls, piece.length, this.#end);
      if (first > 0) this.#split(piece.subarray(0, first));
      if (last > first) this.#skimOrSplit(piece, first, last);
      const rest = Math.max(first, last);
      if (rest < piece.length) this.#split(piece.subarray(rest));
      this.#end += piece.length;
      this.#cursor.endPiece();
    }
  }

  #split(bytes: Buffer): void {
    for (const line of this.#splitter.push(bytes)) this.#line(line);
  }

  /**
   * The whole lines of `piece[first, last)`: passed over into the open skip block when none of
   * them could change the guess (skim.ts, relevance-lines.ts), as `run` passes over them.
   */
  #skimOrSplit(piece: Buffer, first: number, last: number): void {
    const breaks = this.#guess !== undefined && this.#splitter.idle ? this.#controls.breaks : undefined;
    const verdict = breaks === undefined ? MAY_CHANGE : this.#linesRelevance(this.#controls.lines(first, last), this.#guessAsPin());
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
    this.#splitter.skip(last - first, breaks);
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
    const quiet = this.#quiet(line, this.#cursor.mayHaveControls(start, start + line.bytes.length));
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
  #quiet(line: RawLine, mayHaveControls: boolean): Quiet {
    if (line.cut) return LOUD;
    const clue = this.#clues.clue(line.bytes, mayHaveControls);
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
