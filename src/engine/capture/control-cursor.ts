// The offsets of every piece not scanned: most of `run`'s reads are skimmed whole, and need no list.
const NONE: ArrayLike<number> = [];

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

  /** A new piece at stream offset `base`, its control bytes at offsets `found`. */
  piece(found: ArrayLike<number>, base: number): void {
    this.#found = found;
    this.#base = base;
    this.#next = 0;
  }

  /** Bytes not scanned up to `end`: every line with one of them may have controls. */
  unscanned(end: number): void {
    this.#found = NONE;
    this.#last = end - 1;
  }

  /** Whether a control byte may lie in [from, to). */
  mayHaveControls(from: number, to: number): boolean {
    const found = this.#found;
    for (; this.#next < found.length; this.#next++) {
      const offset = found[this.#next] ?? 0;
      if (this.#base + offset >= to) break;
      this.#last = this.#base + offset;
    }
    return this.#last >= from;
  }

  /** The piece is split: the line still open may have its last control bytes. */
  endPiece(): void {
    const found = this.#found;
    if (found.length > 0) this.#last = this.#base + (found[found.length - 1] ?? 0);
  }
}
