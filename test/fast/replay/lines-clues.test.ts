import { describe, expect, it } from "vitest";
import type { AgentPlugin } from "../../../src/agents/types.js";
import type { Pinned } from "../../../src/engine/tracker.js";
import { linesRelevance, MAY_CHANGE, NAMES_PIN, SILENT } from "../../../src/fast/replay/lines-clues.js";
import { ByteScan } from "../../../src/fast/skim/byte-scan.js";

/** Runs of whole lines asked at once, as blocks.ts asks them: the bytes shaped by a real ByteScan first. */
const json: AgentPlugin["json"] = [
  { name: "init", field: "session_id", when: { type: ["system"] }, state: "provisional" },
  { name: "result", field: "session_id", when: { type: ["result"], subtype: ["success"] }, state: "confirmed" },
  { name: "thread", field: "thread.id", state: "provisional" },
];
const A = "T-0a1b2c3d-0000-4000-8000-00000000000a";
const B = "T-0a1b2c3d-0000-4000-8000-00000000000b";
const confirmed: Pinned = { id: A, state: "confirmed", rule: "result" };
const provisional: Pinned = { id: A, state: "provisional", rule: "init" };

const scan = new ByteScan();
function verdict(lines: readonly string[], pinned: Pinned | undefined, relevance = linesRelevance({ json, textRules: 0 })): number {
  const bytes = Buffer.from(lines.map((line) => `${line}\n`).join(""), "utf8");
  const last = scan.shape(bytes, 0);
  expect(last).toBe(bytes.length);
  return relevance(scan.lines(0, last), pinned);
}

describe("linesRelevance", () => {
  it("names the pin when every field of the lines holds the pinned ID, and is silent when none is there", () => {
    expect(verdict([`{"type":"user","session_id":"${A}"}`, '{"type":"assistant","text":"hi"}', `{"thread":{"id":"${A}"}}`], confirmed)).toBe(NAMES_PIN);
    expect(verdict(['{"type":"assistant","text":"hi"}', "plain text"], confirmed)).toBe(SILENT);
  });

  it("may change the pin when there is none, or a field holds anything but the pinned ID", () => {
    expect(verdict([`{"session_id":"${A}"}`], undefined)).toBe(MAY_CHANGE);
    expect(verdict([`{"session_id":"${A}"}`, `{"session_id":"${B}"}`], confirmed)).toBe(MAY_CHANGE);
    expect(verdict([`{"session_id":null}`], confirmed)).toBe(MAY_CHANGE);
    expect(verdict([`{"session_id" : "${A}"}`], confirmed)).toBe(MAY_CHANGE);
  });

  it("may change the pin where a JSON escape could spell a name or the ID another way", () => {
    expect(verdict([`{"session_id":"${A}","text":"a\\u0020b"}`], confirmed)).toBe(MAY_CHANGE);
    expect(verdict([`{"session_id":"${A}","path":"a\\/b"}`], confirmed)).toBe(MAY_CHANGE);
    // Other escapes change nothing.
    expect(verdict([`{"session_id":"${A}","text":"say \\"hi\\"\\n"}`], confirmed)).toBe(NAMES_PIN);
    // An ID JSON would escape can be written more than one way.
    expect(verdict([`{"session_id":"a\\"b"}`], { id: 'a"b', state: "confirmed", rule: "result" })).toBe(MAY_CHANGE);
  });

  it("may change a provisional pin only where a confirming rule's values are all there", () => {
    expect(verdict([`{"type":"result","subtype":"success","session_id":"${A}"}`], provisional)).toBe(MAY_CHANGE);
    expect(verdict([`{"type":"result","subtype":"error","session_id":"${A}"}`], provisional)).toBe(NAMES_PIN);
    expect(verdict([`{"type":"result","subtype":"success","session_id":"${A}"}`], confirmed)).toBe(NAMES_PIN);
  });

  it("may change anything for a plugin with text rules", () => {
    expect(verdict(["plain text"], confirmed, linesRelevance({ json, textRules: 1 }))).toBe(MAY_CHANGE);
  });

  it("asks again when the pin changes", () => {
    const relevance = linesRelevance({ json, textRules: 0 });
    const lines = [`{"session_id":"${B}"}`];
    expect(verdict(lines, confirmed, relevance)).toBe(MAY_CHANGE);
    expect(verdict(lines, { id: B, state: "confirmed", rule: "result" }, relevance)).toBe(NAMES_PIN);
    expect(verdict(lines, confirmed, relevance)).toBe(MAY_CHANGE);
  });
});
