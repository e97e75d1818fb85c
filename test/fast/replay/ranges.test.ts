import { closeSync, openSync, writeFileSync, appendFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { rangeChunks, RANGE_READ_BYTES, stretchStarts } from "../../../src/fast/replay/ranges.js";
import { seeded } from "../../helpers/random.js";
import { useTempDir } from "../../pointer/tempdir.js";

const tmp = useTempDir();
const open: number[] = [];
afterEach(() => {
  for (const fd of open.splice(0)) closeSync(fd);
});

function fileOf(content: Buffer | string): number {
  const path = join(tmp.path, "input");
  writeFileSync(path, content);
  const fd = openSync(path, "r");
  open.push(fd);
  return fd;
}

/** Each chunk copied out, since the generator hands the same buffer back every time. */
function chunks(fd: number, start: number, end: number | undefined, bufferBytes: number): string[] {
  const out: string[] = [];
  for (const chunk of rangeChunks(fd, start, end, Buffer.alloc(bufferBytes))) out.push(chunk.toString("latin1"));
  return out;
}

describe("rangeChunks", () => {
  it("ends every full chunk just after its last line feed and reads the rest again with the next", () => {
    const fd = fileOf("aa\nbb\ncc\ndd");
    expect(chunks(fd, 0, undefined, 5)).toEqual(["aa\n", "bb\n", "cc\n", "dd"]);
    expect(chunks(fd, 0, undefined, 8)).toEqual(["aa\nbb\n", "cc\ndd"]);
  });

  it("keeps a partial line only where there is no line feed, at the range's end, or at the file's end", () => {
    const fd = fileOf("abcdefgh\nij\nkl");
    // No line feed in the first 4 bytes: the chunk is cut where the buffer ends.
    expect(chunks(fd, 0, undefined, 4)).toEqual(["abcd", "efgh", "\nij\n", "kl"]);
    // The range ends mid-line: its last chunk is cut there, not at the line feed before.
    expect(chunks(fd, 0, 11, 64)).toEqual(["abcdefgh\nij"]);
    expect(chunks(fd, 9, 14, 64)).toEqual(["ij\nkl"]);
  });

  it("covers exactly [start, end), whatever the buffer's size", () => {
    const text = Array.from({ length: 500 }, (_, i) => `line ${i} ${"x".repeat(i % 37)}\n`).join("");
    const fd = fileOf(text);
    for (const size of [2, 7, 64, 4096]) {
      expect(chunks(fd, 0, undefined, size).join(""), `buffer ${size}`).toBe(text);
      expect(chunks(fd, 100, 3000, size).join(""), `buffer ${size}`).toBe(text.slice(100, 3000));
    }
  });

  it("reads what the file grew to when no end is given, and nothing past the end of the file", () => {
    const fd = fileOf("one\n");
    appendFileSync(join(tmp.path, "input"), "two\n");
    expect(chunks(fd, 0, undefined, 64)).toEqual(["one\ntwo\n"]);
    expect(chunks(fd, 8, undefined, 64)).toEqual([]);
    expect(chunks(fd, 4, 100, 64)).toEqual(["two\n"]);
    expect(chunks(fd, 5, 5, 64)).toEqual([]);
  });
  it("reads a range whole, each chunk ending after its last line feed unless the range ends or no line feed fits", () => {
    const random = seeded(31);
    const path = join(tmp.path, "ranges.raw");
    const bytes = Buffer.from(Array.from({ length: 400 }, () => `${"x".repeat(Math.floor(random() * (random() < 0.1 ? 300 : 60)))}${random() < 0.2 ? "\r" : "\n"}`).join(""));
    writeFileSync(path, bytes);
    const fd = openSync(path, "r");
    try {
      for (let trial = 0; trial < 50; trial++) {
        const start = Math.floor(random() * bytes.length);
        const end = random() < 0.3 ? undefined : start + Math.floor(random() * (bytes.length - start));
        const buffer = Buffer.alloc(1 + Math.floor(random() * 200));
        const chunks: Buffer[] = [];
        for (const chunk of rangeChunks(fd, start, end, buffer)) chunks.push(Buffer.from(chunk));
        const reached = start + chunks.reduce((sum, chunk) => sum + chunk.length, 0);
        expect(reached).toBe(end ?? bytes.length);
        expect(Buffer.concat(chunks).equals(bytes.subarray(start, end))).toBe(true);
        for (const chunk of chunks.slice(0, -1)) {
          if (chunk.at(-1) !== 0x0a) expect(chunk.length === buffer.length && !chunk.includes(0x0a)).toBe(true);
        }
      }
    } finally {
      closeSync(fd);
    }
  });
});

describe("stretchStarts", () => {
  it("starts each stretch just after a line feed near its even share", () => {
    const line = `${"y".repeat(99)}\n`;
    const fd = fileOf(line.repeat(40));
    const starts = stretchStarts(fd, 4000, 4);
    // A share that begins a line starts at the next one: the line feed is looked for from the share on.
    expect(starts).toEqual([0, 1100, 2100, 3100]);
    const shifted = fileOf(`${"z".repeat(50)}\n${line.repeat(40)}`);
    expect(stretchStarts(shifted, 4051, 4)).toEqual([0, 1051, 2051, 3051]);
  });

  it("gives fewer stretches when the file has too few line feeds, and none that starts at its end", () => {
    expect(stretchStarts(fileOf("x".repeat(1000)), 1000, 4)).toEqual([0]);
    expect(stretchStarts(fileOf(`${"x".repeat(600)}\n${"y".repeat(399)}`), 1000, 4)).toEqual([0, 601]);
    expect(stretchStarts(fileOf(`${"x".repeat(999)}\n`), 1000, 4)).toEqual([0]);
    expect(stretchStarts(fileOf(""), 0, 4)).toEqual([0]);
  });

  it("looks past one read's worth of bytes for the line feed", () => {
    const size = RANGE_READ_BYTES * 4;
    const content = Buffer.alloc(size, 0x61);
    content[RANGE_READ_BYTES * 2 + RANGE_READ_BYTES / 2] = 0x0a;
    expect(stretchStarts(fileOf(content), size, 2)).toEqual([0, RANGE_READ_BYTES * 2 + RANGE_READ_BYTES / 2 + 1]);
  });
  it("cuts only just after a line feed, and not where there is none", () => {
    const path = join(tmp.path, "cuts.raw");
    const bytes = Buffer.from(`${"a".repeat(300)}\n${"b".repeat(50)}\r${"c".repeat(500)}\n${"d".repeat(100)}`);
    writeFileSync(path, bytes);
    const fd = openSync(path, "r");
    try {
      const starts = stretchStarts(fd, bytes.length, 4);
      expect(starts).toEqual([0, 301, 853]);
      for (const start of starts.slice(1)) expect(bytes[start - 1]).toBe(0x0a);
      expect(stretchStarts(fd, bytes.length, 1)).toEqual([0]);
    } finally {
      closeSync(fd);
    }
  });
});
