import { describe, expect, it } from "vitest";
import { amp } from "../../src/agents/amp.js";
import type { Pointer } from "../../src/pointer/schema.js";
import { planStart as decideStart, type PlanContext, type StartPlan } from "../../src/run/plan.js";
import type { PointerRead } from "../../src/pointer/store.js";
import type { AgentPlugin } from "../../src/agents/types.js";

/** Every case here starts the agent: a repeat would be a failure of its own. */
function planStart(plugin: AgentPlugin, args: string[], read: PointerRead, context: PlanContext): StartPlan {
  const plan = decideStart(plugin, args, read, context);
  if (plan.mode === "repeat") throw new Error(`unexpected repeat: ${plan.reason}`);
  return plan;
}

const ID = "T-019c479a-39cc-72af-a2d1-65a965c076ec";
const pointer: Pointer = {
  version: 1, agent: "amp", id: ID, state: "confirmed", cwd: "/work/repo",
  capturedAt: "2026-11-22T10:00:00.000Z", source: { rule: "threads-new" }, history: [],
};
const context = { cwd: "/work/repo", prompt: "build it", fresh: () => "00000000-0000-4000-8000-000000000000" };

describe("planStart", () => {
  it("is cold with no pointer, with the up-front thread for interactive Amp and the prompt by PTY", () => {
    const plan = planStart(amp, ["--mode", "smart"], { kind: "missing" }, context);
    expect(plan).toMatchObject({ mode: "cold", id: null, args: ["--mode", "smart"], promptVia: "pty", upfront: { args: ["--mode", "smart", "threads", "new"] } });
    // The launch after the up-front step resumes the ID it printed.
    expect(plan.upfront?.launch(ID)).toEqual(["--mode", "smart", "threads", "continue", ID]);
  });

  it("is warm with a usable pointer: threads continue, no prompt", () => {
    const plan = planStart(amp, ["--mode", "smart"], { kind: "ok", pointer }, context);
    expect(plan).toMatchObject({ mode: "warm", id: ID, args: ["--mode", "smart", "threads", "continue", ID], promptVia: "none" });
    expect(plan.upfront).toBeUndefined();
  });

  it("resumes a provisional pointer too (a fallback is ready if it was never saved)", () => {
    const plan = planStart(amp, [], { kind: "ok", pointer: { ...pointer, state: "provisional" } }, context);
    expect(plan.mode).toBe("warm");
  });

  it.each([
    ["another agent", { ...pointer, agent: "claude" }, /agent claude/],
    ["another cwd", { ...pointer, cwd: "/elsewhere" }, /\/elsewhere/],
    ["an ID outside the grammar", { ...pointer, id: "--help" }, /not a amp ID/],
  ])("never resumes a pointer of %s", (_name, bad, reason) => {
    const plan = planStart(amp, [], { kind: "ok", pointer: bad }, context);
    expect(plan.mode).toBe("cold");
    expect(plan.reason).toMatch(reason);
  });

  it("is cold for an unreadable pointer and says why", () => {
    const plan = planStart(amp, [], { kind: "invalid", reason: "not JSON" }, context);
    expect(plan).toMatchObject({ mode: "cold", reason: "pointer unreadable: not JSON" });
  });

  it("sends no prompt at all when none was given", () => {
    expect(planStart(amp, [], { kind: "missing" }, { ...context, prompt: undefined }).promptVia).toBe("none");
  });
});

describe("planStart when the caller's argv opens its own session", () => {
  const OTHER = "T-01a2b3c4-d5e6-4f70-8192-a3b4c5d6e7f8";

  it("runs `threads continue X` as given, whatever the pointer holds, and keeps the pointer to follow", () => {
    const args = ["--mode", "smart", "threads", "continue", OTHER];
    const plan = planStart(amp, args, { kind: "ok", pointer }, context);
    expect(plan).toMatchObject({ mode: "given", id: OTHER, args, promptVia: "none", prompt: undefined, pointer });
    expect(plan.reason).toMatch(/threads continue/);
    expect(plan.upfront).toBeUndefined();
    expect(plan.chosen).toBeUndefined();
  });

  it("with no pointer, or another folder's, runs it as given too, with nothing to follow from", () => {
    const args = ["threads", "continue", OTHER, "-x", "next step"];
    for (const read of [{ kind: "missing" } as const, { kind: "ok" as const, pointer: { ...pointer, cwd: "/elsewhere" } }]) {
      const plan = planStart(amp, args, read, context);
      expect(plan).toMatchObject({ mode: "given", id: OTHER, args, oneShot: true, delivers: { text: "next step", kind: "follow-up" } });
      expect(plan.pointer).toBeUndefined();
    }
  });
});
