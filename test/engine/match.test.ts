import { describe, expect, it } from "vitest";
import { fitsGrammar, MAX_ID_LENGTH } from "../../src/engine/match.js";

describe("fitsGrammar, the one test every ID meets", () => {
  const loose = /^[a-z-]+$/;
  it("takes what the grammar takes, up to MAX_ID_LENGTH characters", () => {
    expect(fitsGrammar(loose, "a".repeat(MAX_ID_LENGTH))).toBe(true);
    expect(fitsGrammar(loose, "a".repeat(MAX_ID_LENGTH + 1))).toBe(false);
  });

  it("never takes an empty value, a leading - (an option to a parser), or NUL, CR or LF, whatever the grammar", () => {
    for (const value of ["", "-resume", "a\nb", "a\rb", "a\0b"]) expect(fitsGrammar(/^[\s\S]*$/, value), JSON.stringify(value)).toBe(false);
  });
});
