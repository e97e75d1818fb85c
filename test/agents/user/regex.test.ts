import { describe, expect, it } from "vitest";
import { parsePlugin } from "../../../src/agents/user/parse.js";
import { judgeLine } from "../../../src/engine/match.js";
import { ACME_PLUGIN as base } from "./acme.js";

// Torture suite, hostile user plugins: a text rule that backtracks catastrophically froze the
// agent's terminal (every keystroke waited for the regex, for ever).
describe("patterns from plugin files", () => {
  it("refuses a pattern V8 cannot run in linear time, naming the field", () => {
    for (const [field, declaration] of [
      ["text.0.pattern", { ...base, text: [{ name: "t", pattern: "x (?<id>(a+)+)(?=c)", state: "confirmed" }] }],
      ["rejected.0", { ...base, rejected: ["(a+)\\1+$"] }],
      ["grammar", { ...base, grammar: "(?<=x)acme-[0-9a-f]{8}" }],
    ] as const) {
      const parsed = parsePlugin(declaration);
      expect(parsed).toEqual({ problems: [expect.stringMatching(new RegExp(`^field ${field.replace(".", "\\.")}: may backtrack without bound`))] });
    }
  });

  it("runs a nested quantifier on the output that would make it backtrack for ever in linear time", () => {
    const parsed = parsePlugin({ ...base, grammar: "[a-z]+", text: [{ name: "boom", pattern: "x (?<id>(a+)+)$", state: "confirmed" }] });
    if (!("plugin" in parsed)) throw new Error(parsed.problems.join("; "));
    const started = Date.now();
    for (let n = 25; n < 40; n++) expect(judgeLine(parsed.plugin, { n: 1, text: `x ${"a".repeat(n)}b` })).toEqual([]);
    expect(judgeLine(parsed.plugin, { n: 2, text: `x ${"a".repeat(30)}` })).toEqual([{ kind: "taken", rule: "boom", id: "a".repeat(30), state: "confirmed" }]);
    // 2^25 to 2^39 steps each for a backtracking engine.
    expect(Date.now() - started).toBeLessThan(5_000);
  });
});
