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

/** How a cold start delivers the task prompt: typed into the PTY, inside argv, or not at all. */
export type PromptVia = "pty" | "argv" | "none";

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
  readonly upfront?: UpfrontCommand;
  /** Why this invocation starts no conversation (a subcommand such as `amp threads list`), if so. */
  passthrough?(args: readonly string[]): string | undefined;
  /** Args for a fresh session; with `prompt` when the agent takes it in argv. */
  coldArgs(args: readonly string[], prompt: string | undefined): ColdStart;
  /** Args that resume `id`, with the original prompt removed. */
  warmArgs(args: readonly string[], id: string): string[];
}
