import type { AgentPlugin } from "../agents/types.js";

/**
 * The groups `run`'s options come in, each named for the question it answers; a module that needs
 * one group takes that group. What the next start does rests on the first three (see next-start.ts).
 */

/** What to run: the agent's command as the user wrote it, in which folder, with which environment. */
export interface AgentCall {
  readonly command: string;
  readonly args: readonly string[];
  readonly plugin: AgentPlugin | undefined;
  readonly cwd: string;
  readonly env: NodeJS.ProcessEnv;
  /** Add the restore-history flag of agents without session IDs when their history exists (`--aider-restore-history`). */
  readonly restoreHistory: boolean;
}

/** What this start brings the agent. */
export interface StartMessage {
  /** The task, delivered on a cold start only; a one-shot run's message when its argv has none. */
  readonly prompt: string | undefined;
  /** Delivered on warm starts that bring no new message of their own (`--resume-prompt`). */
  readonly resumePrompt?: string | undefined;
  /** The chat platform's ID of the run's message (`--message-id`): its identity, instead of its text. */
  readonly messageId?: string | undefined;
}

/** Where the run's state lives: the pointer file (its lock and log beside it). */
export interface PointerPlace {
  readonly path: string;
  /** The user named the pointer file (`--pointer`, SESSIONPIN_POINTER): a foreign one is refused. */
  readonly explicit: boolean;
  /** `--key`: the external conversation (chat thread, PR) this session serves; kept in the pointer. */
  readonly key?: string | undefined;
}
