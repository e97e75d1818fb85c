import { describe, expect, it } from "vitest";
import { q } from "../../src/agents/q.js";
import type { Pointer } from "../../src/pointer/schema.js";
import { planStart } from "../../src/run/plan.js";

const UUID = "c3e8a5d1-9b2f-4c76-8e4a-1d7f3b9c5e20";

describe("q", () => {
  it("runs every conversation transparently and says why", () => {
    for (const args of [[], ["chat"], ["chat", "--resume"], ["chat", "--trust-all-tools", "fix it"]]) {
      expect(q.noConversation?.(args), args.join(" ")).toBeUndefined();
      expect(q.unpinned?.(args), args.join(" ")).toMatch(/^Amazon Q cannot be pinned: .*nothing is pinned$/);
    }
  });

  it("hands help, version and its other commands straight through", () => {
    for (const args of [["--version"], ["-V"], ["--help"], ["-h"], ["chat", "--help-all"], ["login"], ["doctor"]]) {
      expect(q.noConversation?.(args), args.join(" ")).toMatch(/./);
    }
    expect(q.noConversation?.(["chat", "-v"])).toBeUndefined(); // not --version
  });

  it("has no capture source and accepts no ID, so a pointer can never name a Q session", () => {
    expect(q.json).toEqual([]);
    expect(q.text).toEqual([]);
    expect(q.store).toBeUndefined();
    expect(q.chooseId).toBeUndefined();
    for (const id of [UUID, "", "last", "T-x"]) expect(q.grammar.test(id), id).toBe(false);
    const pointer: Pointer = {
      version: 1, agent: "q", id: UUID, state: "confirmed", cwd: "/w", capturedAt: "2026-01-02T03:04:05.000Z",
      confirmedAt: "2026-01-02T03:04:05.000Z", source: { rule: "hand" }, history: [],
    };
    const plan = planStart(q, ["chat"], { kind: "ok", pointer }, { cwd: "/w", prompt: undefined, fresh: () => UUID });
    expect(plan).toMatchObject({ mode: "cold", args: ["chat"], reason: `pointer ID "${UUID}" is not a q ID` });
  });
});
