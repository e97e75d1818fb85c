/**
 * Where the bytes that could make a line need cleaning are (`MAYBE_CONTROL_BYTES` of clean.ts but
 * LF, which never lies inside a line: controls but tab, DEL, and 0xc2, which leads a C1 control),
 * found 64 bytes at a time with WebAssembly SIMD. A regex with that class ran at 1.1-1.7 GB/s and was a quarter of a replay
 * worker's time; JavaScript has no faster search for a class of bytes. Lines with none of these
 * bytes are known clean; the others still get the exact test. The same memory answers how often
 * a few needles occur in a span of the chunk (`tally`), for the skim's questions (relevance-lines.ts).
 */

import type { LinesBytes, Needle } from "./pipeline.js";

/** The most bytes one call scans (a replay read). */
const INPUT_BYTES = 64 * 1024;
// The last loads of a chunk read up to 63 bytes past it: here, set to bytes the scan never finds.
const PAD_BYTES = 64;
const OUTPUT_AT = INPUT_BYTES + PAD_BYTES;
// Where `shape` writes the line breaks it counted (or -1).
const SHAPE_AT = OUTPUT_AT + 4 * INPUT_BYTES;
// Where `tally` finds its needles: each written once, while they fit (a new pinned ID makes new ones).
const NEEDLES_AT = SHAPE_AT + 16;
const NEEDLE_BYTES = 16 * 1024;
// A needle is compared 16 bytes at a time: the last load reads up to 15 bytes past its end.
const SLOTS_AT = NEEDLES_AT + NEEDLE_BYTES + 16;
/** The needles one `tally` call looks for together: a function for each number of them up to this. */
const SLOTS = 2;
// Each slot: the needle's address, the bytes counted, its whole length (in), places, misses (out).
const SLOT_FIELDS = 5;
const PAGE_BYTES = 64 * 1024;
const PAGES = Math.ceil((SLOTS_AT + 4 * SLOT_FIELDS * SLOTS) / PAGE_BYTES);

// The module, written out by hand (it is ~4 KB; a WAT toolchain would be a dependency for a few
// functions). The text form of the scan's:
//
// (func (export "scan") (param $i i32) (param $end i32) (param $out i32) (result i32)
//   (local $mask i32) (local $n i32) (local $v v128) (local $m0 v128) … (local $m3 v128)
//   (block $done (loop $next
//     (br_if $done (i32.ge_u $i $end))
//     ;; four vectors, k = 0…3:
//     (local.set $v (v128.load offset=16k $i))
//     (local.set $mk (v128.or (v128.or
//       (v128.andnot (i8x16.lt_u $v 0x20) (i8x16.lt_u (i8x16.sub $v 0x09) 2))   ;; not tab, LF
//       (i8x16.eq $v 0x7f)) (i8x16.eq $v 0xc2)))
//     (if (v128.any_true (v128.or (v128.or $m0 $m1) (v128.or $m2 $m3))) (then
//       ;; for each k:
//       (local.set $mask (i8x16.bitmask $mk))
//       (block $bits (loop $bit
//         (br_if $bits (i32.eqz $mask))
//         (i32.store (i32.add $out (i32.shl $n 2)) (i32.add (i32.add $i 16k) (i32.ctz $mask)))
//         (local.set $n (i32.add $n 1))
//         (local.set $mask (i32.and $mask (i32.sub $mask 1)))
//         (br $bit)))))
//     (local.set $i (i32.add $i 64))
//     (br $next)))
//   $n)
//
// Most 64 bytes of agent output hold none of these bytes, and one test passes over them: over a
// replay transcript, 0.19 CPU s/GB, where one vector a turn (and a scan of these and two more
// bytes) took 0.33. `shape`, further down, is written with a few helpers for structured control flow.
//
// The tally functions count, in one pass over a span, the places of up to SLOTS needles (written
// into the memory once; a table of slots says where each is). Each needle's prefilter is three of
// its bytes (its first, its second, and the one before the end of the part counted, inside a JSON
// string's quotes); a place any prefilter marks is compared with every needle, 16 bytes at a time.
// A slot counts the places of its needle's first `counted` bytes and, of those, the misses: places
// not followed by the rest of it (the skim asks whether a key is followed by the pinned ID
// everywhere). One vector a turn below; the code does four, with one test for all first, as
// `scan` does. There is a function for each number of slots, and one that compares a place:
//
// (func (export "tally") (param $i i32) (param $end i32) (param $k i32) (result i32)
//   ;; for each slot s: $d_s = counted - 2, and the three bytes splatted:
//   (local.set $a_s (i8x16.splat (i32.load8_u (slot s).address)))   ;; $b_s: offset 1, $c_s: $d_s
//   (block $done (loop $next
//     (br_if $done (i32.ge_u $i $end))
//     (local.set $found (i8x16.bitmask (v128.or … (v128.and (v128.and
//       (i8x16.eq (v128.load $i) $a_s) (i8x16.eq (v128.load offset=1 $i) $b_s))
//       (i8x16.eq (v128.load (i32.add $i $d_s)) $c_s)) …)))
//     (block $places (loop $place
//       (br_if $places (i32.eqz $found))
//       (local.set $p (i32.add $i (i32.ctz $found)))
//       (local.set $found (i32.and $found (i32.sub $found 1)))
//       (br_if $places (i32.ge_u $p $end))
//       ;; for each slot j < $k: $limit = min(whole length, $end - $p); when $limit >= counted,
//       ;; $same = how many bytes at $p equal the needle's, 16 a step (the first lane that differs:
//       ;; ctz of the bitmask of i8x16.ne), at most $limit; a place when $same >= counted, and
//       ;; a miss too when $same < whole length.
//       (br $place)))
//     (local.set $i (i32.add $i 16))
//     (br $next)))
//   (i32.const 0))
//
// Searches of the lines' latin1 string stop at every place of the first character they look for:
// for `"result"` (what confirms a provisional Amp pin) at every "u" of the text. The string
// and its searches were 0.4-0.8 wall s/GB of capture over the flood in a loop.
const I32 = 0x7f;
const I64 = 0x7e;
const V128 = 0x7b;
const EMPTY = 0x40;
const [BLOCK, LOOP, IF, ELSE, END, BR, BR_IF] = [0x02, 0x03, 0x04, 0x05, 0x0b, 0x0c, 0x0d];
const [GET, SET] = [0x20, 0x21];
const [RETURN, CALL, DROP, SELECT] = [0x0f, 0x10, 0x1a, 0x1b];
const [EQZ, EQ, NE, LT_U, GT_U, GE_U, CTZ, ADD, SUB, AND, OR, SHL, SHR_U, LOAD, LOAD8_U, STORE] = [0x45, 0x46, 0x47, 0x49, 0x4b, 0x4f, 0x68, 0x6a, 0x6b, 0x71, 0x72, 0x74, 0x76, 0x28, 0x2d, 0x36];
const [I64_EQZ, I64_CLZ, I64_CTZ, I64_POPCNT, I64_SUB, I64_AND, I64_OR, I64_XOR, I64_SHL, I64_SHR_U, WRAP, EXTEND_U] =
  [0x50, 0x79, 0x7a, 0x7b, 0x7d, 0x83, 0x84, 0x85, 0x86, 0x88, 0xa7, 0xad];
const simd = (op: number): number[] => [0xfd, ...leb(op)];
const V_LOAD = simd(0x00);
const V_STORE = simd(0x0b);
const V_CONST = simd(0x0c);
const EQ8 = simd(0x23);
const NE8 = simd(0x24);
const LT8_U = simd(0x26);
const SPLAT8 = simd(0x0f);
const V_AND = simd(0x4e);
const V_AND_NOT = simd(0x4f);
const V_OR = simd(0x50);
const ANY_TRUE = simd(0x53);
const BITMASK8 = simd(0x64);
const SUB8 = simd(0x71);
// $m: the first of VECTORS v128 locals, one lane mask per vector of a turn.
const [$i, $end, $out, $mask, $n, $v, $m] = [0, 1, 2, 3, 4, 5, 6];
const i32 = (value: number): number[] => [0x41, ...sleb(value)];
const i64 = (value: number): number[] => [0x42, ...sleb(value)];
const splat = (byte: number): number[] => [...V_CONST, ...new Array<number>(16).fill(byte)];
const compare = (op: number[], byte: number, v = $v): number[] => [GET, v, ...splat(byte), ...op];

const VECTORS = 4;
// Function 2 (after scan and shape): the tally functions call it for each place they find.
const VERIFY = 2;

/** The class above, as a lane mask of the vector in $v. */
const CONTROLS = [
  ...compare(LT8_U, 0x20),
  GET, $v, ...splat(0x09), ...SUB8, ...splat(2), ...LT8_U, ...V_AND_NOT,
  ...compare(EQ8, 0x7f), ...V_OR, ...compare(EQ8, 0xc2), ...V_OR,
];
/** What a line's shape depends on, in the vector in local `v`: the class, every LF and "{" (every byte below 0x20 but tab). */
const shapeBytes = (v: number): number[] => [
  ...compare(LT8_U, 0x20, v), ...compare(EQ8, 0x09, v), ...V_AND_NOT,
  ...compare(EQ8, 0x7f, v), ...V_OR, ...compare(EQ8, 0xc2, v), ...V_OR, ...compare(EQ8, 0x7b, v), ...V_OR,
];

/**
 * The loop the functions share: from $i to $end, VECTORS vectors of 16 bytes a turn. `mask(k)`
 * leaves vector k's lane mask, kept in local $m + k; when any lane of the turn is set, `lane(k)`
 * runs once for each set lane of vector k, with the lanes left in local $bits (the lowest is the
 * one to take: `ctz`), and clears it.
 */
const turns = (mask: (k: number) => number[], lane: (k: number) => number[], $m: number, $bits: number): number[] => {
  const vectors = [...Array(VECTORS).keys()];
  return [
    BLOCK, EMPTY, LOOP, EMPTY,
    GET, $i, GET, $end, GE_U, BR_IF, 1,
    ...vectors.flatMap((k) => [...mask(k), SET, $m + k]),
    ...vectors.flatMap((k) => (k === 0 ? [GET, $m] : [GET, $m + k, ...V_OR])), ...ANY_TRUE,
    IF, EMPTY,
    ...vectors.flatMap((k) => [
      GET, $m + k, ...BITMASK8, SET, $bits,
      BLOCK, EMPTY, LOOP, EMPTY,
      GET, $bits, EQZ, BR_IF, 1,
      ...lane(k),
      BR, 0,
      END, END,
    ]),
    END,
    GET, $i, ...i32(16 * VECTORS), ADD, SET, $i,
    BR, 0,
    END, END,
  ];
};
const clearLowest = ($bits: number): number[] => [GET, $bits, GET, $bits, ...i32(1), SUB, AND, SET, $bits];

/** The scan loop, finding the bytes `found` marks. */
const body = (found: readonly number[]): number[] => [
  2, 2, I32, 1 + VECTORS, V128, // locals: two i32, then the v128s
  // The last loads of the chunk read up to 63 bytes past its end: make them bytes never found.
  ...[...Array(PAD_BYTES / 16).keys()].flatMap((k) => [GET, $end, ...splat(0x20), ...V_STORE, 0, ...leb(16 * k)]),
  ...turns(
    (k) => [GET, $i, ...V_LOAD, 0, ...leb(16 * k), SET, $v, ...found],
    (k) => [
      GET, $out, GET, $n, ...i32(2), SHL, ADD, GET, $i, ...i32(16 * k), ADD, GET, $mask, CTZ, ADD, STORE, 2, 0,
      GET, $n, ...i32(1), ADD, SET, $n,
      ...clearLowest($mask),
    ],
    $m, $mask,
  ),
  GET, $n,
  END,
];

// Fields of a slot: 0 the needle's address, 1 the bytes counted, 2 its whole length, 3 places, 4 misses.
const field = (slot: number[], index: number): number[] => [...slot, LOAD, 2, ...leb(4 * index)];

/** The tally above for `k` slots: their prefilters, VECTORS places of 16 a turn, one test for all first. */
const tally = (k: number): number[] => {
  const [$p, $found, $d] = [3, 4, 5];
  const $v0 = $d + k;
  const [$v1, $a] = [$v0 + 1, $v0 + 2];
  const [$b, $c, $m] = [$a + k, $a + 2 * k, $a + 3 * k];
  const slots = [...Array(k).keys()];
  const slotAt = (s: number): number[] => i32(SLOTS_AT + 4 * SLOT_FIELDS * s);
  return [
    2, $d + k - $p, I32, $m + VECTORS - $v0, V128,
    ...slots.flatMap((s) => [
      ...field(slotAt(s), 1), ...i32(2), SUB, SET, $d + s,
      ...field(slotAt(s), 0), LOAD8_U, 0, 0, ...SPLAT8, SET, $a + s,
      ...field(slotAt(s), 0), LOAD8_U, 0, 1, ...SPLAT8, SET, $b + s,
      ...field(slotAt(s), 0), GET, $d + s, ADD, LOAD8_U, 0, 0, ...SPLAT8, SET, $c + s,
    ]),
    ...turns(
      (v) => [
        GET, $i, ...V_LOAD, 0, ...leb(16 * v), SET, $v0,
        GET, $i, ...V_LOAD, 0, ...leb(16 * v + 1), SET, $v1,
        ...slots.flatMap((s) => [
          GET, $v0, GET, $a + s, ...EQ8, GET, $v1, GET, $b + s, ...EQ8, ...V_AND,
          GET, $i, GET, $d + s, ADD, ...V_LOAD, 0, ...leb(16 * v), GET, $c + s, ...EQ8, ...V_AND,
          ...(s === 0 ? [] : V_OR),
        ]),
      ],
      (v) => [
        GET, $i, ...i32(16 * v), ADD, GET, $found, CTZ, ADD, SET, $p,
        ...clearLowest($found),
        GET, $p, GET, $end, GE_U, BR_IF, 1,
        GET, $p, GET, $end, ...i32(k), CALL, VERIFY, DROP,
      ],
      $m, $found,
    ),
    ...i32(0),
    END,
  ];
};

/** The first place in [$i, $end) of the byte $byte, or -1: the loop above with one compare a vector. */
const find = (): number[] => {
  const [$byte, $bits, $p, $splat, $m] = [2, 3, 4, 5, 6];
  return [
    2, 2, I32, 1 + VECTORS, V128,
    GET, $byte, ...SPLAT8, SET, $splat,
    ...turns(
      (k) => [GET, $i, ...V_LOAD, 0, ...leb(16 * k), GET, $splat, ...EQ8],
      (k) => [
        GET, $i, ...i32(16 * k), ADD, GET, $bits, CTZ, ADD, SET, $p,
        ...i32(-1), GET, $p, GET, $p, GET, $end, GE_U, SELECT, RETURN,
      ],
      $m, $bits,
    ),
    ...i32(-1),
    END,
  ];
};

// Structured control flow for the hand-written functions below: no branch leaves a `when` or a
// `whilst` but their own, so they nest freely.
const when = (test: number[], then: number[], otherwise?: number[]): number[] =>
  [...test, IF, EMPTY, ...then, ...(otherwise === undefined ? [] : [ELSE, ...otherwise]), END];
/** Repeats `step` while `test` holds. */
const whilst = (test: number[], step: number[]): number[] => [BLOCK, EMPTY, LOOP, EMPTY, ...test, EQZ, BR_IF, 1, ...step, BR, 0, END, END];
/** Runs `step` for each set bit of the i64 local `bits`, lowest first, with its index in the i64 local `bit`; clears them. */
const eachBit = (bits: number, bit: number, step: number[]): number[] => [
  BLOCK, EMPTY, LOOP, EMPTY,
  GET, bits, I64_EQZ, BR_IF, 1,
  GET, bits, I64_CTZ, SET, bit,
  GET, bits, GET, bits, ...i64(1), I64_SUB, I64_AND, SET, bits,
  ...step,
  BR, 0,
  END, END,
];
const load8 = (address: number[], offset = 0): number[] => [...address, LOAD8_U, 0, ...leb(offset)];
const add = (local: number, value: number): number[] => [GET, local, ...i32(value), ADD, SET, local];
const put = (local: number, value: number): number[] => [...i32(value), SET, local];
const oneOf = (local: number, values: readonly number[]): number[] =>
  values.flatMap((value, index) => [GET, local, ...i32(value), EQ, ...(index === 0 ? [] : [OR])]);
/**
 * Whether the byte in local `byte` is a final of CSI that LineSplitter breaks lines at (A B E F H
 * d f), without a branch for each: A-H as bits of 0xb3, "d" and "f" as the bytes that are 0x66
 * with bit 1 set.
 */
const rowMoveFinal = (byte: number): number[] => [
  ...i32(0xb3), GET, byte, ...i32(0x41), SUB, SHR_U, ...i32(1), AND,
  GET, byte, ...i32(0x41), SUB, ...i32(8), LT_U, AND,
  GET, byte, ...i32(2), OR, ...i32(0x66), EQ, OR,
];
/** Whether the i64 on the stack is not zero, as an i32. */
const nonZero = [I64_EQZ, EQZ];
/** The bits below the lowest set bit of the i64 local `mask` (all of them when it has none). */
const belowLowest = (mask: number): number[] => [GET, mask, ...i64(0), GET, mask, I64_SUB, I64_AND, ...i64(1), I64_SUB];
/** The bits above the highest set bit of the i64 local `mask`, which has one. */
const aboveHighest = (mask: number): number[] => [...i64(-2), ...i64(63), GET, mask, I64_CLZ, I64_SUB, I64_SHL];

/**
 * Looks at the lines of bytes [$from, $end) ($from at a line start), 64 bytes a turn, and returns
 * the offset just after the last LF ($from when there is none). At $out it writes the line breaks
 * of the lines up to there, counted as LineSplitter counts them (an LF or a CR run before one, a
 * lone CR run, a row move), or -1 when one of those lines has a "{" and also a control byte or
 * may be the first row of a wrapped object (rejoin.ts): such a line must go through the splitter.
 *
 * Each turn makes 64-bit masks of the LFs, "{"s, CRs and controls. LFs are counted, not visited:
 * the bytes walked one by one are the controls but a CR just before an LF (escapes, lone CRs), and
 * the end of each line that starts with "{". A line's "{" and its control bytes meet through
 * masks: the state carried from turn to turn is the open line's (whether it has a "{", a control
 * byte, where it starts). Before, a scan listed every LF, "{" and control byte (about 100 in 4 KB
 * of the flood) and a second function walked the list: in a loop that keeps the cache warm that
 * was a tenth faster (710 against 820 ns a 4 KB read), but between `run`'s reads, where code and
 * bytes come back cold and the walk's branches cost most, capture took 4.8 µs a read against 4.1.
 */
const shape = (): number[] => {
  const [$from, $end, $out] = [0, 1, 2];
  const [$i, $breaks, $tail, $lineStart, $brace, $dirty, $failed, $last, $skipTo, $p, $k, $byte] = [3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14];
  const [$L, $O, $C, $R, $S, $D, $bits, $bit, $low, $high, $near] = [15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25];
  const [$v, $e] = [26, 26 + VECTORS];
  const [LF, CR, ESC, OPEN, CLOSE] = [0x0a, 0x0d, 0x1b, 0x7b, 0x7d];
  const vectors = [...Array(VECTORS).keys()];
  /** One bit a byte of the turn: `lane(k)` leaves vector k's lane mask. */
  const mask64 = (lane: (k: number) => number[]): number[] => [
    ...lane(0), ...BITMASK8, ...lane(1), ...BITMASK8, ...i32(16), SHL, OR, EXTEND_U,
    ...lane(2), ...BITMASK8, ...lane(3), ...BITMASK8, ...i32(16), SHL, OR, EXTEND_U, ...i64(32), I64_SHL, I64_OR,
  ];
  const here = [GET, $i, GET, $bit, WRAP, ADD];
  /** A break at the bit being walked: after the turn's last LF it may lie after the lines' end. */
  const breakHere = [...add($breaks, 1), ...when([GET, $L, ...i64(-2), GET, $bit, I64_SHL, I64_AND, I64_EQZ], add($tail, 1))];
  const dirtyHere = [GET, $D, ...i64(1), GET, $bit, I64_SHL, I64_OR, SET, $D];
  const fail = put($failed, 1);
  /** The line [start, LF at `end`) starts with "{": it fails unless its last byte but blanks is "}". */
  const wrappedCheck = (start: number[], end: number[]): number[] => [
    ...start, SET, $p, ...end, SET, $k,
    ...whilst([GET, $k, GET, $p, GT_U, ...load8([GET, $k, ...i32(1), SUB]), SET, $byte, ...oneOf($byte, [0x20, 0x09, CR]), AND], add($k, -1)),
    ...when([...load8([GET, $k, ...i32(1), SUB]), ...i32(CLOSE), NE], fail),
  ];
  // The controls to walk (a CR just before an LF is nothing but part of the line break), in order.
  const walk = eachBit($bits, $bit, [
    ...here, SET, $p,
    ...when([GET, $p, GET, $skipTo, GE_U], [
      ...load8([GET, $p]), SET, $byte,
      ...when([GET, $byte, ...i32(CR), EQ], [
        GET, $p, ...i32(1), ADD, SET, $k,
        ...whilst([...load8([GET, $k]), ...i32(CR), EQ], add($k, 1)),
        // The run's other CRs are bits of their own: passed over.
        GET, $k, SET, $skipTo,
        // A CR run before an LF is part of that line break; any other is a break of its own.
        ...when([...load8([GET, $k]), ...i32(LF), NE], [...breakHere, ...dirtyHere]),
      ], [
        ...dirtyHere,
        // A row move LineSplitter breaks lines at: ESC D/E/M, or CSI [0-9;]* A/B/E/F/H/d/f.
        ...when([GET, $byte, ...i32(ESC), EQ], [
          ...load8([GET, $p], 1), SET, $byte,
          ...when([GET, $byte, ...i32(0x5b), NE], when(oneOf($byte, [0x44, 0x45, 0x4d]), breakHere), [
            GET, $p, ...i32(2), ADD, SET, $k,
            ...whilst([...load8([GET, $k]), SET, $byte, GET, $byte, ...i32(0x30), SUB, ...i32(10), LT_U, GET, $byte, ...i32(0x3b), EQ, OR], add($k, 1)),
            ...when(rowMoveFinal($byte), breakHere),
          ]),
        ]),
      ]),
    ]),
  ]);
  // Lines with both a "{" and a control byte. The open line's flags meet the turn's bits up to
  // its first LF; each dirty bit between the first and last LF meets the "{"s of its own line.
  const braces = [
    ...belowLowest($L), SET, $low,
    ...when([GET, $L, ...nonZero], [
      ...when([
        GET, $brace, GET, $O, GET, $low, I64_AND, ...nonZero, OR,
        GET, $dirty, GET, $D, GET, $low, I64_AND, ...nonZero, OR, AND,
      ], fail),
      ...aboveHighest($L), SET, $high,
      // (Only where a "{" lies between them too: most rows of a screen have none.)
      GET, $low, GET, $high, I64_OR, ...i64(-1), I64_XOR, SET, $near,
      ...i64(0), GET, $D, GET, $near, I64_AND, GET, $O, GET, $near, I64_AND, I64_EQZ, SELECT, SET, $bits,
      ...eachBit($bits, $bit, [
        // The bits from the LF before the bit to the LF after it.
        GET, $L, ...i64(-2), GET, $bit, I64_SHL, I64_AND, SET, $near,
        ...belowLowest($near),
        GET, $L, ...i64(1), GET, $bit, I64_SHL, ...i64(1), I64_SUB, I64_AND, SET, $near,
        ...aboveHighest($near), I64_AND,
        GET, $O, I64_AND, ...nonZero, IF, EMPTY, ...fail, END,
      ]),
      GET, $O, GET, $high, I64_AND, ...nonZero, SET, $brace,
      GET, $D, GET, $high, I64_AND, ...nonZero, SET, $dirty,
    ], [
      GET, $brace, GET, $O, ...nonZero, OR, SET, $brace,
      GET, $dirty, GET, $D, ...nonZero, OR, SET, $dirty,
    ]),
  ];
  // Lines that start with "{": the open one, when the turn ends it, and those after an LF in it.
  const wrapped = when([GET, $L, ...nonZero], [
    ...when([...load8([GET, $lineStart]), ...i32(OPEN), EQ], wrappedCheck([GET, $lineStart], [GET, $i, GET, $L, I64_CTZ, WRAP, ADD])),
    GET, $O, GET, $L, ...i64(1), I64_SHL, I64_AND, SET, $bits,
    ...eachBit($bits, $bit, [
      GET, $L, ...i64(-1), GET, $bit, I64_SHL, I64_AND, SET, $near,
      ...when([GET, $near, ...nonZero], wrappedCheck(here, [GET, $i, GET, $near, I64_CTZ, WRAP, ADD])),
    ]),
  ]);
  return [
    3, 12, I32, 11, I64, 2 * VECTORS, V128,
    GET, $from, SET, $i, GET, $from, SET, $lineStart, GET, $from, SET, $last,
    // The last loads of the chunk read up to 64 bytes past its end: make them bytes never found.
    ...[...Array(PAD_BYTES / 16).keys()].flatMap((k) => [GET, $end, ...splat(0x20), ...V_STORE, 0, ...leb(16 * k)]),
    BLOCK, EMPTY, LOOP, EMPTY,
    GET, $i, GET, $end, GE_U, BR_IF, 1,
    ...vectors.flatMap((k) => [GET, $i, ...V_LOAD, 0, ...leb(16 * k), SET, $v + k, ...shapeBytes($v + k), SET, $e + k]),
    ...vectors.flatMap((k) => (k === 0 ? [GET, $e] : [GET, $e + k, ...V_OR])), ...ANY_TRUE,
    IF, EMPTY,
    ...mask64((k) => compare(EQ8, LF, $v + k)), SET, $L,
    ...mask64((k) => compare(EQ8, OPEN, $v + k)), SET, $O,
    ...mask64((k) => compare(EQ8, CR, $v + k)), SET, $R,
    // The controls: what shapeBytes found but LFs and "{"s.
    ...mask64((k) => [GET, $e + k]), GET, $L, GET, $O, I64_OR, ...i64(-1), I64_XOR, I64_AND, SET, $C,
    // A CR just before an LF (the byte after the turn's last is the next turn's first).
    GET, $C,
    GET, $R, GET, $L, ...i64(1), I64_SHR_U, ...load8([GET, $i], 64), ...i32(LF), EQ, EXTEND_U, ...i64(63), I64_SHL, I64_OR, I64_AND,
    ...i64(-1), I64_XOR, I64_AND, SET, $S,
    ...when([GET, $failed, EQZ], [
      ...when([GET, $L, ...nonZero], put($tail, 0)),
      ...i64(0), SET, $D,
      GET, $S, SET, $bits,
      ...walk,
      ...braces,
      ...wrapped,
    ]),
    ...when([GET, $L, ...nonZero], [
      GET, $breaks, GET, $L, I64_POPCNT, WRAP, ADD, SET, $breaks,
      GET, $i, ...i32(64), ADD, GET, $L, I64_CLZ, WRAP, SUB, SET, $last,
      GET, $last, SET, $lineStart,
    ]),
    END,
    GET, $i, ...i32(16 * VECTORS), ADD, SET, $i,
    BR, 0,
    END, END,
    GET, $out, ...i32(-1), GET, $breaks, GET, $tail, SUB, GET, $failed, SELECT, STORE, 2, 0,
    GET, $last,
    END,
  ];
};

/** Compares the place $p with the needle of every slot below $k, and counts it as above. */
const verify = (): number[] => {
  const [$p, $k] = [0, 2];
  const [$j, $slot, $limit, $same, $differ] = [3, 4, 5, 6, 7];
  const here = (index: number): number[] => field([GET, $slot], index);
  const min = (x: number[], y: number[]): number[] => [...x, ...y, ...x, ...y, LT_U, SELECT];
  const store = (index: number, value: number[]): number[] => [GET, $slot, ...value, STORE, 2, ...leb(4 * index)];
  return [
    1, 5, I32,
    ...i32(SLOTS_AT), SET, $slot,
    BLOCK, EMPTY, LOOP, EMPTY,
    GET, $j, GET, $k, GE_U, BR_IF, 1,
    ...min(here(2), [GET, $end, GET, $p, SUB]), SET, $limit,
    BLOCK, EMPTY,
    GET, $limit, ...here(1), LT_U, BR_IF, 0,
    ...i32(0), SET, $same, ...i32(0), SET, $differ,
    BLOCK, EMPTY, LOOP, EMPTY,
    GET, $same, GET, $limit, GE_U, BR_IF, 1,
    GET, $p, GET, $same, ADD, ...V_LOAD, 0, 0, ...here(0), GET, $same, ADD, ...V_LOAD, 0, 0, ...NE8, ...BITMASK8, SET, $differ,
    GET, $differ, BR_IF, 1,
    GET, $same, ...i32(16), ADD, SET, $same,
    BR, 0,
    END, END,
    // The bytes that agree: up to the first lane that differs, at most $limit.
    GET, $same, GET, $differ, CTZ, ADD, GET, $same, GET, $differ, SELECT, SET, $same,
    ...min([GET, $same], [GET, $limit]), SET, $same,
    GET, $same, ...here(1), LT_U, BR_IF, 0,
    ...store(3, [...here(3), ...i32(1), ADD]),
    ...store(4, [...here(4), GET, $same, ...here(2), LT_U, ADD]),
    END,
    GET, $j, ...i32(1), ADD, SET, $j,
    GET, $slot, ...i32(4 * SLOT_FIELDS), ADD, SET, $slot,
    BR, 0,
    END, END,
    ...i32(0),
    END,
  ];
};

/** Unsigned LEB128: sizes, counts, opcodes. */
function leb(value: number): number[] {
  const out: number[] = [];
  do {
    const low = value & 0x7f;
    value >>>= 7;
    out.push(value === 0 ? low : low | 0x80);
  } while (value !== 0);
  return out;
}

/** Signed LEB128, which `i32.const` takes: 64 in one byte would read as -64. */
function sleb(value: number): number[] {
  const out: number[] = [];
  for (;;) {
    const low = value & 0x7f;
    value >>= 7;
    if ((value === 0 && (low & 0x40) === 0) || (value === -1 && (low & 0x40) !== 0)) return [...out, low];
    out.push(low | 0x80);
  }
}

const vector = (items: number[]): number[] => [...leb(items.length), ...items];
const section = (id: number, content: number[]): number[] => [id, ...vector(content)];
const name = (text: string): number[] => vector([...Buffer.from(text, "latin1")]);

/** The module's bytes, assembled: what the bundle embeds (scripts/bundle.mjs). */
export const assembleControlScan = (): Uint8Array => new Uint8Array([
  0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00, // "\0asm", version 1
  // types: 0 (i32, i32, i32) -> i32
  ...section(1, [1, 0x60, 3, I32, I32, I32, 1, I32]),
  ...section(3, [4 + SLOTS, ...new Array<number>(4 + SLOTS).fill(0)]), // every function has type 0
  ...section(5, [1, 0x00, ...leb(PAGES)]), // memory: PAGES, no maximum
  ...section(7, [
    4 + SLOTS, ...name("scan"), 0x00, 0, ...name("shape"), 0x00, 1, ...name("memory"), 0x02, 0,
    ...[...Array(SLOTS).keys()].flatMap((s) => [...name(`tally${s + 1}`), 0x00, VERIFY + 1 + s]),
    ...name("find"), 0x00, VERIFY + 1 + SLOTS,
  ]),
  ...section(10, [4 + SLOTS, ...vector(body(CONTROLS)), ...vector(shape()), ...vector(verify()),
    ...[...Array(SLOTS).keys()].flatMap((s) => vector(tally(s + 1))), ...vector(find())]),
]);

// The bundle defines this as the module's bytes in base64, assembled when it was built: done in
// JavaScript at run time, by code run once and so never optimised, it took 5-8 ms of the first
// scanner (`sessionpin run` makes it at the agent's first output), the compile 1-2 ms. Undefined
// outside the bundle (tsc's output, the tests), which assemble the bytes themselves.
declare const SESSIONPIN_CONTROL_SCAN: string | undefined;

// The project's lib (ES2023, no DOM) has no WebAssembly types; Node has the API.
interface Wasm {
  Module: new (bytes: Uint8Array) => object;
  Instance: new (module: object) => { readonly exports: Record<string, unknown> };
}
const wasm = (globalThis as unknown as { WebAssembly: Wasm }).WebAssembly;
let compiled: object | undefined;

/** The most bytes one `scan` takes. */
export const CONTROL_SCAN_BYTES = INPUT_BYTES;
// Results of fewer offsets than this get a view kept for their count (a 4 KB read of the flood has ~50).
const VIEWS = 1024;

type ScanFunction = (from: number, end: number, out: number) => number;

/** One scanner per reader: it owns a small WebAssembly memory the bytes are scanned in. */
export class ControlScan {
  readonly #scan: ScanFunction;
  readonly #shape: ScanFunction;
  /** The tally for k slots at k - 1. */
  readonly #tallies: ScanFunction[];
  readonly #find: ScanFunction;
  readonly #needleMemory: Buffer;
  /** Where each needle `tally` was given is in the memory, and where the next one goes. */
  #needles = new Map<string, number>();
  #needlesEnd = NEEDLES_AT;
  /** How often the needles' room was emptied: a slot placed before the last time is stale. */
  #emptied = 0;
  readonly #slots: Int32Array;
  /** Which needle each used slot holds. */
  readonly #slotNeedle = new Int32Array(SLOTS);
  #tallied = new Int32Array(SLOTS);
  /**
   * The needles the slots hold, all of them, placed by the last call: any other call places its
   * own (and only such a call empties the room they are written in).
   */
  #slotsFor: readonly Needle[] | undefined;
  /** The span `lines` answers for (its one object is handed out again by each call). */
  #linesFrom = 0;
  #linesTo = 0;
  readonly #lines: LinesBytes = {
    includes: (byte) => this.includes(byte, this.#linesFrom, this.#linesTo),
    tally: (needles) => this.tally(needles, this.#linesFrom, this.#linesTo),
  };
  readonly #memory: Uint8Array;
  readonly #found: Int32Array;
  /** Where `shape` leaves its count of line breaks. */
  readonly #shaped: Int32Array;
  readonly #foundViews: Int32Array[] = [];
  /**
   * Read into this to have the bytes scanned where they lie; any other chunk is copied in. A scan
   * overwrites the 64 bytes after its chunk here.
   */
  readonly input: Buffer;
  /** The most bytes one `scan` takes (CONTROL_SCAN_BYTES). */
  readonly maxBytes = INPUT_BYTES;

  constructor() {
    compiled ??= new wasm.Module(typeof SESSIONPIN_CONTROL_SCAN === "string" ? Buffer.from(SESSIONPIN_CONTROL_SCAN, "base64") : assembleControlScan());
    const { exports } = new wasm.Instance(compiled);
    const memory = exports["memory"] as { readonly buffer: ArrayBuffer };
    this.#scan = exports["scan"] as ScanFunction;
    this.#shape = exports["shape"] as ScanFunction;
    this.#find = exports["find"] as ScanFunction;
    this.#tallies = Array.from({ length: SLOTS }, (_, s) => exports[`tally${s + 1}`] as ScanFunction);
    this.#needleMemory = Buffer.from(memory.buffer, NEEDLES_AT, NEEDLE_BYTES);
    this.#slots = new Int32Array(memory.buffer, SLOTS_AT, SLOTS * SLOT_FIELDS);
    this.#memory = new Uint8Array(memory.buffer);
    this.#found = new Int32Array(memory.buffer, OUTPUT_AT, INPUT_BYTES);
    this.#shaped = new Int32Array(memory.buffer, SHAPE_AT, 1);
    this.input = Buffer.from(memory.buffer, 0, INPUT_BYTES);
  }

  /**
   * The offsets in `chunk` (at most CONTROL_SCAN_BYTES) of such bytes, in order. A view of this
   * scanner's memory: valid until the next call.
   */
  scan(chunk: Uint8Array): Int32Array {
    return this.#view(this.#run(this.#scan, chunk, OUTPUT_AT));
  }

  /**
   * Looks at the lines of `chunk` (at most CONTROL_SCAN_BYTES) from `from` on, where a line starts,
   * and returns the offset just after the last LF (`from` when there is none): what a run of
   * whole lines is told from by the skim (skim.ts), without a string made of each line.
   * `breaks` then says how many line breaks those lines hold.
   */
  shape(chunk: Uint8Array, from: number, end = chunk.length): number {
    return this.#run(this.#shape, chunk, SHAPE_AT, from, end);
  }

  /**
   * The line breaks of the whole lines `shape` looked at last, counted as LineSplitter counts
   * them; undefined when a line there must go through the splitter (skim.ts).
   */
  get breaks(): number | undefined {
    const breaks = this.#shaped[0] ?? -1;
    return breaks < 0 ? undefined : breaks;
  }

  /**
   * For each needle, in bytes [from, to) of the chunk last scanned: the places its first `counted`
   * bytes start at, or -1 when the rest of it does not follow one of them. Up to SLOTS needles
   * are looked for in one pass. This scanner's own array, its first `needles.length` entries;
   * valid until the next call. The same array asked again must hold the same needles.
   */
  tally(needles: readonly Needle[], from: number, to: number): Int32Array {
    // The skim asks the same needles of every read while a pin holds: their slots are still set.
    if (needles === this.#slotsFor) {
      this.#tallySlots(needles.length, from, to);
      return this.#tallied;
    }
    this.#slotsFor = undefined;
    if (this.#tallied.length < needles.length) this.#tallied = new Int32Array(needles.length);
    const tallied = this.#tallied;
    const pass = (used: number): void => {
      this.#place(needles, used);
      this.#tallySlots(used, from, to);
    };
    let used = 0;
    let slotted = 0;
    for (let index = 0; index < needles.length; index++) {
      const needle = needles[index] as Needle;
      if (needle.counted < 1 || needle.counted > needle.bytes.length) throw new RangeError(`a needle counts 1 to ${needle.bytes.length} of its bytes, not ${needle.counted}`);
      if (needle.counted < 2 || needle.bytes.length > NEEDLE_BYTES / SLOTS) {
        tallied[index] = this.#tallyInBuffer(needle, from, to);
        continue;
      }
      this.#slotNeedle[used++] = index;
      slotted++;
      if (used === SLOTS) {
        pass(used);
        used = 0;
      }
    }
    if (used > 0) pass(used);
    // One pass took them all: the slots stay set for the next call with the same needles.
    if (slotted === needles.length && slotted <= SLOTS) this.#slotsFor = needles;
    return tallied;
  }

  /**
   * Whether `byte` (one latin1 character) is anywhere in bytes [from, to) of the chunk last
   * scanned. In WebAssembly: Buffer's `indexOf` is a `memchr`, but its way there from JavaScript
   * cost as much as a skim's other questions together.
   */
  includes(byte: string, from: number, to: number): boolean {
    if (byte.length !== 1) throw new RangeError(`includes looks for one byte, not ${JSON.stringify(byte)}`);
    return this.#find(from, to, byte.charCodeAt(0)) !== -1;
  }

  /** Bytes [from, to) of the chunk last scanned, searched as above: valid until the next call. */
  lines(from: number, to: number): LinesBytes {
    this.#linesFrom = from;
    this.#linesTo = to;
    return this.#lines;
  }

  /** One pass for the needles the first `used` slots hold. */
  #tallySlots(used: number, from: number, to: number): void {
    const slots = this.#slots;
    for (let s = 0; s < used; s++) {
      const at = s * SLOT_FIELDS;
      slots[at + 3] = 0;
      slots[at + 4] = 0;
    }
    (this.#tallies[used - 1] as ScanFunction)(from, to, used);
    for (let s = 0; s < used; s++) {
      const at = s * SLOT_FIELDS;
      this.#tallied[this.#slotNeedle[s] ?? 0] = (slots[at + 4] ?? 0) > 0 ? -1 : slots[at + 3] ?? 0;
    }
  }

  /** Writes the needles of the first `used` slots into them. */
  #place(needles: readonly Needle[], used: number): void {
    const slots = this.#slots;
    // Each needle at most a SLOTS-th of the room: one emptying leaves room for all of them.
    for (let emptied = -1; emptied !== this.#emptied;) {
      emptied = this.#emptied;
      for (let s = 0; s < used; s++) {
        const needle = needles[this.#slotNeedle[s] ?? 0] as Needle;
        const at = s * SLOT_FIELDS;
        slots[at] = this.#placed(needle.bytes);
        slots[at + 1] = needle.counted;
        slots[at + 2] = needle.bytes.length;
      }
    }
  }

  /** The needle's place in the memory, where it was written the first time it was asked for. */
  #placed(needle: string): number {
    const known = this.#needles.get(needle);
    if (known !== undefined) return known;
    if (this.#needlesEnd + needle.length > NEEDLES_AT + NEEDLE_BYTES) {
      this.#needles.clear();
      this.#needlesEnd = NEEDLES_AT;
      this.#emptied++;
    }
    const at = this.#needlesEnd;
    this.#needleMemory.write(needle, at - NEEDLES_AT, "latin1");
    this.#needles.set(needle, at);
    this.#needlesEnd += needle.length;
    return at;
  }

  /** The same, for a needle the slots do not take (one byte counted, or longer than a slot's room). */
  #tallyInBuffer({ bytes, counted }: Needle, from: number, to: number): number {
    const span = this.input.subarray(0, to);
    const head = bytes.slice(0, counted);
    let places = 0;
    for (let at = span.indexOf(head, from, "latin1"); at !== -1; at = span.indexOf(head, at + 1, "latin1")) {
      places++;
      if (counted < bytes.length && (at + bytes.length > to || span.toString("latin1", at, at + bytes.length) !== bytes)) return -1;
    }
    return places;
  }

  /**
   * The first `count` offsets `scan` found, a view made once for each count up to VIEWS: a scan
   * comes with every piece whose lines are read, and a new view each time (with the young
   * collections it brought) was a twentieth of capture's time when every read was scanned.
   */
  #view(count: number): Int32Array {
    if (count >= VIEWS) return this.#found.subarray(0, count);
    return (this.#foundViews[count] ??= this.#found.subarray(0, count));
  }

  /** Runs `scan` over the chunk's first `end` bytes, copied in unless they are this scanner's input. */
  #run(scan: ScanFunction, chunk: Uint8Array, out: number, from = 0, end = chunk.length): number {
    if (end > INPUT_BYTES) throw new RangeError(`ControlScan takes at most ${INPUT_BYTES} bytes at a time, got ${end}`);
    if (chunk.buffer !== this.#memory.buffer || chunk.byteOffset !== 0) this.#memory.set(end === chunk.length ? chunk : chunk.subarray(0, end));
    return scan(from, end, out);
  }
}
