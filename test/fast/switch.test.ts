import { describe, expect, it } from "vitest";
import { fastPaths } from "../../src/fast/switch.js";

describe("fastPaths", () => {
  it("is on unless SESSIONPIN_NO_FAST is exactly 1", () => {
    expect(fastPaths({})).toBe(true);
    expect(fastPaths({ SESSIONPIN_NO_FAST: "1" })).toBe(false);
    for (const value of ["0", "", "true", "yes", " 1"]) expect(fastPaths({ SESSIONPIN_NO_FAST: value }), value).toBe(true);
  });
});
