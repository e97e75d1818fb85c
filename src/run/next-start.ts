import { lockCheck, lockHolder, pointerDirCheck, type Check } from "../doctor/checks.js";
import type { LockInfo } from "../pointer/schema.js";
import type { PointerRead } from "../pointer/store.js";
import { decideStart, unpinnedStart } from "./decide-start.js";
import type { StartQuestion } from "./options.js";
import { whyUnpinned, type Decision, type UnpinnedPlan } from "./plan.js";

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
 * same steps itself (decideStart() in session.ts), locking instead of checking.
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
