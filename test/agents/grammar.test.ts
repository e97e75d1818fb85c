import { describe, expect, it } from "vitest";
import { definePlugin } from "../../src/agents/declarative.js";
import { QUOTED_UUID, STREAM_INIT, STREAM_MESSAGE, STREAM_RESULT, UUID, UUID_ONLY, uuidEntry } from "../../src/agents/grammar.js";
import { judgeLine } from "../../src/engine/match.js";

const ID = "5f0c2a9e-1b7d-4e21-9c4a-8d6f1e2b3a40";

describe("UUID_ONLY", () => {
  it("takes one lower-case dashed UUID and nothing else", () => {
    expect(UUID_ONLY.test(ID)).toBe(true);
    for (const value of [ID.toUpperCase(), `${ID}0`, ` ${ID}`, `${ID}\n`, ID.replaceAll("-", ""), ID.slice(1), "latest", ""]) {
      expect(UUID_ONLY.test(value), JSON.stringify(value)).toBe(false);
    }
  });
});

describe("QUOTED_UUID", () => {
  const found = (text: string): string | undefined => new RegExp(`--resume=${QUOTED_UUID}`).exec(text)?.groups?.["id"];
  it("takes a UUID bare, or in a matching pair of quotes", () => {
    expect(found(`agent --resume=${ID}`)).toBe(ID);
    expect(found(`agent --resume="${ID}"`)).toBe(ID);
    expect(found(`agent --resume='${ID}' to go on`)).toBe(ID);
  });
  it("refuses quotes that do not match, and a UUID another ID character follows", () => {
    expect(found(`agent --resume="${ID}'`)).toBeUndefined();
    expect(found(`agent --resume=${ID}0`)).toBeUndefined();
    expect(found(`agent --resume=${ID}-x`)).toBeUndefined();
    expect(found(`agent --resume=${ID}.`)).toBe(ID);
  });
});

describe("uuidEntry", () => {
  it("names a store entry by the UUID and the suffix alone, the suffix's dots meant literally", () => {
    const jsonl = uuidEntry(".jsonl");
    expect(jsonl.exec(`${ID}.jsonl`)?.groups?.["id"]).toBe(ID);
    for (const name of [`${ID}xjsonl`, `${ID}.jsonl.bak`, `x${ID}.jsonl`, `${ID}.json`, ID]) expect(jsonl.test(name), name).toBe(false);
    expect(uuidEntry().exec(ID)?.groups?.["id"]).toBe(ID);
    expect(uuidEntry().test(`${ID}.jsonl`)).toBe(false);
  });
});

describe("the stream-json rules Claude Code, Amp, Cursor and Qwen Code share", () => {
  const stream = definePlugin({ name: "stream", names: ["stream"], grammar: UUID, json: [STREAM_INIT, STREAM_MESSAGE, STREAM_RESULT], resume: ["--resume", "{id}"] });
  const judged = (event: Record<string, unknown>) => judgeLine(stream, { n: 1, text: JSON.stringify(event), json: event });

  it("take the init line and the messages as provisional, a successful result as confirmed", () => {
    expect(judged({ type: "system", subtype: "init", session_id: ID })).toEqual([{ kind: "taken", rule: "system-init", id: ID, state: "provisional" }]);
    expect(judged({ type: "user", session_id: ID })).toEqual([{ kind: "taken", rule: "message", id: ID, state: "provisional" }]);
    expect(judged({ type: "assistant", session_id: ID })).toEqual([{ kind: "taken", rule: "message", id: ID, state: "provisional" }]);
    expect(judged({ type: "result", subtype: "success", session_id: ID })).toEqual([{ kind: "taken", rule: "result", id: ID, state: "confirmed" }]);
  });

  it("take nothing from a failed result, another system line, or a line that names the session elsewhere", () => {
    expect(judged({ type: "result", subtype: "error_during_execution", session_id: ID })).toEqual([]);
    expect(judged({ type: "system", subtype: "api_retry", session_id: ID })).toEqual([]);
    expect(judged({ type: "system", subtype: "init", message: { session_id: ID } })).toEqual([]);
  });
});
