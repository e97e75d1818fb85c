import type { Pinned } from "../../engine/tracker.js";
import type { PinCheck } from "./clues.js";

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
