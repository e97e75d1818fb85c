import type { AgentPlugin } from "../agents/types.js";
import { randomUuid } from "../digest.js";
import { storeHome } from "../home.js";
import type { Logger } from "../log/logger.js";
import type { PointerRead } from "../pointer/store.js";
import { historyFileExists, readStartInputs } from "./inputs.js";
import type { StartQuestion } from "./options.js";
import { decide, unpinnedPlan, type Decision, type DecideContext, type Unpinned, type UnpinnedPlan } from "./plan.js";

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
