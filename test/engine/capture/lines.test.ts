import { describe, expect, it } from "vitest";
import { LineSplitter } from "../../../src/engine/capture/lines.js";
import { seeded } from "../../helpers/random.js";

// The definition of a line break as one regex, which the splitter's indexOf search must agree with.
const LINE_BREAK = /\r*\n|\r+(?!\r|$)|\x1b\[[0-9;]*[ABEFHdf]|\x1b[DEM]/g;

function byRegex(text: string): string[] {
  const lines: string[] = [];
  let start = 0;
  for (const match of text.matchAll(LINE_BREAK)) {
    lines.push(text.slice(start, match.index));
    start = match.index + match[0].length;
  }
  const rest = text.slice(start).replace(/\r+$/, "");
  if (start < text.length) lines.push(rest);
  return lines;
}

// Lines `quiet` delivered, over every call: the test below must not pass by never having one.
let quietLines = 0;

/** The lines as `n offset bytes`; `quiet`: the output went quiet after some chunks (run's flush). */
function bySplitter(text: string, random: () => number, quiet = false): string[] {
  const splitter = new LineSplitter();
  const lines: string[] = [];
  const keep = (raw: ReturnType<LineSplitter["end"]>): void => void lines.push(...raw.map((line) => `${line.n} ${line.offset} ${JSON.stringify(line.bytes)}`));
  for (let at = 0; at < text.length;) {
    const size = 1 + Math.floor(random() * 12);
    keep(splitter.push(Buffer.from(text.slice(at, at + size), "latin1")));
    if (quiet && random() < 0.5) {
      const ended = splitter.quiet();
      quietLines += ended.length;
      keep(ended);
    }
    at += size;
  }
  keep(splitter.end());
  return lines;
}

const bytesOf = (lines: readonly string[]): string[] => lines.map((line) => JSON.parse(line.slice(line.indexOf(" ", line.indexOf(" ") + 1) + 1)) as string);

describe("line breaks", () => {
  it("are where the regex that defines them finds them, in random text of break-like bytes", () => {
    const random = seeded(5);
    const alphabet = ["a", "b", "\r", "\r", "\n", "\x1b", "[", "1", ";", "H", "A", "m", "D", "E", "M", "f", "2"];
    for (let round = 0; round < 2000; round++) {
      const text = Array.from({ length: 1 + Math.floor(random() * 40) }, () => alphabet[Math.floor(random() * alphabet.length)]).join("");
      expect(bytesOf(bySplitter(text, random)), JSON.stringify(text)).toEqual(byRegex(text));
    }
  });

  it("are the same, numbers and offsets too, when the output goes quiet after a CR run and the LF comes later", () => {
    const random = seeded(6);
    const alphabet = ["a", "b", "\r", "\r", "\r", "\n", "\x1b", "[", "1", "H"];
    quietLines = 0;
    for (let round = 0; round < 3000; round++) {
      const text = Array.from({ length: 1 + Math.floor(random() * 40) }, () => alphabet[Math.floor(random() * alphabet.length)]).join("");
      const quiet = bySplitter(text, random, true);
      expect(quiet, JSON.stringify(text)).toEqual(bySplitter(text, random));
    }
    expect(quietLines).toBeGreaterThan(500);
  });

  it("delivers a line a CR run ended when the output goes quiet, not at the next byte", () => {
    const splitter = new LineSplitter();
    expect(splitter.push("Session: abc\r")).toEqual([]);
    expect(splitter.endsInCr).toBe(true);
    expect(splitter.quiet()).toEqual([{ n: 1, offset: 0, bytes: "Session: abc" }]);
    expect(splitter.idle).toBe(false);
    expect(splitter.push("\nnext\n")).toEqual([{ n: 2, offset: 14, bytes: "next" }]);
    expect(splitter.idle).toBe(true);
  });
});
