/**
 * The skim's look at a run of whole lines, in WebAssembly (module.ts): how many line breaks they
 * hold, counted as LineSplitter (src/engine/capture/lines.ts) counts them, or that one of them must
 * go through the splitter. The text form of its loop is long; the code says it step by step.
 */
import { I32, I64, V128, EMPTY, BLOCK, LOOP, IF, END, BR, BR_IF, GET, SET, SELECT, EQZ, EQ, NE, LT_U, GT_U, GE_U, ADD, SUB, AND, OR, SHL, SHR_U, STORE, I64_EQZ, I64_CLZ, I64_CTZ, I64_POPCNT, I64_SUB, I64_AND, I64_OR, I64_XOR, I64_SHL, I64_SHR_U, WRAP, EXTEND_U, V_LOAD, V_STORE, EQ8, LT8_U, V_AND_NOT, V_OR, ANY_TRUE, BITMASK8, i32, i64, splat, compare, VECTORS, when, whilst, eachBit, load8, add, put, oneOf, leb } from "./wasm.js";
import { PAD_BYTES } from "./layout.js";

/** What a line's shape depends on, in the vector in local `v`: the bytes cleaning looks at (controls but tab, DEL, 0xc2, which leads a C1 control), every LF and "{". */
const shapeBytes = (v: number): number[] => [
  ...compare(LT8_U, 0x20, v), ...compare(EQ8, 0x09, v), ...V_AND_NOT,
  ...compare(EQ8, 0x7f, v), ...V_OR, ...compare(EQ8, 0xc2, v), ...V_OR, ...compare(EQ8, 0x7b, v), ...V_OR,
];
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
export const shape = (): number[] => {
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

