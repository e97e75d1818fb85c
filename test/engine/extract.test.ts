import { describe, expect, it } from "vitest";
import { agents } from "../../src/agents/registry.js";
import { captureAll } from "../../src/engine/capture/pipeline.js";
import { Extractor } from "../../src/engine/extract.js";
import type { IdSource } from "../../src/engine/source.js";
import { SessionTracker } from "../../src/engine/tracker.js";

const ID = "5f0c2a9e-1b7d-4e21-9c4a-8d6f1e2b3a40";
const OTHER = "7d3e9a41-2c58-4f0b-b6e7-19a8c5d2f304";
const SOURCES: readonly IdSource[] = ["json-line", "text-line", "store", "session-log", "pid-file", "upfront", "chosen"];

describe("one way into the tracker", () => {
  it.each(SOURCES)("a candidate from %s meets the grammar check before the tracker", (source) => {
    const extractor = new Extractor(agents.claude);
    const refused = extractor.offer({ source, rule: "r", state: "confirmed", value: "not-an-id" });
    expect(refused).toEqual({ verdict: { kind: "refused", rule: "r", reason: "grammar", value: "not-an-id" }, events: [] });
    expect(extractor.tracker.current).toBeUndefined();
    const taken = extractor.offer({ source, rule: "r", state: "provisional", value: ID, line: 3 });
    expect(taken.events).toEqual([{ kind: "captured", pinned: { id: ID, state: "provisional", rule: "r", line: 3 } }]);
  });

  it("the resumed ID seen again confirms it rather than capturing it", () => {
    const extractor = new Extractor(agents.claude, new SessionTracker({ id: ID, state: "provisional", rule: "pid-file" }));
    expect(extractor.offer({ source: "store", rule: "transcript", state: "confirmed", value: ID }).events.map((e) => e.kind)).toEqual(["confirmed"]);
  });
});

/** Each line of `output` through the real capture pipeline, then `extractor.line`: what each line gave. */
function feed(extractor: Extractor, output: string): Array<ReturnType<Extractor["line"]>> {
  return captureAll([output]).map((line) => extractor.line(line));
}

describe("lines of a stream", () => {
  const stream = (type: string, id: unknown, subtype?: string): string => `${JSON.stringify({ type, ...(subtype ? { subtype } : {}), session_id: id })}\n`;

  it("gives every rule's verdict, and an event only where the pin moved", () => {
    const extractor = new Extractor(agents.claude);
    const [bad, init, message, result, forked] = feed(extractor, [
      stream("system", "../etc/passwd", "init"),
      stream("system", ID, "init"),
      stream("assistant", ID),
      stream("result", ID, "success"),
      stream("system", OTHER, "init"),
    ].join(""));
    expect(bad).toEqual({ verdicts: [{ kind: "refused", rule: "system-init", reason: "grammar", value: "../etc/passwd" }], events: [] });
    expect(init?.events).toEqual([{ kind: "captured", pinned: { id: ID, state: "provisional", rule: "system-init", line: 2 } }]);
    // The same ID again, still provisional: a verdict, no event.
    expect(message).toEqual({ verdicts: [{ kind: "taken", rule: "message", id: ID, state: "provisional" }], events: [] });
    expect(result?.events).toEqual([{ kind: "confirmed", pinned: { id: ID, state: "confirmed", rule: "result", line: 4 } }]);
    expect(forked?.events).toEqual([{
      kind: "changed",
      pinned: { id: OTHER, state: "provisional", rule: "system-init", line: 5 },
      previous: { id: ID, state: "confirmed", rule: "result", line: 4 },
    }]);
    expect(extractor.tracker.current?.id).toBe(OTHER);
  });

  it("refuses a field that is no string without offering it, and keeps the pin it had", () => {
    const extractor = new Extractor(agents.claude);
    const [taken, nested] = feed(extractor, stream("system", ID, "init") + stream("result", { id: OTHER }, "success"));
    expect(taken?.events.map((e) => e.kind)).toEqual(["captured"]);
    expect(nested).toEqual({ verdicts: [{ kind: "refused", rule: "result", reason: "not-a-string", value: `{"id":"${OTHER}"}` }], events: [] });
    expect(extractor.tracker.current).toMatchObject({ id: ID, state: "provisional" });
  });
});

describe("a text row the terminal wrapped into the next", () => {
  // Qwen Code's exit hint, cut inside the ID where the row ends; a full stop follows the ID on the
  // next row, so only a row known to be full may be glued to it.
  const head = `To continue this session, run qwen --resume ${ID.slice(0, 16)}`;
  const tail = `${ID.slice(16)}.`;
  const taken = (width: number, output: string): string | undefined => {
    const extractor = new Extractor(agents.qwen, undefined, width);
    feed(extractor, output);
    return extractor.tracker.current?.id;
  };

  it("is joined to the next row when it filled the terminal's width", () => {
    expect(taken(head.length, `${head}\r\n${tail}\r\n`)).toBe(ID);
  });

  it("is not joined when it was shorter than the width, or the width is unknown", () => {
    expect(taken(head.length + 1, `${head}\r\n${tail}\r\n`)).toBeUndefined();
    expect(taken(0, `${head}\r\n${tail}\r\n`)).toBeUndefined();
  });

  it("fills the width by its characters, not its UTF-16 units: a row with emoji in it is shorter than its length", () => {
    const emoji = `😀 ${head}`;
    expect(taken([...emoji].length, `${emoji}\r\n${tail}\r\n`)).toBe(ID);
    // As many UTF-16 units as the width, one character fewer: it did not fill the row.
    expect(taken(emoji.length, `${emoji}\r\n${tail}\r\n`)).toBeUndefined();
  });

  it("is not joined across a JSON line between the two", () => {
    const json = `${JSON.stringify({ type: "system", subtype: "status" })}\r\n`;
    expect(taken(head.length, `${head}\r\n${json}${tail}\r\n`)).toBeUndefined();
  });
});
