import { describe, expect, it } from "vitest";
import { Extractor } from "../../src/engine/extract.js";
import { SessionTracker } from "../../src/engine/tracker.js";
import type { IdSource } from "../../src/engine/source.js";
import { agents } from "../../src/agents/registry.js";

const ID = "5f0c2a9e-1b7d-4e21-9c4a-8d6f1e2b3a40";
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
