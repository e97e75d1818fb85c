// The offsets of every piece not scanned: most of `run`'s reads are skimmed whole, and need no list.
const NONE: ArrayLike<number> = [];

/** A scanner that holds a piece at the front of its `input` (ControlScan, via ControlFinder). */
export interface HeldPiece {
  readonly input: Buffer;
  scan(chunk: Uint8Array): ArrayLike<number>;
}

/**
 * Whether a line may hold a control byte, for lines that come in order, from where a scan found
 * the control bytes of each piece (ControlScan.scan): lines with none skip the exact test. The
 * last control byte before a line's end tells, so the offsets are walked once.
 */
export class ControlCursor {
  #found: ArrayLike<number> = NONE;
  /** The stream offset of the piece's first byte. */
  #base = 0;
  #next = 0;
  /** The offset of the last control byte found before the lines looked at; -1 before any. */
  #last = -1;
  /** The scanner holding the piece, until a line asks for its control bytes. */
  #held: HeldPiece | undefined;
  #heldLength = 0;

  /** A new piece at stream offset `base`, its control bytes at offsets `found`. */
  piece(found: ArrayLike<number>, base: number): void {
    this.#found = found;
    this.#base = base;
    this.#next = 0;
    this.#held = undefined;
  }

  /**
   * A new piece of `length` bytes at stream offset `base`, at the front of `scanner`'s input
   * until `endPiece`: scanned only if a line of it is asked about by then. A skim needs no
   * control bytes, and most of `run`'s reads are skimmed whole.
   */
  pieceIn(scanner: HeldPiece, length: number, base: number): void {
    this.piece(NONE, base);
    this.#held = scanner;
    this.#heldLength = length;
  }

  /** Bytes not scanned up to `end`: every line with one of them may have controls. */
  unscanned(end: number): void {
    this.#held = undefined;
    this.#found = NONE;
    this.#last = end - 1;
  }

  /** Whether a control byte may lie in [from, to). */
  mayHaveControls(from: number, to: number): boolean {
    const held = this.#held;
    if (held !== undefined) {
      this.#held = undefined;
      this.#found = held.scan(held.input.subarray(0, this.#heldLength));
    }
    const found = this.#found;
    for (; this.#next < found.length; this.#next++) {
      const offset = found[this.#next] ?? 0;
      if (this.#base + offset >= to) break;
      this.#last = this.#base + offset;
    }
    return this.#last >= from;
  }

  /**
   * The piece is split: the line still open may have its last control bytes. Bytes of a piece
   * never scanned are taken to have some: a held partial line released later is no longer where
   * the scan would look.
   */
  endPiece(): void {
    if (this.#held !== undefined) {
      this.unscanned(this.#base + this.#heldLength);
      return;
    }
    const found = this.#found;
    if (found.length > 0) this.#last = this.#base + (found[found.length - 1] ?? 0);
  }
}
