import { describe, expect, it } from "vitest";
import { BYTE_SCAN_BYTES, ByteScan, type Needle } from "../../../src/fast/skim/byte-scan.js";
import { seeded } from "../../helpers/random.js";

/**
 * The skim's searches in WebAssembly against the string searches they stand in for.
 *
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

describe("ByteScan", () => {
  it("tally and includes: for each of up to a dozen needles, the places it starts at in a span of the chunk, as in the span's string", () => {
    const random = seeded(11);
    const scan = new ByteScan();
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
    const scan = new ByteScan();
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
    const scan = new ByteScan();
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
    const scan = new ByteScan();
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
    const scan = new ByteScan();
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
    const scan = new ByteScan();
    scan.shape(Buffer.from("abc"), 0);
    expect(() => scan.tally([{ bytes: "ab", counted: 0 }], 0, 3)).toThrow(RangeError);
    expect(() => scan.tally([{ bytes: "ab", counted: 3 }], 0, 3)).toThrow(RangeError);
  });

  it("refuses a chunk longer than one scan takes", () => {
    expect(() => new ByteScan().shape(Buffer.alloc(BYTE_SCAN_BYTES + 1), 0)).toThrow(RangeError);
  });
});
