import { readdirSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { agents } from "../../src/agents/registry.js";
import { readPointer } from "../../src/pointer/store.js";
import type { AttemptOutcome } from "../../src/run/attempt.js";
import type { SessionOptions } from "../../src/run/options.js";
import { PointerPin } from "../../src/run/pin.js";
import type { StartPlan } from "../../src/run/plan.js";
import { settle } from "../../src/run/settle.js";
import { ManualClock } from "../helpers/clock.js";
import { memoryLog } from "../helpers/webhook-receiver.js";
import { useTempDir } from "../pointer/tempdir.js";

const tmp = useTempDir();
const ID = "0f3c2a9e-5b7d-4e21-9c4a-8d6f1e2b3a40";
const NOW = new Date("2026-11-25T12:00:00Z");
const SHA = "a".repeat(64);

const cold: StartPlan = { mode: "cold", id: null, args: [], promptVia: "argv", prompt: "do it", delivers: { text: "do it", kind: "task", sha256: SHA }, oneShot: false, reason: "test" };
const outcome = (o: Partial<AttemptOutcome> = {}): AttemptOutcome => ({ status: { exitCode: 0, signal: 0 }, signalledByUs: false, promptSent: false, entered: false, ...o });

let runs = 0;

/** A run's pointer pinned as `state` by `rule`, on real files; settle with `plan` and `ended`; what is left in the state folder. */
async function settled(plan: StartPlan, ended: AttemptOutcome, pinned: { state: "provisional" | "confirmed"; rule: string }, plugin = agents.claude) {
  const state = join(tmp.path, `state-${++runs}`);
  const path = join(state, "pointer.json");
  const log = memoryLog();
  const pin = new PointerPin(path, { agent: plugin.name, cwd: "/w/app" }, log, () => NOW);
  pin.apply({ kind: "captured", pinned: { id: ID, state: pinned.state, rule: pinned.rule } });
  const o: Pick<SessionOptions, "pointer" | "report" | "time"> = { pointer: { path, explicit: false }, report: { log }, time: { clock: new ManualClock(), now: () => NOW } };
  await settle(o, plugin, plan, pin, ended);
  const read = await readPointer(path);
  return { state, pointer: read.kind === "ok" ? read.pointer : undefined, files: readdirSync(state).sort(), warnings: log.lines.filter((line) => line.startsWith("warn ")) };
}

describe("settle", () => {
  it("records the turn an interactive session took with the message it delivered, once its ID is confirmed", async () => {
    const left = await settled(cold, outcome(), { state: "confirmed", rule: "result" });
    expect(left.pointer).toMatchObject({ id: ID, lastRunAt: NOW.toISOString(), messages: [{ sha256: SHA, at: NOW.toISOString() }] });
    expect(left.warnings).toEqual([]);
  });

  it("records no turn for a session still provisional, or one that failed of itself", async () => {
    expect((await settled(cold, outcome(), { state: "provisional", rule: "init" })).pointer).not.toHaveProperty("lastRunAt");
    const failed = await settled(cold, outcome({ status: { exitCode: 1, signal: 0 } }), { state: "confirmed", rule: "result" });
    expect(failed.pointer).not.toHaveProperty("lastRunAt");
    // Stopped by sessionpin (agentapi's SIGINT passed on), it took the turn.
    const stopped = await settled(cold, outcome({ status: { exitCode: 0, signal: 2 }, signalledByUs: true }), { state: "confirmed", rule: "result" });
    expect(stopped.pointer).toHaveProperty("lastRunAt", NOW.toISOString());
  });

  it("counts a prompt sessionpin types only once it was submitted", async () => {
    const typed: StartPlan = { ...cold, promptVia: "pty" };
    const unsent = await settled(typed, outcome({ entered: true }), { state: "confirmed", rule: "result" });
    expect(unsent.pointer).toHaveProperty("lastRunAt", NOW.toISOString());
    expect(unsent.pointer).not.toHaveProperty("messages");
    const sent = await settled(typed, outcome({ promptSent: true }), { state: "confirmed", rule: "result" });
    expect(sent.pointer?.messages).toEqual([{ sha256: SHA, at: NOW.toISOString() }]);
  });

  it("takes a one-shot run's clean exit as its turn, unless its output said the turn failed or its prompt could only be typed", async () => {
    const oneShot: StartPlan = { ...cold, oneShot: true };
    expect((await settled(oneShot, outcome(), { state: "provisional", rule: "init" })).pointer?.messages).toEqual([{ sha256: SHA, at: NOW.toISOString() }]);
    expect((await settled(oneShot, outcome({ turnFailed: true }), { state: "provisional", rule: "init" })).pointer).not.toHaveProperty("lastRunAt");
    expect((await settled({ ...oneShot, promptVia: "pty" }, outcome(), { state: "provisional", rule: "init" })).pointer).not.toHaveProperty("lastRunAt");
    expect((await settled(oneShot, outcome({ signalledByUs: true }), { state: "provisional", rule: "init" })).pointer).not.toHaveProperty("lastRunAt");
  });

  it("sets the pointer aside when the session named up front was never saved by the agent", async () => {
    const chosen: StartPlan = { ...cold, chosen: ID };
    const left = await settled(chosen, outcome({ status: { exitCode: 41, signal: 0 } }), { state: "provisional", rule: "chosen-up-front" });
    expect(left.pointer).toBeUndefined();
    expect(left.files).toEqual(["pointer.unused-20261125T120000Z.json"]);
    expect(left.warnings).toEqual([`warn claude exited with 41 before it saved session ${ID}: nothing to resume; pointer moved to ${left.state}/${left.files[0]}`]);
  });

  it("keeps a pointer named up front that the agent may have saved: it exited 0, was stopped by sessionpin, or has no store to ask", async () => {
    const chosen: StartPlan = { ...cold, chosen: ID };
    const pinned = { state: "provisional", rule: "chosen-up-front" } as const;
    expect((await settled(chosen, outcome(), pinned)).files).toEqual(["pointer.json"]);
    expect((await settled(chosen, outcome({ status: { exitCode: 130, signal: 0 }, signalledByUs: true }), pinned)).files).toEqual(["pointer.json"]);
    expect((await settled(chosen, outcome({ status: { exitCode: 1, signal: 0 } }), { state: "provisional", rule: "init" })).files).toEqual(["pointer.json"]);
    expect((await settled(chosen, outcome({ status: { exitCode: 1, signal: 0 } }), pinned, { ...agents.claude, store: undefined })).files).toEqual(["pointer.json"]);
  });

  it("sets aside a session pinned before its task was typed, when the agent ended before it was and nothing else was sent", async () => {
    const typed: StartPlan = { ...cold, promptVia: "pty" };
    const left = await settled(typed, outcome(), { state: "provisional", rule: "threads-new" });
    expect(left.files).toEqual(["pointer.unused-20261125T120000Z.json"]);
    expect(left.warnings[0]).toMatch(new RegExp(`^warn claude ended before its task was typed, and nothing else was sent: session ${ID} has nothing to resume; pointer moved to .*, so the next start begins again with the task$`));
    expect((await settled(typed, outcome({ entered: true }), { state: "provisional", rule: "threads-new" })).files).toEqual(["pointer.json"]);
    expect((await settled({ ...typed, delivers: { text: "go on", kind: "resume-prompt", sha256: SHA } }, outcome(), { state: "provisional", rule: "threads-new" })).files).toEqual(["pointer.json"]);
  });
});
