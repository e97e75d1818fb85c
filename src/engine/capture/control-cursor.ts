const LF = 0x0a;
const OPEN_BRACE = 0x7b;

/**
 * Whether a line may hold a control byte, for lines that come in order, from where a scan found
 * the control bytes of each piece (ControlScan): lines with none skip the exact test. The last
 * control byte before a line's end tells, so the offsets are walked once. A piece's offsets may
 * be its `events` (LFs and "{"s among them): the bytes then tell which are controls.
 */
export class ControlCursor {
  #found: ArrayLike<number> = [];
  #bytes: Uint8Array | undefined;
  /** The stream offset of the piece's first byte. */
  #base = 0;
  #next = 0;
  /** The offset of the last control byte found before the lines looked at; -1 before any. */
  #last = -1;

  /** A new piece at stream offset `base`; `bytes` when `found` are its events. */
  piece(found: ArrayLike<number>, base: number, bytes?: Uint8Array): void {
    this.#found = found;
    this.#base = base;
    this.#bytes = bytes;
    this.#next = 0;
  }

  /** Bytes not scanned (a string chunk) up to `end`: every line with one of them may have controls. */
  unscanned(end: number): void {
    this.#found = [];
    this.#last = end - 1;
  }

  /** Whether a control byte may lie in [from, to). */
  mayHaveControls(from: number, to: number): boolean {
    const found = this.#found;
    for (; this.#next < found.length; this.#next++) {
      const offset = found[this.#next] ?? 0;
      if (this.#base + offset >= to) break;
      if (this.#isControl(offset)) this.#last = this.#base + offset;
    }
    return this.#last >= from;
  }

  /** The piece is split: the line still open may have its last control bytes. */
  endPiece(): void {
    for (let i = this.#found.length - 1; i >= 0; i--) {
      const offset = this.#found[i] ?? 0;
      if (!this.#isControl(offset)) continue;
      this.#last = this.#base + offset;
      return;
    }
  }

  #isControl(offset: number): boolean {
    const byte = this.#bytes?.[offset];
    return byte !== LF && byte !== OPEN_BRACE;
  }
}
