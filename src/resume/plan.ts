import type { AgentPlugin, PromptVia } from "../agents/types.js";
import type { Pointer } from "../pointer/schema.js";
import type { PointerRead } from "../pointer/store.js";
import { SessionpinError } from "../errors.js";

export interface StartPlan {
  readonly mode: "cold" | "warm";
  /** The ID resumed (warm), or null. */
  readonly id: string | null;
  /** The agent's arguments, without the executable. */
  readonly args: string[];
  readonly promptVia: PromptVia;
  /** What is delivered by `promptVia`: the task prompt (cold), or the resume prompt (warm). */
  readonly prompt: string | undefined;
  /** Whether the plugin's up-front command runs first to learn the ID (cold only). */
  readonly upfront: boolean;
  /** Why this mode, in words for the log. */
  readonly reason: string;
  /** The pointer this plan resumes from. */
  readonly pointer?: Pointer;
  /** The ID a cold start gives the new session in its argv (`--session-id`), if the agent allows. */
  readonly chosen?: string;
}

export interface PlanContext {
  readonly cwd: string;
  readonly prompt: string | undefined;
  /**
   * Sent on warm starts (`--resume-prompt`): one-shot modes (`codex exec`, `claude -p`,
   * `opencode run`) cannot resume without a message. Delivered the way the agent takes a prompt.
   */
  readonly resumePrompt?: string | undefined;
  /** A new random UUID, for agents that let sessionpin name the session. */
  readonly fresh: () => string;
}

/** Cold or warm, and with which argv. Pure: runs nothing and writes nothing. */
export function planStart(
  plugin: AgentPlugin,
  args: readonly string[],
  read: PointerRead,
  context: PlanContext,
): StartPlan {
  const refusal = unusable(plugin, read, context.cwd);
  if (refusal !== undefined || read.kind !== "ok") {
    return coldPlan(plugin, args, context, refusal ?? "no pointer");
  }
  const pointer = read.pointer;
  const resumed = plugin.warmArgs(args, pointer.id);
  const message = context.resumePrompt === undefined ? undefined : plugin.coldArgs(resumed, context.resumePrompt);
  return {
    mode: "warm",
    id: pointer.id,
    args: message?.args ?? resumed,
    promptVia: message?.promptVia ?? "none",
    prompt: message === undefined ? undefined : context.resumePrompt,
    upfront: false,
    reason: `resuming ${pointer.state} ${pointer.id} from ${pointer.capturedAt}`,
    pointer,
  };
}

export function coldPlan(plugin: AgentPlugin, args: readonly string[], context: PlanContext, reason: string): StartPlan {
  const cold = plugin.coldArgs(args, context.prompt);
  const chosen = plugin.chooseId?.(cold.args, context.fresh());
  return {
    mode: "cold",
    id: null,
    args: chosen?.args ?? cold.args,
    promptVia: context.prompt === undefined ? "none" : cold.promptVia,
    prompt: context.prompt,
    upfront: plugin.upfront?.applies(args) ?? false,
    reason,
    ...(chosen !== undefined ? { chosen: chosen.id } : {}),
  };
}

/** Why the pointer read cannot be resumed, or undefined when it can (or there is none). */
export function unusable(plugin: AgentPlugin, read: PointerRead, cwd: string): string | undefined {
  switch (read.kind) {
    case "missing":
      return undefined;
    case "invalid":
      return `pointer unreadable: ${read.reason}`;
    case "newer":
      return `pointer written by a newer sessionpin (version ${read.version})`;
    case "ok": {
      const { pointer } = read;
      if (pointer.agent !== plugin.name) return `pointer belongs to agent ${pointer.agent}, not ${plugin.name}`;
      if (pointer.cwd !== cwd) return `pointer belongs to ${pointer.cwd}, not ${cwd}`;
      if (!plugin.grammar.test(pointer.id)) return `pointer ID ${JSON.stringify(pointer.id)} is not a ${plugin.name} ID`;
      return undefined;
    }
  }
}

/** A pointer from a newer sessionpin is neither resumed nor replaced: `run` and `plan` stop. */
export function refuseNewer(path: string, read: PointerRead): void {
  if (read.kind !== "newer") return;
  throw new SessionpinError(
    "pointer-refused",
    `sessionpin: ${path} was written by a newer sessionpin (pointer version ${read.version}); left untouched. Upgrade, or choose another file with --pointer.`,
  );
}

/**
 * A pointer file the user named (`--pointer`, SESSIONPIN_POINTER) that belongs to another agent
 * or folder is refused rather than moved aside: the name says it matters to someone.
 */
export function refuseForeign(path: string, plugin: AgentPlugin, read: PointerRead, cwd: string): void {
  if (read.kind !== "ok" || (read.pointer.agent === plugin.name && read.pointer.cwd === cwd)) return;
  throw new SessionpinError(
    "pointer-refused",
    `sessionpin: ${path} holds ${read.pointer.agent}'s session for ${read.pointer.cwd}, not ${plugin.name}'s for ${cwd}; left untouched. Choose another --pointer, or clear it with \`sessionpin pointer clear --pointer ${path}\`.`,
  );
}
