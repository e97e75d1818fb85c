import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { exactBytes, exactString } from "../src/bytes.js";
import { sha256Hex } from "../src/digest.js";
import { seeded } from "./helpers/random.js";

const randomBytes = (random: () => number, n: number): Buffer => Buffer.from(Array.from({ length: n }, () => Math.floor(random() * 256)));
const sha256 = (bytes: Uint8Array): string => createHash("sha256").update(bytes).digest("hex");

describe("names kept as bytes", () => {
  it("reads valid UTF-8 as Node does, and any bytes back as they were", () => {
    for (const text of ["", "pr-7", "thread é 😀 ✓", "\u{10ffff}\u0000"]) {
      expect(exactString(Buffer.from(text))).toBe(text);
      expect(Buffer.from(exactBytes(text)).toString()).toBe(text);
      expect(sha256Hex(text)).toBe(sha256(Buffer.from(text)));
    }
    const random = seeded(7);
    for (let i = 0; i < 2_000; i++) {
      const bytes = randomBytes(random, Math.floor(random() * 24));
      const text = exactString(bytes);
      expect(Buffer.from(exactBytes(text)).equals(bytes)).toBe(true);
      // The hash of a key is the hash of its bytes.
      expect(sha256Hex(text)).toBe(sha256(bytes));
    }
  });

  it("keeps apart keys Node's decoding makes one: each byte that is no UTF-8 stays itself", () => {
    const keys = [[0xff], [0xfe], [0xc0, 0xaf], [0xed, 0xa0, 0x80], [0xe2, 0x82], [0xf4, 0x90, 0x80, 0x80]].map((b) => Buffer.from(b));
    // Node turns each into U+FFFD: every one of them the same key.
    expect(new Set(keys.map((k) => k.toString("utf8").replace(/\uFFFD+/g, "\uFFFD"))).size).toBe(1);
    expect(new Set(keys.map((k) => exactString(k))).size).toBe(keys.length);
    expect(new Set(keys.map((k) => sha256Hex(exactString(k)))).size).toBe(keys.length);
    expect(exactString(Buffer.from([0x61, 0xff, 0x62]))).toBe("a\udcffb");
  });
});
