import type { AgentPlugin } from "../agents/types.js";
import { randomUuid } from "../digest.js";
import { lockCheck, lockHolder, pointerDirCheck, type Check } from "../doctor/checks.js";
import { storeHome } from "../home.js";
import type { Logger } from "../log/logger.js";
import type { LockInfo } from "../pointer/schema.js";
import type { PointerRead } from "../pointer/store.js";
import { historyFileExists, readStartInputs } from "./inputs.js";
import type { StartQuestion } from "./options.js";
import { decide, unpinnedPlan, whyUnpinned, type Decision, type DecideContext, type Unpinned, type UnpinnedPlan } from "./plan.js";

/**
 * What the next `run` would do: `decision`, with the pointer as read when the decision read it.
 * `checks` are doctor's checks of the pointer's folder and lock, which the decision rests on;
 * `heldBy` is the live run holding the lock now, for a run that locks: while it does, a run exits
 * 75 (or, with --wait-lock, waits) before it does what `decision` says.
 */
export type NextStart = ({ readonly decision: Decision; readonly read: PointerRead } | { readonly decision: UnpinnedPlan; readonly read?: undefined }) & {
  readonly checks: readonly [dir: Check, lock: Check];
  readonly heldBy?: LockInfo;
};

/**
 * What the next `run` would do, by run's own steps: unpinned for an agent it does not pin (no
 * plugin, a subcommand) or a pointer whose folder or lock it cannot use, judged by doctor's checks
 * of them; else decideStart()'s verdict. plan, doctor and pointer show ask this; run takes the
 * same steps itself (session.ts), locking instead of checking.
 */
export async function nextStart(q: StartQuestion): Promise<NextStart> {
  const checks = [await pointerDirCheck(q.pointer.path), await lockCheck(q.pointer.path)] as const;
  const failed = checks.find((check) => check.status === "fail");
  const { plugin } = q.agent;
  const why = whyUnpinned(plugin, q.agent.command, q.agent.args) ?? (failed && { reason: `${q.pointer.path} cannot be used: ${failed.detail}`, conversation: true });
  if (plugin === undefined || why !== undefined) return { decision: unpinnedStart(q, why ?? { reason: "", conversation: true }), checks };
  // run takes the lock before it reads the pointer: whatever it would decide waits for the holder.
  const heldBy = lockHolder(checks[1]);
  return { ...(await decideStart(q, plugin, new Date())), checks, ...(heldBy === undefined ? {} : { heldBy }) };
}

/**
 * Reads what the start rests on (the pointer, and whether the agent's own store still has its
 * session) and decides from it: run once it holds the pointer's lock, the other commands without.
 */
export async function decideStart(q: StartQuestion, plugin: AgentPlugin, now: Date): Promise<{ readonly decision: Decision; readonly read: PointerRead }> {
  const { cwd, env, args } = q.agent;
  const inputs = await readStartInputs(q.pointer.path, plugin, args, { home: storeHome(env), cwd, env }, now);
  return { decision: decide(plugin, args, inputs.read, { ...planContext(q), gone: inputs.gone }), read: inputs.read };
}

/** What decide() and a fresh start after a rejection plan with. */
export function planContext(q: StartQuestion): DecideContext {
  const { prompt, resumePrompt, messageId } = q.message;
  return { cwd: q.agent.cwd, prompt, resumePrompt, messageId, fresh: randomUuid, pointerPath: q.pointer.path, explicitPointer: q.pointer.explicit };
}

/** The start of an agent run does not pin; `log`, when given, hears whether its history file is there to restore. */
export function unpinnedStart(q: StartQuestion, why: Unpinned, log?: Logger): UnpinnedPlan {
  const { plugin, args, cwd, restoreHistory } = q.agent;
  return unpinnedPlan(plugin, args, q.message.prompt, why, restoreHistory && historyExists(plugin, cwd, log));
}

/** Whether the agent's own history file is there to restore. */
function historyExists(plugin: AgentPlugin | undefined, cwd: string, log: Logger | undefined): boolean {
  const history = plugin?.history;
  if (history === undefined) return false;
  const there = historyFileExists(plugin, cwd);
  log?.info(there ? `${history.file} exists: adding ${history.flag}` : `no ${history.file} in ${cwd}: nothing to restore`);
  return there;
}
