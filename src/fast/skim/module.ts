import { find, tally, verify, VERIFY } from "./tally.js";
import { shape } from "./shape.js";
import { PAGES, SLOTS } from "./layout.js";
import { I32, leb, name, section, vector } from "./wasm.js";

/**
 * The skim's WebAssembly module, assembled: `shape` (shape.ts), then `verify`, a `tally` for each
 * number of slots up to SLOTS, and `find` (tally.ts), over one memory (layout.ts).
 */
const FUNCTIONS = 3 + SLOTS;

export const assembleByteScan = (): Uint8Array => new Uint8Array([
  0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00, // "\0asm", version 1
  // types: 0 (i32, i32, i32) -> i32
  ...section(1, [1, 0x60, 3, I32, I32, I32, 1, I32]),
  ...section(3, [FUNCTIONS, ...new Array<number>(FUNCTIONS).fill(0)]), // every function has type 0
  ...section(5, [1, 0x00, ...leb(PAGES)]), // memory: PAGES, no maximum
  ...section(7, [
    3 + SLOTS, ...name("shape"), 0x00, 0, ...name("memory"), 0x02, 0,
    ...[...Array(SLOTS).keys()].flatMap((s) => [...name(`tally${s + 1}`), 0x00, VERIFY + 1 + s]),
    ...name("find"), 0x00, VERIFY + 1 + SLOTS,
  ]),
  ...section(10, [FUNCTIONS, ...vector(shape()), ...vector(verify()), ...[...Array(SLOTS).keys()].flatMap((s) => vector(tally(s + 1))), ...vector(find())]),
]);
