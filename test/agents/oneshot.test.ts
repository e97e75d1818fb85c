/**
 * Every plugin's one-shot shape, as golden data (oneshot.golden.json, each row naming where its
 * shape comes from): the message in argv is seen, a follow-up resumes in the same mode with the
 * new message, a message the session already had is a repeat, and --resume-prompt fills the slot.
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { pluginNamed } from "../../src/agents/registry.js";
import type { Pointer } from "../../src/pointer/schema.js";
import { fingerprint } from "../../src/run/messages.js";
import { coldPlan, planStart, type PlanContext } from "../../src/run/plan.js";

interface Row {
  readonly agent: string;
  readonly shape: string;
  readonly id: string;
  /** The first call; its message is "first". Follow-ups say "second". */
  readonly first: string[];
  readonly followUp: string[];
  readonly resumePrompt: string[];
}

const rows = JSON.parse(readFileSync(new URL("./oneshot.golden.json", import.meta.url), "utf8")) as Row[];
const context: PlanContext = { cwd: "/w", prompt: undefined, fresh: () => "0f3c2a9e-5b7d-4e21-9c4a-8d6f1e2b3a40" };
const AT = "2026-11-25T00:00:00.000Z";

/** omp's and pi's session folder is built from HOME and the cwd: not part of the shape. */
const shown = (argv: readonly string[]): string[] => argv.map((word, i) => (argv[i - 1] === "--session-dir" ? "{session-dir}" : word));
const second = (argv: readonly string[]): string[] => argv.map((word) => word.replace("first", "second"));

function pointerOf(row: Row, had: readonly string[] = []): Pointer {
  return {
    version: 1, agent: row.agent, id: row.id, state: "confirmed", cwd: "/w", capturedAt: AT, source: { rule: "golden" }, history: [],
    messages: had.map((text) => ({ sha256: fingerprint(text), at: AT })),
  };
}

describe.each(rows)("$agent $first ($shape)", (row) => {
  const plugin = pluginNamed(row.agent);
  if (plugin === undefined) throw new Error(`no plugin ${row.agent}`);

  it("sees the message in argv and the one-shot mode", () => {
    expect(plugin.invocation(row.first)).toEqual({ message: "first", oneShot: true });
  });

  it("a cold start runs the command as given, delivering its own message as the task", () => {
    const plan = coldPlan(plugin, row.first, context, "no pointer");
    expect(plan.args.filter((word) => word.includes("first"))).toHaveLength(1);
    expect(plan.delivers).toEqual({ text: "first", kind: "task", sha256: fingerprint("first") });
  });

  it("a follow-up resumes in the same mode and delivers the new message", () => {
    const plan = planStart(plugin, second(row.first), { kind: "ok", pointer: pointerOf(row, ["first"]) }, context);
    expect(plan.mode).toBe("warm");
    if (plan.mode !== "warm") return;
    expect(shown(plan.args)).toEqual(row.followUp);
    expect(plan.delivers).toEqual({ text: "second", kind: "follow-up", sha256: fingerprint("second") });
  });

  it("a message the session already had is a repeat: nothing to start", () => {
    const plan = planStart(plugin, row.first, { kind: "ok", pointer: pointerOf(row, ["first"]) }, context);
    expect(plan).toMatchObject({ mode: "repeat", id: row.id });
  });

  it("a repeat with --resume-prompt delivers that instead, in the same mode", () => {
    const plan = planStart(plugin, row.first, { kind: "ok", pointer: pointerOf(row, ["first"]) }, { ...context, resumePrompt: "go on" });
    expect(plan.mode).toBe("warm");
    if (plan.mode !== "warm") return;
    expect(shown(plan.args)).toEqual(row.resumePrompt);
    expect(plan.delivers).toEqual({ text: "go on", kind: "resume-prompt", sha256: fingerprint("go on") });
  });
});

describe("interactive starts", () => {
  it.each([
    ["claude", ["fix the build"]],
    ["codex", ["fix the build"]],
    ["gemini", ["-i", "fix the build"]],
    ["opencode", ["--prompt", "fix the build"]],
    ["auggie", ["--instruction", "fix the build"]],
    ["amp", []],
  ])("%s %j never re-sends its task and is never a repeat", (agent, args) => {
    const plugin = pluginNamed(agent);
    if (plugin === undefined) throw new Error(`no plugin ${agent}`);
    expect(plugin.invocation(args).oneShot).toBe(false);
    const id = rows.find((row) => row.agent === agent)?.id ?? "";
    const pointer: Pointer = { version: 1, agent, id, state: "confirmed", cwd: "/w", capturedAt: AT, source: { rule: "golden" }, history: [] };
    const plan = planStart(plugin, args, { kind: "ok", pointer }, { ...context, prompt: "fix the build" });
    expect(plan).toMatchObject({ mode: "warm", promptVia: "none", delivers: undefined });
    if (plan.mode === "warm") expect(plan.args.join(" ")).not.toContain("fix the build");
  });
});
