import type { AgentPlugin } from "../agents/types.js";
import type { Clock } from "../clock.js";
import type { Logger } from "../log/logger.js";
import type { OuterSide } from "../pty/terminal.js";
import type { AttemptOptions, Screen } from "./attempt.js";
import type { Sink } from "./sinks.js";

/**
 * The groups `run`'s options come in, each named for the question it answers; a module that needs
 * one group takes that group. What the next start does rests on the first three (see decide-start.ts).
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

/** What the next start rests on: the agent's command, what it brings, and the pointer (decide-start.ts). */
export interface StartQuestion {
  readonly agent: AgentCall;
  readonly message: StartMessage;
  readonly pointer: PointerPlace;
}

/** How sessionpin talks with the agent: the terminal (or pipes) and how the prompt is typed. */
export interface Talk {
  readonly terminal: Screen & Pick<OuterSide, "onResize" | "onDrain" | "isTTY" | "streamsApart">;
  /** Starts the agent; a real PTY unless a test passes its own. */
  readonly spawn?: AttemptOptions["spawn"];
  /** The prompt is typed once the agent's output was quiet this long, or at the latest after promptMaxWaitMs. */
  readonly promptQuietMs: number;
  readonly promptMaxWaitMs: number;
}

/** What the run reports, and to whom: the log, and the sinks of its events (recording, trace, webhooks: report.ts). */
export interface Report {
  readonly log: Logger;
  readonly sinks?: readonly Sink[];
}

/** What the run does when something stands in its way. */
export interface Policy {
  /** How long to wait for another run's lock on the pointer; 0 refuses at once (`--wait-lock`). */
  readonly waitLockMs: number;
  /** On a warm start: how long a failure still means the stored ID was rejected (`--fallback-window`). */
  readonly fallbackWindowMs: number;
  /**
   * A warm one-shot run whose session is gone from the agent's store or refused by the agent:
   * `fresh` starts a new session (and says so in one line on stderr), `fail` starts none and
   * exits 5 (`--on-lost`).
   */
  readonly onLost?: "fresh" | "fail";
}

/** Time as the run sees it: the clock runs its timers (a manual one in tests), `now` dates the pointer and the events. */
export interface Time {
  readonly clock: Clock;
  readonly now: () => Date;
}

/** `run`'s options: what the next start rests on, then how to talk, what to report, policy and time. */
export interface SessionOptions extends StartQuestion {
  readonly talk: Talk;
  readonly report: Report;
  readonly policy: Policy;
  readonly time: Time;
}
