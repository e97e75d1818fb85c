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

// Lines delivered at the end of a chunk that ended in a CR run, over every call: the test below
// must not pass by never having one.
let endedByCr = 0;

/** The lines as `n offset bytes`, the text cut into chunks of 1 to 12 bytes. */
function bySplitter(text: string, random: () => number): string[] {
  const splitter = new LineSplitter();
  const lines: string[] = [];
  const keep = (raw: ReturnType<LineSplitter["end"]>): void => void lines.push(...raw.map((line) => `${line.n} ${line.offset} ${JSON.stringify(line.bytes)}`));
  for (let at = 0; at < text.length;) {
    const size = 1 + Math.floor(random() * 12);
    const chunk = text.slice(at, at + size);
    const got = splitter.push(Buffer.from(chunk, "latin1"));
    if (chunk.endsWith("\r")) endedByCr += got.length;
    keep(got);
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

  it("are the same, numbers and offsets too, however a CR run and the LF after it are cut apart", () => {
    const random = seeded(6);
    const alphabet = ["a", "b", "\r", "\r", "\r", "\n", "\x1b", "[", "1", "H"];
    endedByCr = 0;
    for (let round = 0; round < 3000; round++) {
      const text = Array.from({ length: 1 + Math.floor(random() * 40) }, () => alphabet[Math.floor(random() * alphabet.length)]).join("");
      const whole = new LineSplitter();
      const once = [...whole.push(Buffer.from(text, "latin1")), ...whole.end()].map((line) => `${line.n} ${line.offset} ${JSON.stringify(line.bytes)}`);
      expect(bySplitter(text, random), JSON.stringify(text)).toEqual(once);
    }
    expect(endedByCr).toBeGreaterThan(500);
  });

  it("delivers a line a CR run ended with the chunk that ends in it, not at the next byte", () => {
    const splitter = new LineSplitter();
    expect(splitter.push("Session: abc\r")).toEqual([{ n: 1, offset: 0, bytes: "Session: abc" }]);
    // The LF that follows is the rest of that line's separator.
    expect(splitter.push("\nnext\n")).toEqual([{ n: 2, offset: 14, bytes: "next" }]);
  });

  it("numbers lines on from where a splitter starts part-way through an output", () => {
    const splitter = new LineSplitter(undefined, { lines: 41, offset: 1000 });
    expect(splitter.push("a\r\nb\x1b[2Ac")).toEqual([{ n: 42, offset: 1000, bytes: "a" }, { n: 43, offset: 1003, bytes: "b" }]);
    expect(splitter.end()).toEqual([{ n: 44, offset: 1008, bytes: "c" }]);
    expect(splitter.lines).toBe(44);
  });
});
