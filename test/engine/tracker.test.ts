import { describe, expect, it } from "vitest";
import type { Verdict } from "../../src/engine/match.js";
import { SessionTracker, type Pinned } from "../../src/engine/tracker.js";

const A = "5f0c2a9e-1b7d-4e21-9c4a-8d6f1e2b3a40";
const B = "7d3e9a41-2c58-4f0b-b6e7-19a8c5d2f304";

const taken = (id: string, state: "provisional" | "confirmed", rule = "r"): Verdict => ({ kind: "taken", rule, id, state });

describe("SessionTracker", () => {
  it("captures the first ID taken, with the rule and line that gave it", () => {
    const tracker = new SessionTracker();
    expect(tracker.current).toBeUndefined();
    expect(tracker.observe(taken(A, "provisional", "system-init"), 3)).toEqual({ kind: "captured", pinned: { id: A, state: "provisional", rule: "system-init", line: 3 } });
    expect(tracker.current).toEqual({ id: A, state: "provisional", rule: "system-init", line: 3 });
  });

  it("lets a refused value pass by: no event, the pin as it was", () => {
    const tracker = new SessionTracker();
    expect(tracker.observe({ kind: "refused", rule: "r", reason: "grammar", value: "x" })).toBeUndefined();
    expect(tracker.current).toBeUndefined();
    tracker.observe(taken(A, "provisional"));
    expect(tracker.observe({ kind: "refused", rule: "r", reason: "not-a-string", value: "[1]" })).toBeUndefined();
    expect(tracker.current?.id).toBe(A);
  });

  it("confirms a provisional ID once, and never takes a confirmed one back to provisional", () => {
    const tracker = new SessionTracker();
    tracker.observe(taken(A, "provisional"), 1);
    expect(tracker.observe(taken(A, "provisional"), 2)).toBeUndefined();
    expect(tracker.current?.line).toBe(1);
    expect(tracker.observe(taken(A, "confirmed", "result"), 4)).toEqual({ kind: "confirmed", pinned: { id: A, state: "confirmed", rule: "result", line: 4 } });
    expect(tracker.observe(taken(A, "confirmed", "result"), 5)).toBeUndefined();
    expect(tracker.observe(taken(A, "provisional"), 6)).toBeUndefined();
    expect(tracker.current).toEqual({ id: A, state: "confirmed", rule: "result", line: 4 });
  });

  it("follows another ID, provisional or confirmed, and says which it replaced", () => {
    const tracker = new SessionTracker();
    tracker.observe(taken(A, "confirmed"), 1);
    const previous: Pinned = { id: A, state: "confirmed", rule: "r", line: 1 };
    expect(tracker.observe(taken(B, "provisional", "fork"), 9)).toEqual({ kind: "changed", pinned: { id: B, state: "provisional", rule: "fork", line: 9 }, previous });
    expect(tracker.observe(taken(A, "provisional"), 10)?.kind).toBe("changed");
    expect(tracker.current?.id).toBe(A);
  });

  it("starts from the ID a warm start resumed: seen again it confirms, it is not captured", () => {
    const resumed: Pinned = { id: A, state: "provisional", rule: "pointer" };
    const tracker = new SessionTracker(resumed);
    expect(tracker.current).toBe(resumed);
    expect(tracker.observe(taken(A, "provisional"))).toBeUndefined();
    expect(tracker.observe(taken(A, "confirmed"), 2)?.kind).toBe("confirmed");
    expect(new SessionTracker(resumed).observe(taken(B, "confirmed"))).toMatchObject({ kind: "changed", previous: resumed });
  });
});
