import type { AgentPlugin, CallerSession, PromptVia, UpfrontCommand } from "../agents/types.js";
import type { Pointer } from "../pointer/schema.js";
import type { PointerRead } from "../pointer/store.js";
import { SessionpinError } from "../errors.js";
import { fitsGrammar } from "../engine/match.js";
import { alreadyHad, fingerprint } from "./messages.js";

/**
 * What a start hands the agent, whichever way (in the user's argv, inserted, typed): the task,
 * a follow-up a one-shot run brings to a resumed session, or the resume prompt.
 */
export interface Delivery {
  readonly text: string;
  readonly kind: "task" | "follow-up" | "resume-prompt";
  /** What the pointer remembers it by once the agent took a turn with it (messages.ts). */
  readonly sha256: string;
}

/**
 * What `run` does, step by step, and what `plan` prints: `run` executes exactly this. The steps
 * are the up-front command, when the agent has one (Amp's `threads new`), then the launch.
 */
export interface StartPlan {
  /** warm: the pointer's session; given: the one the caller's own argv opens (`--resume X`). */
  readonly mode: "cold" | "warm" | "given";
  /** The ID resumed (warm, or given by name), or null. */
  readonly id: string | null;
  /** The launch's arguments, without the executable (with an up-front step: when it fails). */
  readonly args: string[];
  readonly promptVia: PromptVia;
  /** What is delivered by `promptVia`: the task prompt (cold), or the resume prompt (warm). */
  readonly prompt: string | undefined;
  /** The message this start gives the session; the pointer records it once the agent took a turn with it. */
  readonly delivers: Delivery | undefined;
  /** The agent answers once and exits: it took its turn when it exits 0. */
  readonly oneShot: boolean;
  /** Run first to create the session (cold only); its ID turns the launch into a resume of it. */
  readonly upfront?: {
    readonly args: string[];
    /** The rule name its ID is pinned under, and how its output names the ID. */
    readonly rule: string;
    parse(output: string): string | undefined;
    launch(id: string): string[];
  };
  /** Why this mode, in words for the log. */
  readonly reason: string;
  /** The pointer this plan resumes from. */
  readonly pointer?: Pointer;
  /** The ID a cold start gives the new session in its argv (`--session-id`), if the agent allows. */
  readonly chosen?: string;
  /** A cold start moves the pointer it found aside first, under this label. */
  readonly setsAside?: "corrupt" | "unused" | "gone";
}

/**
 * A one-shot run with nothing new to deliver: its message is one the session already had (a
 * retried CI step, a webhook delivered twice) and no resume prompt was given. The agent is not
 * started and the pointer is left as it is; `run` exits 4.
 */
export interface Repeat {
  readonly mode: "repeat";
  readonly id: string;
  readonly reason: string;
  readonly pointer: Pointer;
}

/** A pointer `run` will not touch: it exits with the error's code (3) instead of starting. */
export interface Refusal {
  readonly mode: "refused";
  readonly reason: string;
  readonly error: SessionpinError;
}

/**
 * A start with nothing to pin (no plugin, or a subcommand such as `amp threads list`): nothing is
 * resumed, so every start gets the prompt the way the agent's cold start takes it, unless the
 * agent restores its own history (Aider), which holds it.
 */
export interface UnpinnedPlan {
  readonly mode: "unpinned";
  readonly reason: string;
  /**
   * False when the invocation opens no conversation (`--version`, a subcommand): nothing is
   * typed, and a shim hands it straight to the agent.
   */
  readonly conversation: boolean;
  readonly args: string[];
  readonly promptVia: PromptVia;
  readonly prompt: string | undefined;
}

/** The one answer to "what will the next start do", for run, plan, doctor and pointer show. */
export type Decision = StartPlan | Repeat | Refusal;

/** Why an invocation pins nothing, and whether it is a conversation at all. */
export interface Unpinned {
  readonly reason: string;
  readonly conversation: boolean;
}

/** Why this invocation pins nothing, or undefined when it is a conversation to pin. */
export function whyUnpinned(plugin: AgentPlugin | undefined, command: string, args: readonly string[]): Unpinned | undefined {
  if (plugin === undefined) return { reason: `no plugin for ${JSON.stringify(command)}: running it transparently, nothing is captured`, conversation: true };
  const none = plugin.noConversation?.(args);
  if (none !== undefined) return { reason: none, conversation: false };
  const unpinned = plugin.unpinned?.(args);
  return unpinned === undefined ? undefined : { reason: unpinned, conversation: true };
}

/** `history`: the agent's restore-history flag is asked for and its history file exists. */
export function unpinnedPlan(plugin: AgentPlugin | undefined, args: readonly string[], prompt: string | undefined, why: Unpinned, history: boolean): UnpinnedPlan {
  const { reason, conversation } = why;
  // `amp --version` gets no task typed into it, nor anything added.
  if (!conversation) return { mode: "unpinned", reason, conversation, args: [...args], promptVia: "none", prompt: undefined };
  const flag = plugin?.history?.flag;
  if (history && flag !== undefined && !args.includes(flag)) return { mode: "unpinned", reason, conversation, args: [...args, flag], promptVia: "none", prompt: undefined };
  const cold = plugin?.coldArgs(args, prompt);
  const promptVia = prompt === undefined ? "none" : (cold?.promptVia ?? "pty");
  return { mode: "unpinned", reason, conversation, args: cold?.args ?? [...args], promptVia, prompt: promptVia === "none" ? undefined : prompt };
}

export interface PlanContext {
  readonly cwd: string;
  readonly prompt: string | undefined;
  /**
   * Sent on warm starts (`--resume-prompt`) that have no new message of their own, the way the
   * agent takes a prompt: a one-shot run with neither is not started.
   */
  readonly resumePrompt?: string | undefined;
  /** The chat platform's ID of the run's message (`--message-id`): its identity, instead of its text. */
  readonly messageId?: string | undefined;
  /** A new random UUID, for agents that let sessionpin name the session. */
  readonly fresh: () => string;
  /**
   * Why the agent's own store no longer holds the pointer's session (see readStartInputs), so
   * the start is cold without a launch the agent would refuse.
   */
  readonly gone?: string | undefined;
}

export interface DecideContext extends PlanContext {
  readonly pointerPath: string;
  /** The user named the pointer file (`--pointer`, SESSIONPIN_POINTER): a foreign one is refused. */
  readonly explicitPointer: boolean;
}

/**
 * Refused, cold, warm or a repeat, and with which steps. Pure: runs nothing and writes nothing. A
 * pointer from a newer sessionpin, or another agent's or folder's at a path the user named, is refused.
 */
export function decide(plugin: AgentPlugin, args: readonly string[], read: PointerRead, context: DecideContext): Decision {
  const refusal = refusedAsNewer(context.pointerPath, read) ?? refusedAsFolder(context.pointerPath, read) ??
    (context.explicitPointer ? refusedAsForeign(context.pointerPath, plugin, read, context.cwd) : undefined);
  if (refusal !== undefined) return { mode: "refused", reason: refusal.message.replace(/^sessionpin: /, ""), error: refusal };
  const plan = planStart(plugin, args, read, context);
  if (plan.mode !== "cold" || read.kind === "missing") return plan;
  const gone = read.kind === "ok" && context.gone !== undefined && unusable(plugin, read, context.cwd) === undefined;
  return { ...plan, setsAside: read.kind === "invalid" ? "corrupt" : gone ? "gone" : "unused" };
}

/**
 * Cold or warm, and with which argv. Pure: runs nothing and writes nothing. A warm one-shot run
 * delivers its own message when the session has not had it (a follow-up), else the resume
 * prompt; with neither it is a repeat. Interactive warm starts never re-send the task.
 */
export function planStart(
  plugin: AgentPlugin,
  args: readonly string[],
  read: PointerRead,
  context: PlanContext,
): StartPlan | Repeat {
  const given = plugin.callerSession?.(args);
  if (given !== undefined) return givenPlan(plugin, args, read, context, given);
  const refusal = unusable(plugin, read, context.cwd) ?? (read.kind === "ok" ? context.gone : undefined);
  if (refusal !== undefined || read.kind !== "ok") {
    return coldPlan(plugin, args, context, refusal ?? "no pointer");
  }
  const pointer = read.pointer;
  const { message, oneShot } = plugin.invocation(args);
  const own = oneShot ? (message ?? context.prompt) : undefined;
  const ownSha256 = own === undefined ? undefined : fingerprint(own, context.messageId);
  const delivers: Delivery | undefined = own !== undefined && ownSha256 !== undefined && !alreadyHad(pointer, ownSha256, context.messageId !== undefined)
    ? { text: own, kind: "follow-up", sha256: ownSha256 }
    : context.resumePrompt === undefined ? undefined : { text: context.resumePrompt, kind: "resume-prompt", sha256: fingerprint(context.resumePrompt) };
  const resuming = `${pointer.state} ${pointer.id} from ${pointer.capturedAt}`;
  if (delivers === undefined && oneShot) {
    const why = own === undefined ? "this one-shot run carries no message" : context.messageId === undefined ? "session already had this message" : `session already had message ${JSON.stringify(context.messageId)}`;
    return { mode: "repeat", id: pointer.id, reason: `${why} and no --resume-prompt was given: nothing to deliver to ${resuming}`, pointer };
  }
  const resumed = plugin.warmArgs(args, pointer.id);
  const filled = delivers === undefined ? undefined : plugin.coldArgs(resumed, delivers.text);
  return {
    mode: "warm",
    id: pointer.id,
    args: filled?.args ?? resumed,
    promptVia: filled?.promptVia ?? "none",
    prompt: delivers?.text,
    delivers,
    oneShot,
    reason: `resuming ${resuming}${delivers?.kind === "follow-up" ? " with a new message" : ""}`,
    pointer,
  };
}

/**
 * The caller's argv already opens a session (`claude --resume X`, `--continue`, `amp threads
 * continue X`; the official claude-code module passes them): it runs as given, and the pin follows
 * the session the agent runs in. The pointer stays as it is until then, so that a `--continue`
 * that finds the pinned session confirms it, and another one keeps it in the history.
 */
function givenPlan(plugin: AgentPlugin, args: readonly string[], read: PointerRead, context: PlanContext, given: CallerSession): StartPlan {
  const { message, oneShot } = plugin.invocation(args);
  const ours = read.kind === "ok" && unusable(plugin, read, context.cwd) === undefined ? read.pointer : undefined;
  return {
    mode: "given",
    id: given.id ?? null,
    args: [...args],
    promptVia: "none",
    prompt: undefined,
    delivers: message === undefined ? undefined : { text: message, kind: "follow-up", sha256: fingerprint(message, context.messageId) },
    oneShot,
    reason: `the command opens its own session (${given.via}): run as given, the pin follows it`,
    ...(ours === undefined ? {} : { pointer: ours }),
  };
}

export function coldPlan(plugin: AgentPlugin, args: readonly string[], context: PlanContext, reason: string): StartPlan {
  const cold = plugin.coldArgs(args, context.prompt);
  const chosen = plugin.chooseId?.(cold.args, context.fresh());
  const launch = chosen?.args ?? cold.args;
  const promptVia = context.prompt === undefined ? "none" : cold.promptVia;
  const { message, oneShot } = plugin.invocation(args);
  const task = message ?? (promptVia === "none" ? undefined : context.prompt);
  return {
    mode: "cold",
    id: null,
    args: launch,
    promptVia,
    prompt: context.prompt,
    delivers: task === undefined ? undefined : { text: task, kind: "task", sha256: fingerprint(task, context.messageId) },
    oneShot,
    ...(plugin.upfront?.applies(args) === true ? { upfront: upfrontStep(plugin.upfront, plugin, launch) } : {}),
    reason,
    ...(chosen !== undefined ? { chosen: chosen.id } : {}),
  };
}

function upfrontStep(upfront: UpfrontCommand, plugin: AgentPlugin, args: readonly string[]): NonNullable<StartPlan["upfront"]> {
  return { args: upfront.argv(args), rule: upfront.rule, parse: (output) => upfront.parse(output), launch: (id) => plugin.warmArgs(args, id) };
}

/** Why the pointer read cannot be resumed, or undefined when it can (or there is none). */
function unusable(plugin: AgentPlugin, read: PointerRead, cwd: string): string | undefined {
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
      if (!fitsGrammar(plugin.grammar, pointer.id)) return `pointer ID ${JSON.stringify(pointer.id)} is not a ${plugin.name} ID`;
      return undefined;
    }
  }
}

/** A folder where the pointer goes is left where it is (it may be the user's project): `run` and `plan` stop. */
function refusedAsFolder(path: string, read: PointerRead): SessionpinError | undefined {
  if (read.kind !== "invalid" || read.folder !== true) return undefined;
  return new SessionpinError(
    "pointer-refused",
    `sessionpin: ${path} is a folder, not a pointer file; left untouched. Name a file with --pointer (or SESSIONPIN_POINTER).`,
  );
}

/** A pointer from a newer sessionpin is neither resumed nor replaced: `run` and `plan` stop. */
function refusedAsNewer(path: string, read: PointerRead): SessionpinError | undefined {
  if (read.kind !== "newer") return undefined;
  return new SessionpinError(
    "pointer-refused",
    `sessionpin: ${path} was written by a newer sessionpin (pointer version ${read.version}); left untouched. Upgrade, or choose another file with --pointer.`,
  );
}

/**
 * A pointer file the user named (`--pointer`, SESSIONPIN_POINTER) that belongs to another agent
 * or folder is refused rather than moved aside: the name says it matters to someone.
 */
function refusedAsForeign(path: string, plugin: AgentPlugin, read: PointerRead, cwd: string): SessionpinError | undefined {
  if (read.kind !== "ok" || (read.pointer.agent === plugin.name && read.pointer.cwd === cwd)) return undefined;
  return new SessionpinError(
    "pointer-refused",
    `sessionpin: ${path} holds ${read.pointer.agent}'s session for ${read.pointer.cwd}, not ${plugin.name}'s for ${cwd}; left untouched. Choose another --pointer, or clear it with \`sessionpin pointer clear --pointer ${path}\`.`,
  );
}
