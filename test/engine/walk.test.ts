import { describe, expect, it } from "vitest";
import { agents } from "../../src/agents/registry.js";
import { Explainer } from "../../src/engine/trace.js";
import { Extractor } from "../../src/engine/extract.js";
import { preview, stringsIn } from "../../src/engine/walk.js";
import { parseJsonObject } from "../../src/json.js";

/** A JSON array nested `depth` deep around 1, as text: `[[[1]]]`. */
const nested = (depth: number, open = "[", close = "]"): string => `${open.repeat(depth)}1${close.repeat(depth)}`;

describe("the bounded walker", () => {
  it("shows a short, shallow value exactly as JSON.stringify does", () => {
    for (const value of [42, null, true, "T-x", ["T-x"], { deep: [1, 2, { a: "b" }] }, [], {}, [null, [null]], { "k\"ey": "v\n" }]) {
      expect(preview(value)).toBe(JSON.stringify(value));
    }
  });

  it("cuts a long or deep value, in time and memory that do not grow with it", () => {
    const deep = JSON.parse(nested(200_000)) as unknown;
    expect(preview(deep)).toBe(`${"[".repeat(8)}[…]${"]".repeat(8)}`);
    const wide = Array.from({ length: 1_000_000 }, (_, i) => i);
    const shown = preview(wide);
    expect(shown.length).toBeLessThanOrEqual(200);
    expect(shown.endsWith("…")).toBe(true);
    expect(preview("x".repeat(10_000)).length).toBeLessThanOrEqual(200);
  });

  it("finds strings in document order, never deeper or further than its bounds", () => {
    const value = { a: "1", b: { c: "2", d: ["3", { e: "4" }] }, f: "5" };
    expect([...stringsIn(value, { depth: 6, values: 100 })]).toEqual([["a", "1"], ["b.c", "2"], ["b.d.0", "3"], ["b.d.1.e", "4"], ["f", "5"]]);
    expect([...stringsIn(value, { depth: 1, values: 100 })]).toEqual([["a", "1"], ["f", "5"]]);
    expect([...stringsIn(value, { depth: 6, values: 3 })]).toEqual([["a", "1"]]);
    // 200,000 levels: no stack is used for them.
    expect([...stringsIn(JSON.parse(nested(200_000, '{"session_id":', "}")) as unknown, { depth: 1_000_000, values: 1_000_000 })]).toEqual([]);
  });
});

describe("a line whose ID field is nested thousands deep", () => {
  // Claude 2.1's stream-json init line, with the session_id an array nested 5,000 deep: about 10 KB.
  for (const depth of [5_000, 100_000]) {
    it(`is refused as not a string, not a stack overflow (${depth} deep)`, () => {
      const text = `{"type":"system","subtype":"init","session_id":${nested(depth)}}`;
      const json = parseJsonObject(text);
      expect(json).toBeDefined();
      // The explainer walks the line too (look-alike fields), as `explain` and `run --trace` do.
      const explainer = new Explainer(new Extractor(agents.claude), [agents.amp, agents.codex]);
      const { verdicts, trace } = explainer.line({ n: 1, text, ...(json ? { json } : {}) });
      expect(verdicts).toEqual([expect.objectContaining({ kind: "refused", reason: "not-a-string", value: expect.stringMatching(/^\[{8}\[…\]{9}$/) })]);
      expect(trace.every((event) => event.outcome === "refused")).toBe(true);
      expect(explainer.extractor.tracker.current).toBeUndefined();
    });
  }
});
