import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { agents } from "../../src/agents/registry.js";
import type { AgentPlugin } from "../../src/agents/types.js";
import { captureAll } from "../../src/engine/capture/pipeline.js";
import { Extractor } from "../../src/engine/extract.js";
import { Explainer, type TraceEvent } from "../../src/engine/trace.js";
import { ROOT } from "../helpers/sandbox.js";

const fixture = (path: string): Buffer => readFileSync(join(ROOT, "fixtures", path));
const expectedId = (path: string): string => (JSON.parse(readFileSync(join(ROOT, "fixtures", path, "expected.json"), "utf8")) as { id: string }).id;

/** Every trace event of `output` read by `plugin`'s explainer, the `others` checked for wrong-agent IDs. */
function traced(plugin: AgentPlugin, output: Buffer | string, o: { others?: AgentPlugin[]; maxLineBytes?: number; tracing?: boolean } = {}): TraceEvent[] {
  const explainer = new Explainer(new Extractor(plugin), o.others ?? [], o.tracing ?? true);
  return captureAll([output], o.maxLineBytes).flatMap((line) => explainer.line(line).trace);
}

describe("Explainer", () => {
  it("shows what the rules took, and an ID-like field no rule reads as a look-alike", () => {
    const id = expectedId("amp/lookalikes");
    const trace = traced(agents.amp, fixture("amp/lookalikes/input.jsonl"));
    expect(trace.filter((e) => e.outcome === "taken").map((e) => [e.line, e.rule, e.state, e.value])).toEqual([
      [1, "system-init", "provisional", id], ...[2, 3, 4, 5, 6].map((n) => [n, "message", "provisional", id]), [7, "result", "confirmed", id],
    ]);
    expect(trace.find((e) => e.reason === "look-alike field")).toMatchObject({
      line: 8, plugin: "amp", rule: "session_id", value: "T-019eb6cc-6f3c-7c4a-b66c-9007eba97e84", detail: "no amp rule reads session_id on this line",
    });
  });

  it("shows an ID superseded by a later one at the line that gave it", () => {
    const trace = traced(agents.amp, fixture("amp/fork-new-id/input.jsonl"));
    expect(trace.filter((e) => e.reason === "superseded by a later ID")).toEqual([{
      line: 3, text: "", plugin: "amp", rule: "result", outcome: "refused", value: "T-019f1a2b-3c4d-7e5f-8a9b-0c1d2e3f4a5b",
      reason: "superseded by a later ID", detail: `${expectedId("amp/fork-new-id")} on line 4`,
    }]);
  });

  it("shows a line that starts like JSON but does not parse, and one cut at the capture's limit", () => {
    expect(traced(agents.amp, fixture("amp/truncated-json/input.jsonl"))).toContainEqual(expect.objectContaining({ line: 3, plugin: "*", rule: "capture", reason: "invalid JSON" }));
    const long = traced(agents.amp, `start\n${"x".repeat(5_000)}\nend\n`, { maxLineBytes: 1_000 });
    expect(long).toEqual([expect.objectContaining({ line: 2, plugin: "*", rule: "capture", outcome: "refused", reason: "line too long", detail: "cut at the capture limit; not parsed" })]);
  });

  it("shows an ID another agent's rules would take as the wrong agent's", () => {
    const trace = traced(agents.aider, fixture("amp/stream-basic/input.jsonl"), { others: [agents.amp, agents.claude] });
    expect(trace.length).toBeGreaterThan(0);
    expect(trace.every((e) => e.outcome === "refused" && e.reason === "wrong agent" && e.plugin === "amp" && e.detail === "the agent is aider")).toBe(true);
  });

  it("gives each event the line's place, and its text shortened to 160 characters", () => {
    const explainer = new Explainer(new Extractor(agents.amp));
    const line = captureAll([`${JSON.stringify({ type: "system", subtype: "init", session_id: "T-019cbd80-4c4f-79af-bee4-8834a30bbd19", pad: "p".repeat(300) })}\n`])[0];
    if (line === undefined) throw new Error("no line");
    const [event] = explainer.line({ ...line, offset: 4096 }, 2.5).trace;
    expect(event).toMatchObject({ line: 1, offset: 4096, time: 2.5, outcome: "taken" });
    expect(event?.text).toHaveLength(160);
    expect(event?.text.endsWith("…")).toBe(true);
  });

  it("does only the extractor's work when not tracing: the same verdicts and pin, no events", () => {
    const output = fixture("amp/lookalikes/input.jsonl");
    expect(traced(agents.amp, output, { tracing: false })).toEqual([]);
    const quiet = new Explainer(new Extractor(agents.amp), [agents.claude], false);
    const loud = new Explainer(new Extractor(agents.amp), [agents.claude]);
    for (const line of captureAll([output])) expect(quiet.line(line).verdicts).toEqual(loud.line(line).verdicts);
    expect(quiet.extractor.tracker.current).toEqual(loud.extractor.tracker.current);
  });
});
