/**
 * The skim's WebAssembly memory (module.ts, byte-scan.ts): the bytes looked at, at its start, then
 * what the functions write and read.
 */

/** The most bytes one call looks at (a replay read). */
export const INPUT_BYTES = 64 * 1024;
// The last loads of a chunk read up to 63 bytes past it: here, set to bytes no function looks for.
export const PAD_BYTES = 64;
// Where `shape` writes the line breaks it counted (or -1).
export const SHAPE_AT = INPUT_BYTES + PAD_BYTES;
// Where `tally` finds its needles: each written once, while they fit (a new pinned ID makes new ones).
export const NEEDLES_AT = SHAPE_AT + 16;
export const NEEDLE_BYTES = 16 * 1024;
// A needle is compared 16 bytes at a time: the last load reads up to 15 bytes past its end.
export const SLOTS_AT = NEEDLES_AT + NEEDLE_BYTES + 16;
/** The needles one `tally` call looks for together: a function for each number of them up to this. */
export const SLOTS = 2;
// Each slot: the needle's address, the bytes counted, its whole length (in), places, misses (out).
export const SLOT_FIELDS = 5;
const PAGE_BYTES = 64 * 1024;
export const PAGES = Math.ceil((SLOTS_AT + 4 * SLOT_FIELDS * SLOTS) / PAGE_BYTES);
