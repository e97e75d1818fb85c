/**
 * What the skim's WebAssembly (module.ts) is written with, by hand: the opcodes it uses, LEB128,
 * and helpers that each return the bytes of an instruction sequence (the module is ~4 KB; a WAT
 * toolchain would be a dependency for a few functions).
 */

export const I32 = 0x7f;
export const I64 = 0x7e;
export const V128 = 0x7b;
export const EMPTY = 0x40;
export const [BLOCK, LOOP, IF, ELSE, END, BR, BR_IF] = [0x02, 0x03, 0x04, 0x05, 0x0b, 0x0c, 0x0d];
export const [GET, SET] = [0x20, 0x21];
export const [RETURN, CALL, DROP, SELECT] = [0x0f, 0x10, 0x1a, 0x1b];
export const [EQZ, EQ, NE, LT_U, GT_U, GE_U, CTZ, ADD, SUB, AND, OR, SHL, SHR_U, LOAD, LOAD8_U, STORE] = [0x45, 0x46, 0x47, 0x49, 0x4b, 0x4f, 0x68, 0x6a, 0x6b, 0x71, 0x72, 0x74, 0x76, 0x28, 0x2d, 0x36];
export const [I64_EQZ, I64_CLZ, I64_CTZ, I64_POPCNT, I64_SUB, I64_AND, I64_OR, I64_XOR, I64_SHL, I64_SHR_U, WRAP, EXTEND_U] =
  [0x50, 0x79, 0x7a, 0x7b, 0x7d, 0x83, 0x84, 0x85, 0x86, 0x88, 0xa7, 0xad];
const simd = (op: number): number[] => [0xfd, ...leb(op)];
export const V_LOAD = simd(0x00);
export const V_STORE = simd(0x0b);
export const V_CONST = simd(0x0c);
export const EQ8 = simd(0x23);
export const NE8 = simd(0x24);
export const LT8_U = simd(0x26);
export const SPLAT8 = simd(0x0f);
export const V_AND = simd(0x4e);
export const V_AND_NOT = simd(0x4f);
export const V_OR = simd(0x50);
export const ANY_TRUE = simd(0x53);
export const BITMASK8 = simd(0x64);
// $i and $end: every function's first two parameters, the span it looks at.
export const [$i, $end] = [0, 1];
export const i32 = (value: number): number[] => [0x41, ...sleb(value)];
export const i64 = (value: number): number[] => [0x42, ...sleb(value)];
export const splat = (byte: number): number[] => [...V_CONST, ...new Array<number>(16).fill(byte)];
export const compare = (op: number[], byte: number, v: number): number[] => [GET, v, ...splat(byte), ...op];

/** Vectors of 16 bytes a turn of each function's loop, with one test for all of them first. */
export const VECTORS = 4;

/**
 * The loop the functions share: from $i to $end, VECTORS vectors of 16 bytes a turn. `mask(k)`
 * leaves vector k's lane mask, kept in local $m + k; when any lane of the turn is set, `lane(k)`
 * runs once for each set lane of vector k, with the lanes left in local $bits (the lowest is the
 * one to take: `ctz`), and clears it.
 */
export const turns = (mask: (k: number) => number[], lane: (k: number) => number[], $m: number, $bits: number): number[] => {
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
export const clearLowest = ($bits: number): number[] => [GET, $bits, GET, $bits, ...i32(1), SUB, AND, SET, $bits];

// Structured control flow for the hand-written functions below: no branch leaves a `when` or a
// `whilst` but their own, so they nest freely.
export const when = (test: number[], then: number[], otherwise?: number[]): number[] =>
  [...test, IF, EMPTY, ...then, ...(otherwise === undefined ? [] : [ELSE, ...otherwise]), END];
/** Repeats `step` while `test` holds. */
export const whilst = (test: number[], step: number[]): number[] => [BLOCK, EMPTY, LOOP, EMPTY, ...test, EQZ, BR_IF, 1, ...step, BR, 0, END, END];
/** Runs `step` for each set bit of the i64 local `bits`, lowest first, with its index in the i64 local `bit`; clears them. */
export const eachBit = (bits: number, bit: number, step: number[]): number[] => [
  BLOCK, EMPTY, LOOP, EMPTY,
  GET, bits, I64_EQZ, BR_IF, 1,
  GET, bits, I64_CTZ, SET, bit,
  GET, bits, GET, bits, ...i64(1), I64_SUB, I64_AND, SET, bits,
  ...step,
  BR, 0,
  END, END,
];
export const load8 = (address: number[], offset = 0): number[] => [...address, LOAD8_U, 0, ...leb(offset)];
export const add = (local: number, value: number): number[] => [GET, local, ...i32(value), ADD, SET, local];
export const put = (local: number, value: number): number[] => [...i32(value), SET, local];
export const oneOf = (local: number, values: readonly number[]): number[] =>
  values.flatMap((value, index) => [GET, local, ...i32(value), EQ, ...(index === 0 ? [] : [OR])]);

/** Unsigned LEB128: sizes, counts, opcodes. */
export function leb(value: number): number[] {
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

export const vector = (items: number[]): number[] => [...leb(items.length), ...items];
export const section = (id: number, content: number[]): number[] => [id, ...vector(content)];
export const name = (text: string): number[] => vector([...Buffer.from(text, "latin1")]);
