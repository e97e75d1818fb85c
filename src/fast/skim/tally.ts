/**
 * How often a few needles occur in a span of a read, in WebAssembly (module.ts): the skim's
 * questions of a run of lines (lines-clues.ts) in one pass, and the first place of one byte.
 */
import { I32, V128, EMPTY, BLOCK, LOOP, END, BR, BR_IF, GET, SET, RETURN, CALL, DROP, SELECT, LT_U, GE_U, CTZ, ADD, SUB, LOAD, LOAD8_U, STORE, V_LOAD, EQ8, NE8, SPLAT8, V_AND, V_OR, BITMASK8, i32, VECTORS, turns, clearLowest, leb, $i, $end } from "./wasm.js";
import { SLOTS_AT, SLOT_FIELDS } from "./layout.js";

// The tally functions count, in one pass over a span, the places of up to SLOTS needles (written
// into the memory once; a table of slots says where each is). Each needle's prefilter is three of
// its bytes (its first, its second, and the one before the end of the part counted, inside a JSON
// string's quotes); a place any prefilter marks is compared with every needle, 16 bytes at a time.
// A slot counts the places of its needle's first `counted` bytes and, of those, the misses: places
// not followed by the rest of it (the skim asks whether a key is followed by the pinned ID
// everywhere). One vector a turn below; the code does four, with one test for all first, as
// `shape` does. There is a function for each number of slots, and one that compares a place:
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

// The module's second function (module.ts): the tally functions call it for each place they find.
export const VERIFY = 1;

// Fields of a slot: 0 the needle's address, 1 the bytes counted, 2 its whole length, 3 places, 4 misses.
const field = (slot: number[], index: number): number[] => [...slot, LOAD, 2, ...leb(4 * index)];

/** The tally above for `k` slots: their prefilters, VECTORS places of 16 a turn, one test for all first. */
export const tally = (k: number): number[] => {
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
export const find = (): number[] => {
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


/** Compares the place $p with the needle of every slot below $k, and counts it as above. */
export const verify = (): number[] => {
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

