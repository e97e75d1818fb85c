import { describe, expect, it } from "vitest";
import { MAYBE_CONTROL_BYTES } from "../../../src/engine/capture/clean.js";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { assembleControlScan, CONTROL_SCAN_BYTES, ControlScan } from "../../../src/engine/capture/control-scan.js";
import type { Needle } from "../../../src/engine/capture/pipeline.js";
import { seeded } from "../../helpers/random.js";

/**
 * The WebAssembly scan must find exactly the bytes bytesNeedCleaning's first test looks for, but
 * LF, which never lies inside a line: checked against that regex itself, byte by byte.
 */
const CLASS = new RegExp(MAYBE_CONTROL_BYTES.source, "g");
const LF = 0x0a;
// The bundle `npm test` builds first (pretest).
const BUNDLE = fileURLToPath(new URL("../../../dist/bin/", import.meta.url));
const expected = (bytes: Uint8Array): number[] =>
  [...Buffer.from(bytes).toString("latin1").matchAll(CLASS)].map((match) => match.index).filter((at) => bytes[at] !== LF);

// The class's edges, where an off-by-one in a comparison would show.
const EDGES = [0x00, 0x08, 0x09, 0x0a, 0x0b, 0x0d, 0x1b, 0x1f, 0x20, 0x7a, 0x7b, 0x7c, 0x7e, 0x7f, 0x80, 0x9b, 0xc1, 0xc2, 0xc3, 0xff];

/**
 * What `tally` answers for one needle, from the span's string: every place its first `counted`
 * characters start at, overlapping ones too, or -1 when the rest does not follow one of them.
 */
function tallied(text: string, { bytes, counted }: Needle): number {
  const head = bytes.slice(0, counted);
  let n = 0;
  for (let at = text.indexOf(head); at !== -1; at = text.indexOf(head, at + 1)) {
    if (!text.startsWith(bytes, at)) return -1;
    n++;
  }
  return n;
}

const whole = (bytes: string): Needle => ({ bytes, counted: bytes.length });

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
      // Each keeps its own result: a shape after a scan leaves the scan's offsets as they were.
      const found = scan.scan(bytes);
      scan.shape(randomBytes(length, random), 0);
      expect([...found]).toEqual(expected(bytes));
    }
  });

  it("each byte value on its own, at every position of the 64 bytes one turn of the loop reads", () => {
    const scan = new ControlScan();
    for (let value = 0; value < 256; value++) {
      for (let at = 0; at < 140; at++) {
        const bytes = Buffer.alloc(140, 0x41);
        bytes[at] = value;
        expect([...scan.scan(bytes)]).toEqual(expected(bytes));
      }
    }
  });

  it("never reports bytes past the chunk, whatever an earlier, longer chunk left there", () => {
    const scan = new ControlScan();
    expect(scan.scan(Buffer.alloc(CONTROL_SCAN_BYTES, 0x1b))).toHaveLength(CONTROL_SCAN_BYTES);
    for (const length of [0, 1, 15, 16, 17, 63, 64, 65, 1000]) expect([...scan.scan(Buffer.alloc(length, 0x61))]).toEqual([]);
  });

  it("tally and includes: for each of up to a dozen needles, the places it starts at in a span of the chunk, as in the span's string", () => {
    const random = seeded(11);
    const scan = new ControlScan();
    // Few byte values, so that needles occur, overlap, and near misses (two of the three bytes
    // looked for first) abound.
    const ALPHABET = Buffer.from('"result: {}\n\xe9', "latin1");
    const pick = (length: number): string => Buffer.from(Array.from({ length }, () => ALPHABET[Math.floor(random() * ALPHABET.length)] ?? 0x20)).toString("latin1");
    const needle = (): Needle => {
      const kind = random();
      if (kind < 0.2) return whole('"result"');
      if (kind < 0.3) return whole('"""');
      // A key and what must follow it; the rest is often a near miss of what the span holds.
      if (kind < 0.6) return { bytes: `"result":${pick(1 + Math.floor(random() * 3))}`, counted: 8 };
      const length = random() < 0.1 ? 1 + Math.floor(random() * 1500) : 1 + Math.floor(random() * 9);
      const bytes = pick(length);
      return { bytes, counted: 1 + Math.floor(random() * length) };
    };
    // The skim asks the same array of needles of every read: such arrays are asked again here,
    // after other needles took their slots or filled the room they are written in.
    const asked: Needle[][] = [];
    for (let trial = 0; trial < 4000; trial++) {
      const again = asked.length > 0 && random() < 0.4;
      const needles = again ? asked[Math.floor(random() * asked.length)] as Needle[] : Array.from({ length: 1 + Math.floor(random() * (trial % 5 === 0 ? 12 : 5)) }, needle);
      if (!again && asked.length < 8) asked.push(needles);
      const length = Math.floor(random() * 600);
      const bytes = Buffer.from(pick(length), "latin1");
      for (let k = Math.floor(random() * 4); k > 0; k--) {
        const { bytes: text, counted } = needles[Math.floor(random() * needles.length)] as Needle;
        bytes.write(random() < 0.7 ? text : text.slice(0, counted), Math.floor(random() * length), "latin1");
      }
      // What an earlier chunk left after this one's end must never count.
      Buffer.concat([bytes, Buffer.from(needles.map((n) => n.bytes).join("").repeat(4), "latin1")]).copy(scan.input);
      scan.shape(bytes, 0);
      const from = Math.floor(random() * (length + 1));
      const to = from + Math.floor(random() * (length - from + 1));
      const text = bytes.toString("latin1", from, to);
      expect([...scan.tally(needles, from, to).subarray(0, needles.length)], JSON.stringify({ trial, needles, from, to })).toEqual(needles.map((n) => tallied(text, n)));
      const byte = pick(1);
      expect(scan.includes(byte, from, to), JSON.stringify({ trial, byte, from, to })).toBe(text.includes(byte));
    }
    expect(() => scan.includes("ab", 0, 1)).toThrow(RangeError);
  });

  it("tally: a needle at every place of a turn, ending at the span's end or one byte past it", () => {
    const scan = new ControlScan();
    const key = { bytes: '"result":"x"', counted: 8 };
    for (let at = 0; at < 60; at++) {
      const bytes = Buffer.alloc(128, 0x41);
      bytes.write(key.bytes, at, "latin1");
      scan.shape(bytes, 0);
      const one = (from: number, to: number): number[] => [...scan.tally([whole('"result"'), key], from, to).subarray(0, 2)];
      expect(one(0, 128)).toEqual([1, 1]);
      expect(one(at, at + 12)).toEqual([1, 1]);
      // The key is there, what follows it is cut off by the span's end.
      expect(one(at, at + 11)).toEqual([1, -1]);
      expect(one(at, at + 7)).toEqual([0, 0]);
      expect(one(at + 1, 128)).toEqual([0, 0]);
    }
  });

  it("tally: more needles than their room holds, each found where it was written", () => {
    const scan = new ControlScan();
    const bytes = Buffer.from("x".repeat(5000), "latin1");
    for (let n = 0; n < 3000; n++) {
      // Up to 4 KB each: a few of them fill the room, and it is emptied between two needles of one pass.
      const needle = `"key-${n}-${"y".repeat((n * 997) % 4000)}"`;
      bytes.write(needle, 10, "latin1");
      scan.shape(bytes.subarray(0, 10 + needle.length), 0);
      // The long needle second: when it empties the room, the one before it must be written again.
      const found = scan.tally([whole('"key-0-"'), whole(needle), whole("x"), whole(`"key-${n}-`)], 0, 10 + needle.length);
      expect([...found.subarray(0, 4)]).toEqual([n === 0 ? 1 : 0, 1, 10, 1]);
    }
  });

  it("tally: needles asked again look for themselves, after others took their slots and their room was emptied", () => {
    const scan = new ControlScan();
    const text = Buffer.from('"aa" "bb" "bb" "cc"', "latin1");
    const mine = [whole('"aa"'), whole('"bb"')];
    const ask = (needles: Needle[]): number[] => {
      scan.shape(text, 0);
      return [...scan.tally(needles, 0, text.length).subarray(0, needles.length)];
    };
    expect(ask(mine)).toEqual([1, 2]);
    expect(ask(mine)).toEqual([1, 2]);
    expect(ask([whole('"cc"'), whole('"dd"')])).toEqual([1, 0]);
    expect(ask(mine)).toEqual([1, 2]);
    // Three: two passes, the last with one slot.
    expect(ask([whole('"dd"'), whole('"cc"'), whole('"bb"')])).toEqual([0, 1, 2]);
    expect(ask(mine)).toEqual([1, 2]);
    // Needles of 4 KB fill the room: where "aa" and "bb" were written, others are now.
    for (let n = 0; n < 6; n++) ask([whole(`"${String(n).repeat(4000)}"`), whole('"cc"')]);
    expect(ask(mine)).toEqual([1, 2]);
  });

  it("shape looks only at the chunk's first `end` bytes, whatever lies after them", () => {
    const scan = new ControlScan();
    const lines = Buffer.from("one\ntwo\r\x1b[2Hthree\n" + "x\n".repeat(20), "latin1");
    for (let end = 0; end <= lines.length; end++) {
      scan.shape(lines.subarray(0, end), 0);
      const alone = [scan.shape(lines.subarray(0, end), 0), scan.breaks];
      expect([scan.shape(lines, 0, end), scan.breaks], `end ${end}`).toEqual(alone);
      lines.copy(scan.input);
      expect([scan.shape(scan.input, 0, end), scan.breaks], `end ${end}, in place`).toEqual(alone);
    }
  });

  it("tally refuses a needle that counts none of its bytes or more than it has", () => {
    const scan = new ControlScan();
    scan.shape(Buffer.from("abc"), 0);
    expect(() => scan.tally([{ bytes: "ab", counted: 0 }], 0, 3)).toThrow(RangeError);
    expect(() => scan.tally([{ bytes: "ab", counted: 3 }], 0, 3)).toThrow(RangeError);
  });

  it("is what the bundle carries: the module as assembled now, in the CLI and in replay's worker", () => {
    const assembled = JSON.stringify(Buffer.from(assembleControlScan()).toString("base64"));
    for (const file of ["cli.js", "scan-worker.js"]) expect(readFileSync(join(BUNDLE, file), "utf8"), file).toContain(assembled);
  });

  it("refuses a chunk longer than one scan takes", () => {
    expect(() => new ControlScan().scan(Buffer.alloc(CONTROL_SCAN_BYTES + 1))).toThrow(RangeError);
  });
});
