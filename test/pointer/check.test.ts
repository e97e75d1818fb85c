import { describe, expect, it } from "vitest";
import { normalized, surelyValid } from "../../src/pointer/check.js";
import { PointerSchema, type Pointer } from "../../src/pointer/schema.js";

const base: Pointer = {
  version: 1,
  agent: "amp",
  id: "T-0199a3b2-7c1d-7e40-9d3f-1a2b3c4d5e6f",
  state: "provisional",
  cwd: "/work/proj",
  key: "pr-42",
  messages: [{ sha256: "a".repeat(64), at: "2026-11-22T21:30:01.000Z" }],
  capturedAt: "2026-11-22T21:30:00.000Z",
  confirmedAt: "2026-11-22T21:30:05.000Z",
  lastRunAt: "2026-11-22T21:31:00.000Z",
  source: { rule: "init", line: 3 },
  history: [{ id: "old", at: "2026-11-21T10:00:00.000Z", reason: "rejected" }],
};

// Each one changes one field of `base`.
const variants: Record<string, Record<string, unknown>> = {
  "minimal": { key: undefined, messages: undefined, confirmedAt: undefined, lastRunAt: undefined, source: { rule: "r" }, history: [] },
  "version 2": { version: 2 },
  "version as text": { version: "1" },
  "empty agent": { agent: "" },
  "empty id": { id: "" },
  "id a number": { id: 7 },
  "unknown state": { state: "pinned" },
  "relative cwd": { cwd: "relative/dir" },
  "time with an offset": { capturedAt: "2026-11-22T22:30:00.000+01:00" },
  "time without milliseconds": { capturedAt: "2026-11-22T21:30:00Z" },
  "30 February": { capturedAt: "2026-02-30T21:30:00.000Z" },
  "hour 24": { capturedAt: "2026-11-22T24:00:00.000Z" },
  "29 February of a leap year": { capturedAt: "2024-02-29T21:30:00.000Z" },
  "29 February of 2100": { capturedAt: "2100-02-29T21:30:00.000Z" },
  "29 February of 2000": { capturedAt: "2000-02-29T21:30:00.000Z" },
  "31 April": { capturedAt: "2026-04-31T21:30:00.000Z" },
  "month 0": { capturedAt: "2026-00-10T21:30:00.000Z" },
  "day 0": { capturedAt: "2026-05-00T21:30:00.000Z" },
  "second 60": { capturedAt: "2026-11-22T21:30:60.000Z" },
  "minute 60": { lastRunAt: "2026-11-22T21:60:00.000Z" },
  "a date only": { capturedAt: "2026-11-22" },
  "no capturedAt": { capturedAt: undefined },
  "confirmedAt not a time": { confirmedAt: "soon" },
  "line 0": { source: { rule: "r", line: 0 } },
  "line 1.5": { source: { rule: "r", line: 1.5 } },
  "rule missing": { source: { line: 1 } },
  "source an array": { source: [] },
  "empty key": { key: "" },
  "sha256 upper case": { messages: [{ sha256: "A".repeat(64), at: "2026-11-22T21:30:01.000Z" }] },
  "sha256 short": { messages: [{ sha256: "a".repeat(63), at: "2026-11-22T21:30:01.000Z" }] },
  "messages not a list": { messages: {} },
  "history missing": { history: undefined },
  "history entry without reason": { history: [{ id: "old", at: "2026-11-21T10:00:00.000Z" }] },
  "history entry null": { history: [null] },
  "unknown fields": { extra: true, source: { rule: "r", line: 2, note: "x" } },
};

const DEFERRED = new Set(["time with an offset", "time without milliseconds"]);

describe("surelyValid: the write side's check without zod", () => {
  for (const [name, change] of Object.entries(variants)) {
    it(`agrees with PointerSchema or defers to it: ${name}`, () => {
      const value = { ...base, ...change } as Pointer;
      for (const [k, v] of Object.entries(change)) if (v === undefined) delete (value as Record<string, unknown>)[k];
      const schema = PointerSchema.safeParse(value);
      // Sound: never accepts what the schema refuses. Complete but for the times only a hand could
      // have written, which go to the schema.
      expect(surelyValid(value)).toBe(schema.success && !DEFERRED.has(name));
      if (surelyValid(value)) expect(JSON.stringify(normalized(value))).toBe(JSON.stringify(schema.data));
    });
  }

  it.each([["null", null], ["a list", [base]], ["text", JSON.stringify(base)], ["a number", 1]])("refuses %s read from a file, as the schema does", (_name, value) => {
    expect(PointerSchema.safeParse(value).success).toBe(false);
    expect(surelyValid(value)).toBe(false);
  });

  it("accepts what sessionpin writes, in the schema's field order", () => {
    const written = { history: [], source: { rule: "init" }, capturedAt: new Date().toISOString(), cwd: "/w", state: "confirmed", id: "x", agent: "amp", version: 1 } as Pointer;
    expect(surelyValid(written)).toBe(true);
    expect(JSON.stringify(normalized(written))).toBe(JSON.stringify(PointerSchema.parse(written)));
  });
});
