import { describe, expect, it } from "vitest";
import { Skipper, StringBytes } from "../../src/replay/json-bytes.js";

class Bad extends Error {}
const fail = (why: string): never => {
  throw new Bad(why);
};

/** A JSON string's content (after its opening quote) fed a byte at a time: the text it gives and where it ended. */
function decode(json: string): { text: string; closedAt: number } {
  const bytes = Buffer.from(json, "utf8");
  const out: Buffer[] = [];
  const reader = new StringBytes((b) => out.push(Buffer.from(b)), fail);
  for (let i = 0; i < bytes.length; i++) {
    if (reader.byte(bytes[i] as number)) return { text: Buffer.concat(out).toString("utf8"), closedAt: i };
  }
  return { text: Buffer.concat(out).toString("utf8"), closedAt: -1 };
}

/** A value fed to a Skipper a byte at a time: the answer at each byte that was not "more". */
function skip(json: string, maxDepth = 8): { ends: string[]; whole: boolean } {
  const skipper = new Skipper(maxDepth, fail);
  const ends: string[] = [];
  for (const [i, byte] of Buffer.from(json, "utf8").entries()) {
    const said = skipper.byte(byte);
    if (said !== "more") ends.push(`${said}@${i}`);
  }
  return { ends, whole: skipper.whole };
}

describe("StringBytes", () => {
  it("gives what JSON.parse gives for the same string, escapes and multi-byte text included", () => {
    for (const value of ["plain", "", "tab\there \"quoted\" back\\slash /", "é 中 😀", "\u0001\u001f", "\b\f\n\r"]) {
      const json = JSON.stringify(value);
      expect(decode(json.slice(1)), json).toEqual({ text: value, closedAt: Buffer.byteLength(json) - 2 });
    }
    expect(decode(String.raw`\/\u00e9\u4E2D"`).text).toBe("/é中");
  });

  it("joins a surrogate pair from two \\u escapes and gives U+FFFD for a lone half, as capture writes it", () => {
    expect(decode(String.raw`\ud83d\ude00"`).text).toBe("😀");
    expect(decode(String.raw`\ud83dx"`).text).toBe("\uFFFDx");
    expect(decode(String.raw`\ude00"`).text).toBe("\uFFFD");
    expect(decode(String.raw`\ud83d"`).text).toBe("\uFFFD");
    expect(decode(String.raw`\ud83d\ud83d\ude00"`).text).toBe("\uFFFD😀");
    expect(decode(String.raw`\ud83d\n"`).text).toBe("\uFFFD\n");
  });

  it("is plain only outside an escape, so a caller may hand on runs of bytes as they are", () => {
    const reader = new StringBytes(() => undefined, fail);
    expect(reader.plain).toBe(true);
    reader.byte(0x5c);
    expect(reader.plain).toBe(false);
    for (const byte of Buffer.from("u123")) reader.byte(byte);
    expect(reader.plain).toBe(false);
    reader.byte(0x34);
    expect(reader.plain).toBe(true);
    for (const byte of Buffer.from(String.raw`\ud83d`)) reader.byte(byte);
    expect(reader.plain).toBe(false);
  });

  it("fails on an escape JSON has not", () => {
    expect(() => decode(String.raw`\x"`)).toThrow("a bad escape");
    expect(() => decode(String.raw`\u12g4"`)).toThrow("a bad \\u escape");
    expect(() => decode(String.raw`\'"`)).toThrow(Bad);
  });
});

describe("Skipper", () => {
  it("says done at the byte that ends a string or a container, and after at the byte past a scalar", () => {
    expect(skip(`"a\\"b}"`)).toEqual({ ends: ["done@6"], whole: true });
    const nested = `{"a":[1,{"b":"]"}],"c":null}`;
    expect(skip(nested).ends).toEqual([`done@${nested.length - 1}`]);
    expect(skip(`  [ ]`).ends).toEqual(["done@4"]);
    expect(skip(`-12.5e+3,`).ends).toEqual(["after@8"]);
    expect(skip(`true}`).ends).toEqual(["after@4"]);
  });

  it("counts a number that runs to the end of the input as whole, and an open string or container not", () => {
    expect(skip("42")).toEqual({ ends: [], whole: true });
    expect(skip(`"open`).whole).toBe(false);
    expect(skip(`[1, [2]`).whole).toBe(false);
  });

  it("is plain inside a string past any escape", () => {
    const skipper = new Skipper(4, fail);
    expect(skipper.plain).toBe(false);
    skipper.byte(0x22);
    expect(skipper.plain).toBe(true);
    skipper.byte(0x5c);
    expect(skipper.plain).toBe(false);
    skipper.byte(0x22);
    expect(skipper.plain).toBe(true);
  });

  it("holds no recursion: a depth past its bound fails, one at it is passed over", () => {
    expect(skip(`${"[".repeat(8)}${"]".repeat(8)}`, 8).ends).toEqual(["done@15"]);
    expect(() => skip("[".repeat(9), 8)).toThrow("a field nested more than 8 deep");
    expect(skip(`${"[".repeat(100_000)}${"]".repeat(100_000)}`, 100_000).ends).toEqual(["done@199999"]);
  });

  it("fails on a closing bracket or a byte where a value should be", () => {
    expect(() => skip("]")).toThrow("a closing bracket where a value should be");
    expect(() => skip(":")).toThrow("a byte where a value should be");
    expect(() => skip(",")).toThrow("a byte where a value should be");
    expect(() => skip("[1;2]")).toThrow("a byte where a value should be");
  });
});
