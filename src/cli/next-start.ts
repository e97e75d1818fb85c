import type { AgentPlugin } from "../agents/types.js";
import { lockCheck, lockHolder, pointerDirCheck, type Check } from "../doctor/checks.js";
import type { LockInfo } from "../pointer/schema.js";
import { storeHome } from "../home.js";
import type { PointerRead } from "../pointer/store.js";
import { historyFileExists, readStartInputs } from "../run/inputs.js";
import { decide, unpinnedPlan, whyUnpinned, type Decision, type UnpinnedPlan } from "../run/plan.js";
import { randomUuid } from "../digest.js";

export interface NextStartQuestion {
  readonly plugin: AgentPlugin | undefined;
  readonly executable: string;
  readonly args: readonly string[];
  readonly pointer: string;
  readonly prompt: string | undefined;
  readonly resumePrompt?: string | undefined;
  readonly messageId?: string | undefined;
  /** --pointer or SESSIONPIN_POINTER named the file: run refuses another agent's or folder's pointer there. */
  readonly explicitPointer: boolean;
  /** --aider-restore-history. */
  readonly restoreHistory: boolean;
  readonly cwd: string;
  readonly env: NodeJS.ProcessEnv;
}

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
 * of them; else decide()'s verdict on the pointer and the agent's own store. plan, doctor and
 * pointer show ask this; run takes the same steps itself, locking instead of checking.
 */
export async function nextStart(q: NextStartQuestion): Promise<NextStart> {
  const checks = [await pointerDirCheck(q.pointer), await lockCheck(q.pointer)] as const;
  const failed = checks.find((check) => check.status === "fail");
  const why = whyUnpinned(q.plugin, q.executable, q.args) ?? (failed && { reason: `${q.pointer} cannot be used: ${failed.detail}`, conversation: true });
  if (q.plugin === undefined || why !== undefined) {
    return { decision: unpinnedPlan(q.plugin, q.args, q.prompt, why ?? { reason: "", conversation: true }, q.restoreHistory && historyFileExists(q.plugin, q.cwd)), checks };
  }
  // run takes the lock before it reads the pointer: whatever it would decide waits for the holder.
  const heldBy = lockHolder(checks[1]);
  const found = { checks, ...(heldBy === undefined ? {} : { heldBy }) };
  const inputs = await readStartInputs(q.pointer, q.plugin, q.args, { home: storeHome(q.env), cwd: q.cwd, env: q.env }, new Date());
  const decision = decide(q.plugin, q.args, inputs.read, {
    cwd: q.cwd, prompt: q.prompt, resumePrompt: q.resumePrompt, messageId: q.messageId, fresh: randomUuid, pointerPath: q.pointer, gone: inputs.gone, explicitPointer: q.explicitPointer,
  });
  return { decision, read: inputs.read, ...found };
}
