import type { SessionCarry } from "./session-carry.js";
import type { PidFile, RunContext, SessionLog, SessionStore } from "./session-store.js";

// Where sessions live and how they travel have modules of their own; plugins import them from here.
export type { CarryCommand, CarryFiles, CarryNot, CarriedFile, SessionCarry, StoreLook } from "./session-carry.js";
export type { PidFile, RunContext, SessionHints, SessionLog, SessionStore, StoreFolder } from "./session-store.js";

/** An ID is provisional until the agent has something on disk or server to resume it from. */
export type IdState = "provisional" | "confirmed";

/** Take `field` (a dotted path) from a JSON line whose other fields match `when`. */
export interface JsonRule {
  readonly name: string;
  readonly field: string;
  /** Dotted path → allowed values; every entry must hold for the line to be looked at. */
  readonly when?: Readonly<Record<string, readonly string[]>>;
  readonly state: IdState;
}

/** Take the named group `id` of `pattern` from a cleaned terminal line. */
export interface TextRule {
  readonly name: string;
  readonly pattern: RegExp;
  readonly state: IdState;
}

/**
 * A command of the agent's own that creates a session before the real one starts, so its ID is
 * known up front (Amp: `amp threads new`).
 */
export interface UpfrontCommand {
  readonly rule: string;
  /** Whether this start of the agent needs it (Amp: interactive starts only). */
  applies(args: readonly string[]): boolean;
  argv(args: readonly string[]): string[];
  /** The ID in the command's stdout, or undefined. */
  parse(output: string): string | undefined;
}

/**
 * A setting of the agent's own that decides whether its sessions can be resumed at all, as
 * `doctor` reports it (Gemini's session retention deletes a pinned conversation).
 */
export interface AgentAdvice {
  readonly name: string;
  readonly status: "ok" | "warn";
  readonly detail: string;
}

/** How a cold start delivers the task prompt: typed into the PTY, inside argv, or not at all. */
export type PromptVia = "pty" | "argv" | "none";

/**
 * What an invocation asks of its session: the message it carries in its own argv, and whether it
 * runs one turn and exits. Messages read from a file or from stdin are not seen (undefined).
 */
export interface Invocation {
  /** `claude -p MSG`, `codex exec MSG`, `amp -x MSG`, an interactive positional prompt. */
  readonly message: string | undefined;
  /** One turn, then exit (`-p`, `exec`, `run`, `--print`): nothing may wait for input. */
  readonly oneShot: boolean;
}

/** A session the caller's own argv chose (AgentPlugin.callerSession). */
export interface CallerSession {
  /** The ID the argv names (`--resume X`), when it names one; `--continue` names none. */
  readonly id?: string;
  /** The words that choose it (`--resume X`, `threads continue X`). */
  readonly via: string;
}

export interface ColdStart {
  readonly args: string[];
  readonly promptVia: PromptVia;
}

/**
 * Everything sessionpin knows about one agent CLI: data plus a few pure functions. The core never
 * branches on an agent's name. `args` never include the executable itself.
 */
export interface AgentPlugin {
  readonly name: string;
  /** Executable basenames that select this plugin. */
  readonly names: readonly string[];
  /** The whole-ID grammar, anchored at both ends. */
  readonly grammar: RegExp;
  readonly json: readonly JsonRule[];
  readonly text: readonly TextRule[];
  /** Output that means "the stored ID was rejected". */
  readonly rejected: readonly RegExp[];
  /** Output that means a failure says nothing about the ID (offline, auth): keep the pointer. */
  readonly transient: readonly RegExp[];
  /**
   * The agent says in words when it cannot resume an ID (`rejected`, proven against the real
   * CLI): a warm start that fails without those words keeps the pointer, whatever its exit code
   * (an API error no `transient` text foresaw). Without it, a non-zero exit early in a warm
   * start, before any turn, counts as a rejection too.
   */
  readonly saysRejected?: boolean;
  /**
   * Output of a one-shot run meaning its turn failed though it exits 0 (pi's `--mode json`
   * `turn_end` with `"stopReason":"error"`): the message does not count as had, and the same call
   * again delivers it.
   */
  readonly turnFailed?: readonly RegExp[];
  readonly upfront?: UpfrontCommand;
  /**
   * Names the new session in argv (`claude --session-id <uuid>`), so no parsing is needed;
   * `fresh` is a new random UUID. Undefined when this invocation cannot.
   */
  chooseId?(args: readonly string[], fresh: string): { readonly id: string; readonly args: string[] } | undefined;
  readonly store?: SessionStore;
  readonly sessionLog?: SessionLog;
  readonly pidFile?: PidFile;
  /**
   * For agents without session IDs: the file in the working folder that holds their chat
   * history, and the flag that restores it (Aider's `--restore-chat-history`).
   */
  readonly history?: { readonly file: string; readonly flag: string };
  /** What `doctor` should say about the agent's own settings, read from its config files. */
  advice?(context: RunContext): readonly AgentAdvice[];
  /**
   * Why this invocation opens no conversation at all (`--version`, `--help`, a subcommand such as
   * `amp threads list` or `claude mcp …`), if so: nothing is pinned or typed, and a shim hands it
   * straight to the agent, without a PTY.
   */
  noConversation?(args: readonly string[]): string | undefined;
  /**
   * Why this conversation cannot be pinned (an agent without session IDs, Claude's
   * `--no-session-persistence`), if so: the agent runs transparently, nothing is pinned.
   */
  unpinned?(args: readonly string[]): string | undefined;
  /**
   * The session the caller's argv already opens (`--resume X`, `--continue`, `amp threads
   * continue X`), if it does: the argv runs as given, never rewritten, and the pin follows the
   * session the agent then runs in. `id` when the argv names it outright; `via` is the words that
   * choose it, for the log and `plan`.
   */
  callerSession?(args: readonly string[]): CallerSession | undefined;
  /** The message in argv and the mode: read before anything is rewritten. */
  invocation(args: readonly string[]): Invocation;
  /**
   * Args for a fresh session; with `prompt` when the agent takes it in argv. Also fills a warm
   * start's message slot: `coldArgs(warmArgs(args, id), message)` is a resume that delivers it.
   */
  coldArgs(args: readonly string[], prompt: string | undefined): ColdStart;
  /**
   * Args that resume `id`, with the original message removed, in the same mode: a one-shot run
   * stays one-shot (with an empty slot where the agent needs one), so that no warm start of a
   * headless command opens an interactive screen.
   */
  warmArgs(args: readonly string[], id: string): string[];
  /** How a session travels to another machine or folder (`sessionpin export`/`import`); without it, it does not. */
  readonly carry?: SessionCarry;
}
