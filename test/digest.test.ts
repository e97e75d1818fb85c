import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { md5Hex, randomUuid, sha256Hex, uniqueHex } from "../src/digest.js";
import { tempPathFor, tempWriter } from "../src/pointer/atomic.js";
import { seeded } from "./helpers/seeded.mjs";

// Paths sessionpin made with node:crypto before must come out the same: a pointer would be lost.
const texts = ["", "/home/coder/project", "T-0199a3b2-7c1d-7e40-9d3f-1a2b3c4d5e6f", "naïve café ✓ 日本語 \u{1f600}", "x".repeat(1000)];

describe("digests", () => {
  it.each(texts.map((text) => [text.slice(0, 20), text]))("sha256Hex and md5Hex of %j are node:crypto's", (_label, text) => {
    expect(sha256Hex(text)).toBe(createHash("sha256").update(text, "utf8").digest("hex"));
    expect(md5Hex(text)).toBe(createHash("md5").update(text, "utf8").digest("hex"));
  });

  it("agree with node:crypto on 200 random strings of every length up to 300 (block edges included)", () => {
    const random = seeded(21);
    for (let n = 0; n < 200; n++) {
      const text = Array.from({ length: Math.floor(random() * 300) }, () => String.fromCodePoint(Math.floor(random() * 0x2fff))).join("");
      expect(sha256Hex(text)).toBe(createHash("sha256").update(text, "utf8").digest("hex"));
    }
  });
});

describe("names", () => {
  it("uniqueHex gives 12 hex digits that the temp file sweep reads back as this writer's", () => {
    const seen = new Set<string>();
    for (let n = 0; n < 1000; n++) {
      const hex = uniqueHex();
      expect(hex).toMatch(/^[0-9a-f]{12}$/);
      seen.add(hex);
    }
    expect(seen.size).toBe(1000);
    const temp = tempPathFor("/s/p.json", 4242);
    expect(tempWriter("/s/p.json", temp.slice("/s/".length))).toBe(4242);
  });

  it("randomUuid gives version 4 UUIDs", () => {
    expect(randomUuid()).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(randomUuid()).not.toBe(randomUuid());
  });
});
