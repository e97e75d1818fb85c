import type { AgentPlugin } from "../agents/types.js";
import type { Pointer } from "../pointer/schema.js";
import { setAside } from "../pointer/store.js";
import type { AttemptOutcome } from "./attempt.js";
import type { SessionOptions } from "./options.js";
import type { PointerPin } from "./pin.js";
import type { StartPlan } from "./plan.js";

/**
 * What an ended attempt leaves in the pointer: set aside when the session it names holds nothing
 * to resume, else the turn the agent took, with the fingerprint of the message it took it with.
 */
export async function settle(
  o: Pick<SessionOptions, "pointer" | "report" | "time">,
  plugin: AgentPlugin,
  plan: StartPlan,
  pinner: PointerPin,
  outcome: AttemptOutcome,
): Promise<void> {
  await pinner.settled();
  if (neverSaved(plugin, plan, pinner.pointer, outcome)) {
    const aside = await setAside(o.pointer.path, "unused", o.time.now());
    o.report.log.warn(`${plugin.name} exited with ${outcome.status.exitCode} before it saved session ${plan.chosen}: nothing to resume; pointer moved to ${aside}`);
  } else if (neverTold(plan, pinner.pointer, outcome)) {
    const aside = await setAside(o.pointer.path, "unused", o.time.now());
    o.report.log.warn(`${plugin.name} ended before its task was typed, and nothing else was sent: session ${pinner.pointer?.id} has nothing to resume; pointer moved to ${aside}, so the next start begins again with the task`);
  } else if (tookTurn(plan, pinner.pointer, outcome)) {
    // A prompt sessionpin types counts as had only once it was submitted.
    pinner.tookTurn(plan.promptVia === "pty" && !outcome.promptSent ? undefined : plan.delivers?.sha256);
    await pinner.settled();
  }
}

/**
 * Whether the agent took a turn with what this start delivered: a one-shot run that exited 0 of
 * itself printed its answer; an interactive session did when its ID is confirmed and it ended
 * well or was stopped (agentapi's SIGINT). A run killed before that may deliver the message again.
 */
function tookTurn(plan: StartPlan, pointer: Pointer | undefined, outcome: AttemptOutcome): boolean {
  const { exitCode, signal } = outcome.status;
  const clean = exitCode === 0 && signal === 0;
  // A one-shot run reads no typed message: one its plugin could only type never reached it.
  if (plan.oneShot) return clean && !outcome.signalledByUs && plan.promptVia !== "pty" && outcome.turnFailed !== true;
  return pointer?.state === "confirmed" && (clean || outcome.signalledByUs);
}

/**
 * A cold interactive start whose task sessionpin types, pinned before the task was typed (Amp's
 * `threads new` makes the thread first), that ended before it was, with nothing typed through the
 * terminal either: the session holds nothing. Resumed, it would never get the task, since warm
 * interactive starts do not send it.
 */
function neverTold(plan: StartPlan, pointer: Pointer | undefined, outcome: AttemptOutcome): boolean {
  return pointer !== undefined && plan.mode === "cold" && !plan.oneShot && plan.promptVia === "pty" &&
    plan.delivers?.kind === "task" && !outcome.promptSent && !outcome.entered;
}

/**
 * A session named up front exists only once the agent saved it to its store. An agent that
 * failed before that (Gemini 0.61 without an auth method, exit 41, or in an untrusted folder,
 * exit 55) leaves nothing to resume: a pointer to it would only be refused on the next start.
 */
function neverSaved(plugin: AgentPlugin, plan: StartPlan, pointer: Pointer | undefined, outcome: AttemptOutcome): boolean {
  const { exitCode, signal } = outcome.status;
  return plugin.store !== undefined && plan.chosen !== undefined && pointer?.id === plan.chosen && pointer.state === "provisional" &&
    pointer.source.rule === "chosen-up-front" && exitCode !== 0 && signal === 0 && !outcome.signalledByUs;
}
