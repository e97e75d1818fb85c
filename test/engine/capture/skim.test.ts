import { describe, expect, it } from "vitest";
import { MAYBE_CONTROL_BYTES } from "../../../src/engine/capture/clean.js";
import { ControlScan } from "../../../src/engine/capture/control-scan.js";
import { LineSplitter } from "../../../src/engine/capture/lines.js";
import { mayStartWrapped } from "../../../src/engine/capture/rejoin.js";
import { afterLastLineFeed } from "../../../src/engine/capture/skim.js";
import { seeded } from "../../helpers/random.js";

/**
 * ControlScan.breaks against the splitter it stands in for: the same count of line breaks in any run of
 * whole lines, and a refusal exactly where a line with "{" could be read for more than its bytes
 * show (a control byte in it, or the first row of a wrapped object).
 */
const scan = new ControlScan();

// Break-like bytes, the pieces of escapes, braces, and a JSON line's ends.
const ALPHABET = ["a", " ", "\r", "\r", "\n", "\n", "\x1b", "[", "1", ";", "H", "A", "m", "D", "M", "f", "{", "}", "\"", "\t", "\x7f", "\xc2", "\x85"];

function randomLines(random: () => number): Buffer {
  const text = Array.from({ length: 1 + Math.floor(random() * 60) }, () => ALPHABET[Math.floor(random() * ALPHABET.length)]).join("");
  return Buffer.from(`${text}\n`, "latin1");
}

function splitterBreaks(bytes: Buffer): number {
  const splitter = new LineSplitter();
  splitter.push(bytes);
  expect(splitter.idle).toBe(true);
  return splitter.lines;
}

// A line with "{" must be split and read when it has any byte cleaning looks at (but the CRs
// ending it) or may start a wrapped object.
const CONTROL = new RegExp(MAYBE_CONTROL_BYTES.source);
function mustBeRead(bytes: Buffer): boolean {
  return bytes.toString("latin1").split("\n").slice(0, -1).some((line) => {
    const content = line.replace(/\r+$/, "");
    return line.includes("{") && (CONTROL.test(content) || mayStartWrapped(content));
  });
}

describe("ControlScan.breaks (the skim's look at a run of lines)", () => {
  it("counts the splitter's line breaks, and refuses exactly the runs with a line that must be read", () => {
    const random = seeded(23);
    let refused = 0;
    for (let round = 0; round < 5000; round++) {
      const bytes = randomLines(random);
      scan.events(bytes);
      const breaks = scan.breaks(0, bytes.length);
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
    scan.events(bytes);
    expect(scan.breaks(10, 10 + lines.length)).toBe(splitterBreaks(lines));
    expect(splitterBreaks(lines)).toBe(5);
  });
});

describe("ControlScan.breaks, the first row of a wrapped object", () => {
  it("is a line that starts with \"{\" and does not end in \"}\" but for blanks (space, tab, CR)", () => {
    for (const blanks of ["", " ", "\t", "\r", " \t\r\r"]) {
      for (const [line, wrapped] of [['{"a":1}', false], ['{"a":1', true], [' {"a":1', false]] as const) {
        const bytes = Buffer.from(`${line}${blanks}\n`, "latin1");
        scan.events(bytes);
        expect(scan.breaks(0, bytes.length), JSON.stringify(bytes.toString("latin1"))).toBe(wrapped ? undefined : splitterBreaks(bytes));
      }
    }
  });
});

describe("afterLastLineFeed", () => {
  it("finds the end of the last LF among the events, as lastIndexOf does, whatever follows it", () => {
    const random = seeded(17);
    for (let trial = 0; trial < 3000; trial++) {
      const text = Array.from({ length: Math.floor(random() * 200) }, () => ALPHABET[Math.floor(random() * ALPHABET.length)]).join("");
      const bytes = Buffer.from(text, "latin1");
      expect(afterLastLineFeed(bytes, scan.events(bytes)), JSON.stringify(text)).toBe(bytes.lastIndexOf(0x0a) + 1);
    }
  });
});
