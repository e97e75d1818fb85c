import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { captureAll } from "../../src/capture/pipeline.js";
import { randomChunks, seeded } from "../helpers/random.js";

const FIXTURES = join(import.meta.dirname, "../../fixtures");

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
    const lines = await captureAll([TRICKY]);
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

  it("numbers lines by every line break, blank ones included", async () => {
    const lines = await captureAll([Buffer.from("a\n\n\nb\r\n")]);
    expect(lines.map((l) => [l.n, l.text])).toEqual([[1, "a"], [4, "b"]]);
  });

  it("gives the same lines however the bytes are chunked", async () => {
    const inputs = [TRICKY, ...fixtureInputs().map((path) => readFileSync(path))];
    expect(inputs.length).toBeGreaterThan(1);
    for (const [index, bytes] of inputs.entries()) {
      const whole = await captureAll([bytes]);
      const random = seeded(1000 + index);
      for (let round = 0; round < 150; round++) {
        const chunked = await captureAll(randomChunks(bytes, random));
        expect(chunked, `input ${index}, round ${round}`).toEqual(whole);
      }
      const byteByByte = await captureAll([...bytes].map((b) => Buffer.from([b])));
      expect(byteByByte, `input ${index}, byte by byte`).toEqual(whole);
    }
  });

  it("drops a line longer than the cap and keeps going", async () => {
    const { createCapture } = await import("../../src/capture/pipeline.js");
    const capture = createCapture(1000);
    const texts: string[] = [];
    capture.on("data", (line: { text: string }) => texts.push(line.text));
    const ended = new Promise((resolve) => capture.on("end", resolve));
    capture.write("before\n");
    for (let i = 0; i < 10; i++) capture.write("y".repeat(500));
    capture.write("\nafter\n");
    capture.end();
    await ended;
    expect(texts).toEqual(["before", "after"]);
  });
});
