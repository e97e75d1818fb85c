import { describe, expect, it } from "vitest";
import { $end, $i, add, ADD, eachBit, END, GET, I32, i32, I64, LT_U, leb, load8, name, oneOf, put, section, SET, vector, when, whilst, WRAP } from "../../../src/fast/skim/wasm.js";

/**
 * The hand assembler the skim's module is written with, proved by assembling small functions
 * with it and running them in Node's WebAssembly: what they return is what the helpers meant.
 */
// The project's lib (ES2023, no DOM) has no WebAssembly types; Node has the API.
interface Wasm {
  Module: new (bytes: Uint8Array) => object;
  Instance: new (module: object) => { readonly exports: Record<string, unknown> };
}
const wasm = (globalThis as unknown as { WebAssembly: Wasm }).WebAssembly;

interface Fn {
  readonly params: readonly number[];
  readonly locals?: ReadonlyArray<readonly [number, number]>;
  readonly body: number[];
}

/** A module of one function `f` returning an i32, and one page of memory `m`. */
function run(fn: Fn, args: ReadonlyArray<number | bigint>, memory?: (bytes: Uint8Array) => void): number {
  const type = [0x60, ...vector([...fn.params]), ...vector([I32])];
  const locals = [...leb(fn.locals?.length ?? 0), ...(fn.locals ?? []).flatMap(([count, kind]) => [...leb(count), kind])];
  const code = [...locals, ...fn.body, END];
  const bytes = [
    0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00,
    // Each section: a count of entries, then the entries; a function body is a sized run of bytes.
    ...section(1, [1, ...type]),
    ...section(3, [1, 0]),
    ...section(5, [1, 0x00, 1]),
    ...section(7, [2, ...name("f"), 0x00, 0, ...name("m"), 0x02, 0]),
    ...section(10, [1, ...vector(code)]),
  ];
  const instance = new wasm.Instance(new wasm.Module(new Uint8Array(bytes)));
  const exports = instance.exports as { f: (...a: Array<number | bigint>) => number; m: { buffer: ArrayBuffer } };
  memory?.(new Uint8Array(exports.m.buffer));
  return exports.f(...args);
}

describe("leb, vector, section and name", () => {
  it("encode sizes as unsigned LEB128, and counted runs of bytes", () => {
    expect(leb(0)).toEqual([0]);
    expect(leb(127)).toEqual([127]);
    expect(leb(128)).toEqual([0x80, 0x01]);
    expect(leb(624485)).toEqual([0xe5, 0x8e, 0x26]);
    expect(leb(2 ** 32 - 1)).toEqual([0xff, 0xff, 0xff, 0xff, 0x0f]);
    expect(vector([7, 8])).toEqual([2, 7, 8]);
    expect(section(3, [1, 2, 3])).toEqual([3, 3, 1, 2, 3]);
    expect(name("ab")).toEqual([2, 0x61, 0x62]);
  });
});

describe("instructions", () => {
  it("i32 takes signed constants: 64 is 64, not -64", () => {
    for (const value of [0, 1, 63, 64, -1, -64, -65, 127, 128, 2 ** 31 - 1, -(2 ** 31)]) {
      expect(run({ params: [], body: i32(value) }, []), String(value)).toBe(value);
    }
  });

  it("whilst, add and put loop over the span $i to $end", () => {
    const sum: Fn = {
      params: [I32, I32],
      locals: [[1, I32]],
      body: [...put(2, 0), ...whilst([GET, $i, GET, $end, LT_U], [GET, 2, GET, $i, ADD, SET, 2, ...add($i, 1)]), GET, 2],
    };
    expect(run(sum, [0, 10])).toBe(45);
    expect(run(sum, [5, 5])).toBe(0);
    expect(run(sum, [7, 3])).toBe(0);
  });

  it("when and oneOf branch on a value among several", () => {
    const among: Fn = { params: [I32], locals: [[1, I32]], body: [...when(oneOf(0, [3, 64, 300]), put(1, 1), put(1, 2)), GET, 1] };
    expect([3, 64, 300, 0, 4, 299].map((x) => run(among, [x]))).toEqual([1, 1, 1, 2, 2, 2]);
    const only: Fn = { params: [I32], locals: [[1, I32]], body: [...put(1, 5), ...when(oneOf(0, [1]), put(1, 6)), GET, 1] };
    expect([run(only, [1]), run(only, [2])]).toEqual([6, 5]);
  });

  it("eachBit visits each set bit of an i64, lowest first", () => {
    const weighted: Fn = {
      params: [I64],
      locals: [[1, I64], [1, I32], [1, I32]],
      // sum += (k + 1) * index, with k counting the bits visited: the order shows in the sum.
      body: [...put(2, 0), ...put(3, 0), ...eachBit(0, 1, [...add(3, 1), GET, 2, GET, 1, WRAP, GET, 3, 0x6c, ADD, SET, 2]), GET, 2],
    };
    // Bits 1, 2 and 40: 1*1 + 2*2 + 3*40, lowest first.
    expect(run(weighted, [(1n << 40n) | 0b110n])).toBe(125);
    expect(run(weighted, [0n])).toBe(0);
  });

  it("load8 reads a byte at an address and offset", () => {
    const at: Fn = { params: [I32], body: load8([GET, 0], 200) };
    expect(run(at, [10], (bytes) => void (bytes[210] = 0xfe))).toBe(0xfe);
    expect(run(at, [11], (bytes) => void (bytes[210] = 0xfe))).toBe(0);
  });
});
