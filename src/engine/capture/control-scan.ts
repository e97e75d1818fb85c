/**
 * Where the bytes that could make a line need cleaning are (`MAYBE_CONTROL_BYTES` of clean.ts but
 * LF, which never lies inside a line: controls but tab, DEL, and 0xc2, which leads a C1 control),
 * found 64 bytes at a time with WebAssembly SIMD. A regex with that class ran at 1.1-1.7 GB/s and was a quarter of a replay
 * worker's time; JavaScript has no faster search for a class of bytes. Lines with none of these
 * bytes are known clean; the others still get the exact test. The same memory answers how often
 * a needle occurs in a span of the chunk (`count`), for the skim's questions (relevance-lines.ts).
 */

import type { LinesBytes } from "./pipeline.js";

/** The most bytes one call scans (a replay read). */
const INPUT_BYTES = 64 * 1024;
// The last loads of a chunk read up to 63 bytes past it: here, set to bytes the scan never finds.
const PAD_BYTES = 64;
const OUTPUT_AT = INPUT_BYTES + PAD_BYTES;
// Where `events` writes its offsets: every byte of a chunk may be one, 4 bytes each.
const EVENTS_AT = OUTPUT_AT + 4 * INPUT_BYTES;
// Where `count` finds its needles: each written once, while they fit (a new pinned ID makes new ones).
const NEEDLES_AT = EVENTS_AT + 4 * INPUT_BYTES;
const NEEDLE_BYTES = 16 * 1024;
const PAGE_BYTES = 64 * 1024;
const PAGES = Math.ceil((NEEDLES_AT + NEEDLE_BYTES) / PAGE_BYTES);

// The module, written out by hand (it is ~3 KB; a WAT toolchain would be a dependency for
// three functions). Their text form:
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
//     ;; "events" takes every byte below 0x20 but tab (LF too), 0x7f, 0xc2 and "{" (0x7b)
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
// replay transcript, 0.19 CPU s/GB, where one vector a turn (and `events` as `scan` plus two
// compares) took 0.33.
//
// A third function counts the places a needle (written into the memory once, at $needle) starts
// at in a span: it finds where three of its bytes stand, and compares each such place with the
// whole needle. One vector a turn below; the code does four, with one test for all first, as
// `scan` does:
//
// (func (export "count") (param $i i32) (param $end i32) (param $needle i32) (param $length i32)
//   (result i32) ;; $end: one past the last place the needle can start at; $length >= 2
//   (local $n i32) (local $found i32) (local $at i32) (local $k i32) (local $d i32)
//   (local $a v128) (local $b v128) (local $c v128)
//   (local.set $d (i32.sub $length 2))
//   ;; its first byte, its second, and the one before its last (inside a JSON string's quotes)
//   (local.set $a (i8x16.splat (i32.load8_u $needle)))
//   (local.set $b (i8x16.splat (i32.load8_u offset=1 $needle)))
//   (local.set $c (i8x16.splat (i32.load8_u (i32.add $needle $d))))
//   (block $done (loop $next
//     (br_if $done (i32.ge_u $i $end))
//     (local.set $found (i8x16.bitmask (v128.and (v128.and
//       (i8x16.eq (v128.load $i) $a) (i8x16.eq (v128.load offset=1 $i) $b))
//       (i8x16.eq (v128.load (i32.add $i $d)) $c))))
//     (block $places (loop $place
//       (br_if $places (i32.eqz $found))
//       (local.set $at (i32.add $i (i32.ctz $found)))
//       (local.set $found (i32.and $found (i32.sub $found 1)))
//       (br_if $places (i32.ge_u $at $end))
//       (local.set $k (i32.const 0))
//       (block $differs (loop $byte
//         (br_if $differs (i32.ge_u $k $length))
//         (br_if $differs (i32.ne (i32.load8_u (i32.add $at $k)) (i32.load8_u (i32.add $needle $k))))
//         (local.set $k (i32.add $k 1))
//         (br $byte)))
//       (local.set $n (i32.add $n (i32.eq $k $length)))
//       (br $place)))
//     (local.set $i (i32.add $i 16))
//     (br $next)))
//   $n)
//
// Searches of the lines' latin1 string stop at every place of the first character they look for:
// for `"result"` (what confirms a provisional Amp pin) at every "u" of the text. The string
// and its searches were 0.4-0.8 wall s/GB of capture over the flood in a loop.
const I32 = 0x7f;
const V128 = 0x7b;
const EMPTY = 0x40;
const [BLOCK, LOOP, IF, END, BR, BR_IF] = [0x02, 0x03, 0x04, 0x0b, 0x0c, 0x0d];
const [GET, SET] = [0x20, 0x21];
const [EQZ, EQ, NE, GE_U, CTZ, ADD, SUB, AND, SHL, LOAD8_U, STORE] = [0x45, 0x46, 0x47, 0x4f, 0x68, 0x6a, 0x6b, 0x71, 0x74, 0x2d, 0x36];
const simd = (op: number): number[] => [0xfd, ...leb(op)];
const V_LOAD = simd(0x00);
const V_CONST = simd(0x0c);
const EQ8 = simd(0x23);
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
const splat = (byte: number): number[] => [...V_CONST, ...new Array<number>(16).fill(byte)];
const compare = (op: number[], byte: number): number[] => [GET, $v, ...splat(byte), ...op];

const VECTORS = 4;

/** The class above, as a lane mask of the vector in $v. */
const CONTROLS = [
  ...compare(LT8_U, 0x20),
  GET, $v, ...splat(0x09), ...SUB8, ...splat(2), ...LT8_U, ...V_AND_NOT,
  ...compare(EQ8, 0x7f), ...V_OR, ...compare(EQ8, 0xc2), ...V_OR,
];
/** What `events` finds: the class, every LF and "{" (so every byte below 0x20 but tab). */
const EVENTS = [
  ...compare(LT8_U, 0x20), ...compare(EQ8, 0x09), ...V_AND_NOT,
  ...compare(EQ8, 0x7f), ...V_OR, ...compare(EQ8, 0xc2), ...V_OR, ...compare(EQ8, 0x7b), ...V_OR,
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

/** The needle count above, VECTORS places of 16 a turn, one test for all of them first. */
const count = (): number[] => {
  const [$needle, $length, $n, $found, $at, $k, $d, $a, $b, $c, $m] = [2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12];
  const lanes = (at: number[], offset: number, vector: number): number[] => [...at, ...V_LOAD, 0, ...leb(offset), GET, vector, ...EQ8];
  const byte = (at: number[], offset = 0): number[] => [...at, LOAD8_U, 0, offset];
  return [
    2, 5, I32, 3 + VECTORS, V128,
    GET, $length, ...i32(2), SUB, SET, $d,
    ...byte([GET, $needle]), ...SPLAT8, SET, $a,
    ...byte([GET, $needle], 1), ...SPLAT8, SET, $b,
    ...byte([GET, $needle, GET, $d, ADD]), ...SPLAT8, SET, $c,
    ...turns(
      (k) => [
        ...lanes([GET, $i], 16 * k, $a), ...lanes([GET, $i], 16 * k + 1, $b), ...V_AND,
        ...lanes([GET, $i, GET, $d, ADD], 16 * k, $c), ...V_AND,
      ],
      (k) => [
        GET, $i, ...i32(16 * k), ADD, GET, $found, CTZ, ADD, SET, $at,
        ...clearLowest($found),
        GET, $at, GET, $end, GE_U, BR_IF, 1,
        ...i32(0), SET, $k,
        BLOCK, EMPTY, LOOP, EMPTY,
        GET, $k, GET, $length, GE_U, BR_IF, 1,
        ...byte([GET, $at, GET, $k, ADD]), ...byte([GET, $needle, GET, $k, ADD]), NE, BR_IF, 1,
        GET, $k, ...i32(1), ADD, SET, $k,
        BR, 0,
        END, END,
        GET, $n, GET, $k, GET, $length, EQ, ADD, SET, $n,
      ],
      $m, $found,
    ),
    GET, $n,
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

// Assembled on first use: `sessionpin run` makes its first scanner after the agent started.
const moduleBytes = (): Uint8Array => new Uint8Array([
  0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00, // "\0asm", version 1
  // types: 0 (i32, i32, i32) -> i32, 1 (i32, i32, i32, i32) -> i32
  ...section(1, [2, 0x60, 3, I32, I32, I32, 1, I32, 0x60, 4, I32, I32, I32, I32, 1, I32]),
  ...section(3, [3, 0, 0, 1]), // functions 0 and 1 have type 0, function 2 type 1
  ...section(5, [1, 0x00, ...leb(PAGES)]), // memory: PAGES, no maximum
  ...section(7, [4, ...name("scan"), 0x00, 0, ...name("events"), 0x00, 1, ...name("count"), 0x00, 2, ...name("memory"), 0x02, 0]),
  ...section(10, [3, ...vector(body(CONTROLS)), ...vector(body(EVENTS)), ...vector(count())]),
]);

// The project's lib (ES2023, no DOM) has no WebAssembly types; Node has the API.
interface Wasm {
  Module: new (bytes: Uint8Array) => object;
  Instance: new (module: object) => { readonly exports: Record<string, unknown> };
}
const wasm = (globalThis as unknown as { WebAssembly: Wasm }).WebAssembly;
let compiled: object | undefined;

/** The most bytes one `scan` takes. */
export const CONTROL_SCAN_BYTES = INPUT_BYTES;

type ScanFunction = (from: number, end: number, out: number) => number;
type CountFunction = (from: number, end: number, needle: number, length: number) => number;

/** One scanner per reader: it owns a small WebAssembly memory the bytes are scanned in. */
export class ControlScan {
  readonly #scan: ScanFunction;
  readonly #events: ScanFunction;
  readonly #count: CountFunction;
  readonly #needleMemory: Buffer;
  /** Where each needle `count` was given is in the memory, and where the next one goes. */
  #needles = new Map<string, number>();
  #needlesEnd = NEEDLES_AT;
  /** The span `lines` answers for (its one object is handed out again by each call). */
  #linesFrom = 0;
  #linesTo = 0;
  readonly #lines: LinesBytes = {
    count: (needle) => this.count(needle, this.#linesFrom, this.#linesTo),
    includes: (needle) => this.includes(needle, this.#linesFrom, this.#linesTo),
  };
  readonly #memory: Uint8Array;
  readonly #found: Int32Array;
  readonly #eventsFound: Int32Array;
  /**
   * Read into this to have the bytes scanned where they lie; any other chunk is copied in. A scan
   * overwrites the 64 bytes after its chunk here.
   */
  readonly input: Buffer;
  /** The most bytes one `scan` takes (CONTROL_SCAN_BYTES). */
  readonly maxBytes = INPUT_BYTES;

  constructor() {
    compiled ??= new wasm.Module(moduleBytes());
    const { exports } = new wasm.Instance(compiled);
    const memory = exports["memory"] as { readonly buffer: ArrayBuffer };
    this.#scan = exports["scan"] as ScanFunction;
    this.#events = exports["events"] as ScanFunction;
    this.#count = exports["count"] as CountFunction;
    this.#needleMemory = Buffer.from(memory.buffer, NEEDLES_AT, NEEDLE_BYTES);
    this.#memory = new Uint8Array(memory.buffer);
    this.#found = new Int32Array(memory.buffer, OUTPUT_AT, INPUT_BYTES);
    this.#eventsFound = new Int32Array(memory.buffer, EVENTS_AT, INPUT_BYTES);
    this.input = Buffer.from(memory.buffer, 0, INPUT_BYTES);
  }

  /**
   * The offsets in `chunk` (at most CONTROL_SCAN_BYTES) of such bytes, in order. A view of this
   * scanner's memory: valid until the next call.
   */
  scan(chunk: Uint8Array): Int32Array {
    return this.#found.subarray(0, this.#run(this.#scan, chunk, OUTPUT_AT));
  }

  /**
   * The same, and the offsets of every LF and "{" among them: what a stretch of whole lines is
   * told from by `skimBreaks` (skim.ts) without a string made of each line. A view, valid until
   * the next `events` call; `scan`'s result stays.
   */
  events(chunk: Uint8Array): Int32Array {
    return this.#eventsFound.subarray(0, this.#run(this.#events, chunk, EVENTS_AT));
  }

  /**
   * The places in bytes [from, to) of the chunk last scanned where `needle` (a latin1 string: one
   * byte a character) starts.
   */
  count(needle: string, from: number, to: number): number {
    const length = needle.length;
    const end = to - length + 1;
    if (end <= from) return 0;
    if (length < 2 || length > NEEDLE_BYTES) return this.#countInBuffer(needle, from, to);
    return this.#count(from, end, this.#placed(needle), length);
  }

  /** Whether `needle` starts anywhere in bytes [from, to): `count`, or one `memchr` for one byte. */
  includes(needle: string, from: number, to: number): boolean {
    if (needle.length === 1) return this.input.subarray(0, to).indexOf(needle, from, "latin1") !== -1;
    return this.count(needle, from, to) > 0;
  }

  /** Bytes [from, to) of the chunk last scanned, searched as above: valid until the next call. */
  lines(from: number, to: number): LinesBytes {
    this.#linesFrom = from;
    this.#linesTo = to;
    return this.#lines;
  }

  /** The needle's place in the memory, where it was written the first time it was asked for. */
  #placed(needle: string): number {
    const known = this.#needles.get(needle);
    if (known !== undefined) return known;
    if (this.#needlesEnd + needle.length > NEEDLES_AT + NEEDLE_BYTES) {
      this.#needles.clear();
      this.#needlesEnd = NEEDLES_AT;
    }
    const at = this.#needlesEnd;
    this.#needleMemory.write(needle, at - NEEDLES_AT, "latin1");
    this.#needles.set(needle, at);
    this.#needlesEnd += needle.length;
    return at;
  }

  /** The same, for a needle `count` does not take (one byte, or longer than its room). */
  #countInBuffer(needle: string, from: number, to: number): number {
    if (needle === "") return 1;
    const span = this.input.subarray(0, to);
    let places = 0;
    for (let at = span.indexOf(needle, from, "latin1"); at !== -1; at = span.indexOf(needle, at + 1, "latin1")) places++;
    return places;
  }

  #run(scan: ScanFunction, chunk: Uint8Array, out: number): number {
    if (chunk.length > INPUT_BYTES) throw new RangeError(`ControlScan takes at most ${INPUT_BYTES} bytes at a time, got ${chunk.length}`);
    if (chunk.buffer !== this.#memory.buffer || chunk.byteOffset !== 0) this.#memory.set(chunk);
    // The last loads read up to 63 bytes past the end: make them bytes that are never found.
    this.#memory.fill(0x20, chunk.length, chunk.length + PAD_BYTES);
    return scan(0, chunk.length, out);
  }
}
