import { describe, expect, it } from "vitest";
import { forTerminal, jsonForTerminal } from "../../src/explain/escape.js";

describe("text for a terminal", () => {
  it("escapes what would act or mislead, and leaves the rest as it was", () => {
    expect(forTerminal("T-019c479a plain ✓ é 😀 back\\slash")).toBe("T-019c479a plain ✓ é 😀 back\\slash");
    expect(forTerminal("\x1b]0;owned\x07\x1b[2J")).toBe("\\x1b]0;owned\\x07\\x1b[2J");
    expect(forTerminal("a\nb\rc\td\x7f\x9b")).toBe("a\\nb\\rc\\td\\x7f\\x9b");
    // A right-to-left override shows `T-cba` for `T-abc`; isolates, marks and zero-width characters hide.
    expect(forTerminal("T-\u202eabc\u202c \u2066x\u2069 \u200bz\u200d \ufeff")).toBe("T-\\u{202e}abc\\u{202c} \\u{2066}x\\u{2069} \\u{200b}z\\u{200d} \\u{feff}");
    // A byte that was no UTF-8 (kept as U+DC80-U+DCFF), and a lone half of a surrogate pair.
    expect(forTerminal("key-\udcff-\ud800")).toBe("key-\\xff-\\u{d800}");
  });

});

describe("JSON for a terminal", () => {
  it("is the same JSON to a parser, with what a terminal would act on or hide as \\u escapes", () => {
    const value = { id: "T-\u202eabc\x1b[2J\x9b", key: "k\udcff", plain: "é ✓" };
    const json = jsonForTerminal(value);
    expect(JSON.parse(json)).toEqual(value);
    expect(json).toBe('{"id":"T-\\u202eabc\\u001b[2J\\u009b","key":"k\\udcff","plain":"é ✓"}');
  });
});
