import { describe, expect, it } from "vitest";
import { ByteScan } from "../../../src/fast/skim/byte-scan.js";
import { LineSplitter } from "../../../src/engine/capture/lines.js";
import { mayStartWrapped } from "../../../src/engine/capture/rejoin.js";
import { seeded } from "../../helpers/random.js";

/**
 * ByteScan.shape against the splitter it stands in for: the same count of line breaks in any run of
 * whole lines, and a refusal exactly where a line with "{" could be read for more than its bytes
 * show (a control byte in it, or the first row of a wrapped object).
 */
const scan = new ByteScan();

// Break-like bytes, the pieces of escapes, braces, and a JSON line's ends.
const ALPHABET = ["a", " ", "\r", "\r", "\n", "\n", "\x1b", "[", "1", ";", "H", "A", "m", "D", "M", "f", "{", "}", "\"", "\t", "\x7f", "\xc2", "\x85"];

function randomLines(random: () => number): Buffer {
  const text = Array.from({ length: 1 + Math.floor(random() * 60) }, () => ALPHABET[Math.floor(random() * ALPHABET.length)]).join("");
  return Buffer.from(`${text}\n`, "latin1");
}

// Lines of up to ~300 bytes, where the 64-byte turns of the scan fall anywhere: JSON objects,
// screen rows (escapes, CRs, no "{"), and now and then a line of anything.
const JSON_LINE = '{"type":"assistant","message":{"content":[{"type":"text","text":"TEXT"}]},"session_id":"T-1"}';
const ROW_PIECES = ["\x1b[2K\r", "\x1b[36m", "\x1b[12;1H", "\x1bM", "\r", " ", "\t", "plain words here", "\x7f", "\xc2\x85", "}", "[1;"];
function longLine(random: () => number): Buffer {
  const pick = <T>(from: readonly T[]): T => from[Math.floor(random() * from.length)] as T;
  const kind = random();
  const length = Math.floor(random() * 300);
  let text = "";
  if (kind < 0.45) {
    text = JSON_LINE.replace("TEXT", "x".repeat(length)) + (random() < 0.2 ? pick([" ", "\t", " \r"]) : "");
  } else {
    const pieces = kind < 0.93 ? ROW_PIECES : [...ROW_PIECES, ...ALPHABET];
    while (text.length < length) text += pick(pieces);
  }
  return Buffer.from(`${text}${random() < 0.5 ? "\r\n" : "\n"}`, "latin1");
}

/** Bytes with no LF. */
function partialLine(random: () => number): Buffer {
  return Buffer.from(longLine(random).toString("latin1").replace(/\n/g, ""), "latin1");
}

function splitterBreaks(bytes: Buffer): number {
  const splitter = new LineSplitter();
  splitter.push(bytes);
  return splitter.lines;
}

// A line with "{" must be split and read when it has any byte cleaning looks at (but the CRs
// ending it) or may start a wrapped object.
// Controls but tab and LF, DEL, and 0xc2 (which leads a C1 control), as raw bytes.
const CONTROL = /[^\t\x20-\x7e\x80-\xc1\xc3-\xff]/;
function mustBeRead(bytes: Buffer): boolean {
  return bytes.toString("latin1").split("\n").slice(0, -1).some((line) => {
    const content = line.replace(/\r+$/, "");
    return line.includes("{") && (CONTROL.test(content) || mayStartWrapped(content));
  });
}

describe("ByteScan.shape (the skim's look at a run of lines)", () => {
  it("counts the splitter's line breaks, and refuses exactly the runs with a line that must be read", () => {
    const random = seeded(23);
    let refused = 0;
    for (let round = 0; round < 5000; round++) {
      const bytes = randomLines(random);
      expect(scan.shape(bytes, 0)).toBe(bytes.length);
      const breaks = scan.breaks;
      const label = JSON.stringify(bytes.toString("latin1"));
      if (mustBeRead(bytes)) {
        expect(breaks, label).toBeUndefined();
        refused++;
      } else {
        expect(breaks, label).toBe(splitterBreaks(bytes));
      }
    }
    // Both sides of the question were asked often.
    expect(refused).toBeGreaterThan(500);
    expect(refused).toBeLessThan(4500);
  });

  it("counts from `from` to `to` only, whatever lies around them", () => {
    const lines = Buffer.from("one\r\ntwo\x1b[3;1Hthree\rfour\r\n{\"a\":1}\r\n", "latin1");
    const bytes = Buffer.concat([Buffer.from("\x1b[2A{head\n", "latin1"), lines, Buffer.from("{tail\x1b[1m", "latin1")]);
    expect(scan.shape(bytes.subarray(0, 10 + lines.length), 10)).toBe(10 + lines.length);
    expect(scan.breaks).toBe(splitterBreaks(lines));
    expect(splitterBreaks(lines)).toBe(5);
  });
});

describe("ByteScan.breaks, the first row of a wrapped object", () => {
  it("is a line that starts with \"{\" and does not end in \"}\" but for blanks (space, tab, CR)", () => {
    for (const blanks of ["", " ", "\t", "\r", " \t\r\r"]) {
      for (const [line, wrapped] of [['{"a":1}', false], ['{"a":1', true], [' {"a":1', false]] as const) {
        const bytes = Buffer.from(`${line}${blanks}\n`, "latin1");
        scan.shape(bytes, 0);
        expect(scan.breaks, JSON.stringify(bytes.toString("latin1"))).toBe(wrapped ? undefined : splitterBreaks(bytes));
      }
    }
  });
});

describe("ByteScan.shape, byte by byte", () => {
  it("each byte value on its own, at every place of two 64-byte turns, alone or before an LF", () => {
    for (let value = 0; value < 256; value++) {
      for (let at = 0; at < 130; at++) {
        for (const lineFeedAfter of [false, true]) {
          const bytes = Buffer.alloc(140, 0x41);
          bytes[at] = value;
          if (lineFeedAfter) bytes[at + 1] = 0x0a;
          bytes[139] = 0x0a;
          const label = JSON.stringify({ value, at, lineFeedAfter });
          expect(scan.shape(bytes, 0), label).toBe(140);
          expect(scan.breaks, label).toBe(mustBeRead(bytes) ? undefined : splitterBreaks(bytes));
        }
      }
    }
  });
});

describe("ByteScan.shape over many lines", () => {
  it("counts and refuses as the splitter would, for runs of lines across its 64-byte turns, from any line start, whatever follows the last LF", () => {
    const random = seeded(29);
    let refused = 0;
    for (let round = 0; round < 3000; round++) {
      const lines = Buffer.concat(Array.from({ length: 1 + Math.floor(random() * 12) }, () => longLine(random)));
      const head = random() < 0.5 ? Buffer.alloc(0) : longLine(random);
      // Whatever follows the last LF (a partial line) counts for nothing.
      const tail = partialLine(random);
      const bytes = Buffer.concat([head, lines, tail]);
      const label = JSON.stringify(bytes.toString("latin1"));
      expect(scan.shape(bytes, head.length), label).toBe(head.length + lines.length);
      if (mustBeRead(lines)) {
        expect(scan.breaks, label).toBeUndefined();
        refused++;
      } else {
        expect(scan.breaks, label).toBe(splitterBreaks(lines));
      }
    }
    expect(refused).toBeGreaterThan(300);
    expect(refused).toBeLessThan(2700);
  });

  it("finds the end of the last LF, as lastIndexOf does, and `from` when there is none after it", () => {
    const random = seeded(17);
    for (let trial = 0; trial < 3000; trial++) {
      const text = Array.from({ length: Math.floor(random() * 300) }, () => ALPHABET[Math.floor(random() * ALPHABET.length)]).join("");
      const bytes = Buffer.from(text, "latin1");
      const from = Math.floor(random() * (bytes.length + 1));
      expect(scan.shape(bytes, from), JSON.stringify(text)).toBe(Math.max(from, bytes.lastIndexOf(0x0a) + 1));
    }
  });
});
