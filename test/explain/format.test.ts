import { describe, expect, it } from "vitest";
import type { TraceEvent } from "../../src/engine/trace.js";
import { formatTrace } from "../../src/explain/format.js";

const ID = "T-019cbd80-4c4f-79af-bee4-8834a30bbd19";
const TEXT = `{"type":"system","subtype":"init","session_id":"${ID}"}`;

const taken: TraceEvent = { line: 12, offset: 3456, time: 2.3456, text: TEXT, plugin: "amp", rule: "system-init", outcome: "taken", state: "provisional", value: ID };

describe("formatTrace", () => {
  it("prints where, which rule, the outcome, then the line, in columns", () => {
    expect(formatTrace(taken, false)).toBe(`L12 b3456 2.35s    taken    amp/system-init          provisional  ${ID}  │ ${TEXT}`);
  });

  it("leaves out the byte offset and time a recording has not got, and the bar of an empty line", () => {
    expect(formatTrace({ ...taken, offset: undefined, time: undefined, text: "" }, false)).toBe(`L12                taken    amp/system-init          provisional  ${ID}`);
  });

  it("says why a value was refused, with the value quoted and the detail in brackets", () => {
    const superseded: TraceEvent = { line: 3, text: TEXT, plugin: "amp", rule: "result", outcome: "refused", value: "T-x", reason: "superseded by a later ID", detail: "T-y on line 4" };
    expect(formatTrace(superseded, false)).toBe(`L3                 refused  amp/result               superseded by a later ID "T-x" (T-y on line 4)  │ ${TEXT}`);
    const cut: TraceEvent = { line: 2, text: "xxx", plugin: "*", rule: "capture", outcome: "refused", reason: "line too long", detail: "cut" };
    expect(formatTrace(cut, false)).toBe("L2                 refused  */capture                line too long (cut)  │ xxx");
  });

  it("in colour, paints the outcome and the ID, and marks the ID wherever the line shows it", () => {
    const line = `say ${ID} twice: ${ID}`;
    expect(formatTrace({ ...taken, text: line }, true)).toBe(
      `L12 b3456 2.35s    \x1b[32mtaken\x1b[0m    amp/system-init          provisional  \x1b[1m${ID}\x1b[0m  │ say \x1b[7m${ID}\x1b[0m twice: \x1b[7m${ID}\x1b[0m`,
    );
    expect(formatTrace({ ...taken, outcome: "refused", reason: "wrong agent", state: undefined }, true)).toMatch(/^L12 b3456 2\.35s {4}\x1b\[33mrefused\x1b\[0m {2}amp\/system-init/);
    // Without colour, nothing but the escaped text.
    expect(formatTrace({ ...taken, text: line }, false)).not.toContain("\x1b");
  });

  it("is what explain shows: the line, the rule and the value escaped", () => {
    const line = formatTrace({ line: 3, text: 'x \u202e{"id":"\x1b[31m"}', plugin: "amp", rule: "r\u202e", outcome: "refused", value: "T-\u202eabc\x9b", reason: "grammar mismatch" }, false);
    expect(line).toBe('L3                 refused  amp/r\\u{202e}            grammar mismatch "T-\\u{202e}abc\\x9b"  │ x \\u{202e}{"id":"\\x1b[31m"}');
  });

  it("escapes a taken value and a detail too, in colour as without", () => {
    const odd: TraceEvent = { line: 1, text: "\x1b]0;t\x07", plugin: "p", rule: "r", outcome: "refused", value: "v", reason: "look-alike field", detail: "no rule reads a\x1b[2J" };
    expect(formatTrace(odd, false)).toBe('L1                 refused  p/r                      look-alike field "v" (no rule reads a\\x1b[2J)  │ \\x1b]0;t\\x07');
    const shown = formatTrace({ ...taken, value: "T-\x1b[2J", text: "T-\x1b[2J" }, true);
    expect(shown).not.toContain("\x1b[2J");
    expect(shown).toContain("\x1b[7mT-\\x1b[2J\x1b[0m");
  });
});
