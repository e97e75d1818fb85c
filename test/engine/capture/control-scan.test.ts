import { describe, expect, it } from "vitest";
import { MAYBE_CONTROL_BYTES } from "../../../src/engine/capture/clean.js";
import { CONTROL_SCAN_BYTES, ControlScan } from "../../../src/engine/capture/control-scan.js";
import { seeded } from "../../helpers/random.js";

/**
 * The WebAssembly scan must find exactly the bytes bytesNeedCleaning's first test looks for, but
 * LF, which never lies inside a line: checked against that regex itself, byte by byte.
 */
const CLASS = new RegExp(MAYBE_CONTROL_BYTES.source, "g");
const LF = 0x0a;
const expected = (bytes: Uint8Array): number[] =>
  [...Buffer.from(bytes).toString("latin1").matchAll(CLASS)].map((match) => match.index).filter((at) => bytes[at] !== LF);
// `events`: the same, and every LF and "{".
const expectedEvents = (bytes: Uint8Array): number[] =>
  [...Buffer.from(bytes).toString("latin1").matchAll(CLASS)].map((match) => match.index).concat(
    [...bytes.keys()].filter((at) => bytes[at] === 0x7b),
  ).sort((a, b) => a - b);

// The class's edges, where an off-by-one in a comparison would show.
const EDGES = [0x00, 0x08, 0x09, 0x0a, 0x0b, 0x0d, 0x1b, 0x1f, 0x20, 0x7a, 0x7b, 0x7c, 0x7e, 0x7f, 0x80, 0x9b, 0xc1, 0xc2, 0xc3, 0xff];

/** Every place `needle` starts at in `text`, overlapping ones too. */
function places(text: string, needle: string): number {
  let n = 0;
  for (let at = text.indexOf(needle); at !== -1; at = text.indexOf(needle, at + 1)) n++;
  return n;
}

function randomBytes(length: number, random: () => number): Buffer {
  const bytes = Buffer.alloc(length);
  for (let i = 0; i < length; i++) {
    const r = random();
    bytes[i] = r < 0.7 ? 0x20 + Math.floor(random() * 95) : r < 0.85 ? (EDGES[Math.floor(random() * EDGES.length)] ?? 0) : Math.floor(random() * 256);
  }
  return bytes;
}

describe("ControlScan", () => {
  it("finds every byte of the class and nothing else, in chunks of any length, copied in or read in place", () => {
    const random = seeded(7);
    const scan = new ControlScan();
    for (let trial = 0; trial < 300; trial++) {
      const length = trial < 40 ? trial : Math.floor(random() * (CONTROL_SCAN_BYTES + 1));
      const bytes = randomBytes(length, random);
      expect([...scan.scan(bytes)]).toEqual(expected(bytes));
      bytes.copy(scan.input);
      expect([...scan.scan(scan.input.subarray(0, length))]).toEqual(expected(bytes));
      const events = scan.events(bytes);
      expect([...events]).toEqual(expectedEvents(bytes));
      // Each keeps its own result: a scan after events leaves the events as they were.
      scan.scan(randomBytes(length, random));
      expect([...events]).toEqual(expectedEvents(bytes));
    }
  });

  it("each byte value on its own, at every position of the 64 bytes one turn of the loop reads", () => {
    const scan = new ControlScan();
    for (let value = 0; value < 256; value++) {
      for (let at = 0; at < 140; at++) {
        const bytes = Buffer.alloc(140, 0x41);
        bytes[at] = value;
        expect([...scan.scan(bytes)]).toEqual(expected(bytes));
        expect([...scan.events(bytes)]).toEqual(expectedEvents(bytes));
      }
    }
  });

  it("never reports bytes past the chunk, whatever an earlier, longer chunk left there", () => {
    const scan = new ControlScan();
    expect(scan.scan(Buffer.alloc(CONTROL_SCAN_BYTES, 0x1b))).toHaveLength(CONTROL_SCAN_BYTES);
    for (const length of [0, 1, 15, 16, 17, 63, 64, 65, 1000]) expect([...scan.scan(Buffer.alloc(length, 0x61))]).toEqual([]);
  });

  it("count and includes: the places a needle starts at in a span of the chunk, as in the span's string", () => {
    const random = seeded(11);
    const scan = new ControlScan();
    // Few byte values, so that needles occur, overlap, and near misses (two of the three bytes
    // looked for first) abound.
    const ALPHABET = Buffer.from('"result: {}\n\xe9', "latin1");
    const pick = (length: number): Buffer => Buffer.from(Array.from({ length }, () => ALPHABET[Math.floor(random() * ALPHABET.length)] ?? 0x20));
    for (let trial = 0; trial < 4000; trial++) {
      const needleLength = trial % 10 === 0 ? 1 + Math.floor(random() * 300) : 1 + Math.floor(random() * 9);
      const needle = trial % 3 === 0 ? '"result"' : trial % 7 === 0 ? '"""' : pick(needleLength).toString("latin1");
      const length = Math.floor(random() * 600);
      const bytes = pick(length);
      for (let k = Math.floor(random() * 3); k > 0; k--) bytes.write(needle, Math.floor(random() * length), "latin1");
      // What an earlier chunk left after this one's end must never count.
      Buffer.concat([bytes, Buffer.from(needle.repeat(20), "latin1")]).copy(scan.input);
      scan.events(bytes);
      const from = Math.floor(random() * (length + 1));
      const to = from + Math.floor(random() * (length - from + 1));
      const text = bytes.toString("latin1", from, to);
      expect(scan.count(needle, from, to), JSON.stringify({ trial, needle, from, to })).toBe(places(text, needle));
      expect(scan.includes(needle, from, to), JSON.stringify({ trial, needle, from, to })).toBe(text.includes(needle));
    }
  });

  it("count: a needle at every place of a turn, ending at the span's end or one byte past it", () => {
    const scan = new ControlScan();
    const needle = '"result"';
    for (let at = 0; at < 40; at++) {
      const bytes = Buffer.alloc(64, 0x41);
      bytes.write(needle, at, "latin1");
      scan.events(bytes);
      expect(scan.count(needle, 0, 64)).toBe(1);
      expect(scan.count(needle, at, at + needle.length)).toBe(1);
      expect(scan.count(needle, at, at + needle.length - 1)).toBe(0);
      expect(scan.count(needle, at + 1, 64)).toBe(0);
    }
  });

  it("count: more needles than their room holds, each found where it was written", () => {
    const scan = new ControlScan();
    const bytes = Buffer.from("x".repeat(100), "latin1");
    for (let n = 0; n < 3000; n++) {
      const needle = `"key-${n}-${"y".repeat(n % 50)}"`;
      bytes.write(needle, 10, "latin1");
      scan.events(bytes.subarray(0, 10 + needle.length));
      expect(scan.count(needle, 0, 10 + needle.length)).toBe(1);
      expect(scan.count('"key-0-"', 0, 10 + needle.length)).toBe(n === 0 ? 1 : 0);
    }
  });

  it("refuses a chunk longer than one scan takes", () => {
    expect(() => new ControlScan().scan(Buffer.alloc(CONTROL_SCAN_BYTES + 1))).toThrow(RangeError);
  });
});
