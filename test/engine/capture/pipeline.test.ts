import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { Capture, captureAll } from "../../../src/engine/capture/pipeline.js";
import type { Line } from "../../../src/engine/capture/line.js";
import { randomChunks, seeded } from "../../helpers/random.js";

const FIXTURES = join(import.meta.dirname, "../../../fixtures");

function fixtureInputs(): string[] {
  return readdirSync(FIXTURES, { recursive: true, encoding: "utf8" })
    .filter((path) => /(^|\/)input\.[a-z]+$/.test(path))
    .map((path) => join(FIXTURES, path));
}

// Everything a terminal throws at the splitter, in one stream.
const TRICKY = Buffer.from(
  [
    "plain line\r\n",
    "caf\u00e9 \u{1F600} \u65e5\u672c\r\n",
    "over\rwritten\r\r\n",
    "\x1b[1;1Hrow one\x1b[2;1Hrow two\x1b[5Bdown\x1bMup\n",
    "Session ID:\x1b[3C\x1b[1mabc\x1b[0m\n",
    "x\b\x1b[32mgreen\x1b[0m\n",
    '{"type":"system","subtype":"init","session_id":"T-0"}\r\n',
    "ends without newline\r",
  ].join(""),
  "utf8",
);

describe("capture pipeline", () => {
  it("splits at LF, CRLF, lone CR and row-changing cursor moves, and cleans each line", async () => {
    const lines = captureAll([TRICKY]);
    expect(lines.map((l) => l.text)).toEqual([
      "plain line",
      "caf\u00e9 \u{1F600} \u65e5\u672c",
      "over",
      "written",
      "row one",
      "row two",
      "down",
      "up",
      "Session ID: abc",
      "green",
      '{"type":"system","subtype":"init","session_id":"T-0"}',
      "ends without newline",
    ]);
    expect(lines.find((l) => l.json)?.json).toEqual({ type: "system", subtype: "init", session_id: "T-0" });
  });

  it("reads text chunks as text: the same lines as their bytes", () => {
    const read = (chunks: readonly (string | Buffer)[]): string[] => {
      const capture = new Capture();
      const lines: string[] = [];
      const keep = (line: Line): void => void lines.push(`${line.n} ${line.offset} ${line.text}`);
      for (const chunk of chunks) capture.push(chunk, keep);
      capture.end(keep);
      return lines;
    };
    const text = read(TRICKY.toString("utf8").split(/(?<=\n)/));
    expect(text).toContain("2 12 caf\u00e9 \u{1F600} \u65e5\u672c");
    expect(text).toEqual(read([TRICKY]));
  });

  it("delivers the rows a cursor move or a CR ended with the read that ended them, before any more output", () => {
    const capture = new Capture();
    const lines: string[] = [];
    const keep = (line: Line): void => void lines.push(`${line.n} ${line.text}`);
    capture.push(Buffer.from("banner\n\x1b[2J\x1b[1;1Hframer 1.0\x1b[3;1HSession: framer-1a2b3c4d\x1b[5;1H> "), keep);
    expect(lines).toEqual(["1 banner", "3 framer 1.0", "4 Session: framer-1a2b3c4d"]);
    capture.push(Buffer.from("typed\x1b[6;1HStatus: ready\r"), keep);
    expect(lines.slice(3)).toEqual(["5 > typed", "6 Status: ready"]);
    // The LF after the CR is the rest of that row's separator, not a line of its own.
    capture.push(Buffer.from("\nlast\n"), keep);
    capture.end(keep);
    expect(lines.slice(5)).toEqual(["7 last"]);
  });

  it("numbers lines by every line break, blank ones included", async () => {
    const lines = captureAll([Buffer.from("a\n\n\nb\r\n")]);
    expect(lines.map((l) => [l.n, l.text])).toEqual([[1, "a"], [4, "b"]]);
  });

  it("gives the same lines however the bytes are chunked", async () => {
    const inputs = [TRICKY, ...fixtureInputs().map((path) => readFileSync(path))];
    expect(inputs.length).toBeGreaterThan(1);
    for (const [index, bytes] of inputs.entries()) {
      const whole = captureAll([bytes]);
      const random = seeded(1000 + index);
      // 40 random cuts of every fixture (there are dozens), plus every byte on its own.
      for (let round = 0; round < 40; round++) {
        const chunked = captureAll(randomChunks(bytes, random));
        expect(chunked, `input ${index}, round ${round}`).toEqual(whole);
      }
      const byteByByte = captureAll([...bytes].map((b) => Buffer.from([b])));
      expect(byteByByte, `input ${index}, byte by byte`).toEqual(whole);
    }
  });

  it("cuts a line longer than the cap, flags it, and keeps going, however it was chunked", () => {
    const long = Buffer.from(`before\n${"y".repeat(5000)}\nafter\n`);
    const whole = captureAll([long], 1000);
    expect(whole.map((l) => [l.n, l.text.length, l.cut ?? false, l.offset])).toEqual([
      [1, 6, false, 0],
      [2, 1000, true, 7],
      [3, 5, false, 5008],
    ]);
    const random = seeded(7);
    for (let round = 0; round < 50; round++) expect(captureAll(randomChunks(long, random), 1000)).toEqual(whole);
    expect(captureAll([...long].map((b) => Buffer.from([b])), 1000)).toEqual(whole);
  });

  it("gives byte offsets of line starts, multi-byte characters included", () => {
    const lines = captureAll([Buffer.from("h\u00e9\r\n\u65e5\nz")]);
    expect(lines.map((l) => [l.text, l.offset])).toEqual([["h\u00e9", 0], ["\u65e5", 5], ["z", 9]]);
  });
});
