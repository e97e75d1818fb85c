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

function bySplitter(text: string, random: () => number): string[] {
  const splitter = new LineSplitter();
  const lines: string[] = [];
  for (let at = 0; at < text.length;) {
    const size = 1 + Math.floor(random() * 12);
    lines.push(...splitter.push(Buffer.from(text.slice(at, at + size), "latin1")).map((line) => line.bytes));
    at += size;
  }
  lines.push(...splitter.end().map((line) => line.bytes));
  return lines;
}

describe("line breaks", () => {
  it("are where the regex that defines them finds them, in random text of break-like bytes", () => {
    const random = seeded(5);
    const alphabet = ["a", "b", "\r", "\r", "\n", "\x1b", "[", "1", ";", "H", "A", "m", "D", "E", "M", "f", "2"];
    for (let round = 0; round < 2000; round++) {
      const text = Array.from({ length: 1 + Math.floor(random() * 40) }, () => alphabet[Math.floor(random() * alphabet.length)]).join("");
      expect(bySplitter(text, random), JSON.stringify(text)).toEqual(byRegex(text));
    }
  });
});
