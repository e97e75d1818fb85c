import { describe, expect, it } from "vitest";
import type { AgentPlugin } from "../../../src/agents/types.js";
import { confirmingValues, fieldNames, IRRELEVANT, JUDGE, lineClues, mayConfirm, PinCheck, relevanceRules } from "../../../src/fast/replay/clues.js";

/**
 * The clues a line's raw bytes give before any pin is asked, for a plugin of stream-json rules
 * made up here (Amp's and Claude's shape: an ID at `session_id`, confirmed by a `result`).
 */
const json: AgentPlugin["json"] = [
  { name: "init", field: "session_id", when: { type: ["system"] }, state: "provisional" },
  { name: "result", field: "meta.session_id", when: { type: ["result"], subtype: ["success", "done"] }, state: "confirmed" },
  { name: "thread", field: "thread", state: "provisional" },
];
const clues = lineClues({ json, textRules: 0 });
const A = "T-0a1b2c3d-0000-4000-8000-00000000000a";
const B = "T-0a1b2c3d-0000-4000-8000-00000000000b";
const latin1 = (text: string): string => Buffer.from(text, "utf8").toString("latin1");

describe("lineClues", () => {
  it("gives the one ID value a line names at any rule's field name, at any depth", () => {
    expect(clues.clue(`{"type":"user","session_id":"${A}"}`)).toBe(A);
    expect(clues.clue(`{"type":"result","meta":{"session_id" : "${A}"},"session_id":"${A}"}`)).toBe(A);
    expect(clues.clue(`{"thread":"${B}"}`)).toBe(B);
  });

  it("says IRRELEVANT of a line no rule reads: no object, no field name, or a name that holds no string", () => {
    expect(clues.clue(`session_id ${A}`)).toBe(IRRELEVANT);
    expect(clues.clue('{"type":"assistant","text":"hi"}')).toBe(IRRELEVANT);
    expect(clues.clue(`{"text":"the session_id is ${A}"}`)).toBe(IRRELEVANT);
    expect(clues.clue('{"session_id":null,"thread":42}')).toBe(IRRELEVANT);
  });

  it("says JUDGE where only a parse can tell: two values, an escaped value, controls, or a wrapped row", () => {
    expect(clues.clue(`{"session_id":"${A}","thread":"${B}"}`)).toBe(JUDGE);
    expect(clues.clue(`{"session_id":"T-\\"quoted"}`)).toBe(JUDGE);
    expect(clues.clue(`{"session\\u005fid":"${A}"}`)).toBe(JUDGE);
    expect(clues.clue(`{"session_id":"T-0a1b\\/x"}`)).toBe(JUDGE);
    expect(clues.clue(`{"session_\x1b[0mid":"${A}"}`)).toBe(JUDGE);
    expect(clues.clue(latin1(`{"session_id":"${A}","x":"\u0085"}`))).toBe(JUDGE);
    // The first row of a JSON line a screen wrapped: its fields may be on the next rows.
    expect(clues.clue(`{"type":"system","session_id":"${A}","tools":[`)).toBe(JUDGE);
  });

  it("takes other non-ASCII text as plain bytes", () => {
    expect(clues.clue(latin1(`{"session_id":"${A}","text":"é 中 😀 \u00a0"}`))).toBe(A);
  });

  it("says a line may confirm only when every condition of a confirming rule appears", () => {
    expect(clues.confirms(`{"type":"result","subtype":"success","meta":{"session_id":"${A}"}}`)).toBe(true);
    expect(clues.confirms(`{"type":"result","subtype":"done"}`)).toBe(true);
    expect(clues.confirms(`{"type":"result","subtype":"error"}`)).toBe(false);
    expect(clues.confirms(`{"type":"system","subtype":"success"}`)).toBe(false);
  });

  it("judges every line of a plugin with text rules", () => {
    const withText = lineClues({ json, textRules: 1 });
    expect(withText.clue("plain text")).toBe(JUDGE);
    expect(withText.confirms("anything")).toBe(true);
  });
});

describe("the rules' parts", () => {
  it("are the last segment of each field path, and each confirming rule's allowed values as JSON bytes", () => {
    expect(fieldNames(json)).toEqual(["session_id", "thread"]);
    expect(confirmingValues(json)).toEqual([[['"result"'], ['"success"', '"done"']]]);
    expect(confirmingValues([{ name: "c", field: "id", when: { kind: ["é"] }, state: "confirmed" }])).toEqual([[[latin1('"é"')]]]);
    const plugin = { json, text: [{ name: "t" }] } as unknown as AgentPlugin;
    expect(relevanceRules(plugin)).toEqual({ json, textRules: 1 });
  });

  it("mayConfirm asks for an allowed value of every condition of one rule", () => {
    const rules = [[["a"], ["b", "c"]], [["d"]]];
    const among = (found: string[]) => mayConfirm(rules, (value: string) => found.includes(value));
    expect(among(["a", "c"])).toBe(true);
    expect(among(["d"])).toBe(true);
    expect(among(["a"])).toBe(false);
    expect(among([])).toBe(false);
    expect(mayConfirm([], () => true)).toBe(false);
  });
});

describe("PinCheck", () => {
  it("says a value matters unless it is the pin, and leaves a provisional pin's to the confirming rules", () => {
    const check = new PinCheck();
    expect(check.matters(A, undefined)).toBe(true);
    expect(check.matters(A, { id: B, state: "confirmed", rule: "r" })).toBe(true);
    expect(check.matters(A, { id: A, state: "confirmed", rule: "r" })).toBe(false);
    expect(check.matters(A, { id: A, state: "provisional", rule: "r" })).toBeUndefined();
    // The pin is text; a value is its UTF-8 bytes as latin1.
    expect(check.matters(latin1("sess-é"), { id: "sess-é", state: "confirmed", rule: "r" })).toBe(false);
    expect(check.matters("sess-é", { id: "sess-é", state: "confirmed", rule: "r" })).toBe(true);
  });
});
