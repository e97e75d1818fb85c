import type { AgentPlugin, RunContext } from "../agents/types.js";
import type { Clock } from "../clock.js";
import type { Extractor } from "../engine/extract.js";
import type { PinEvent } from "../engine/tracker.js";
import type { Logger } from "../log/logger.js";
import type { AgentPty, SpawnOptions } from "../pty/host.js";
import type { SignalRelay } from "../pty/signals.js";
import type { OuterSide } from "../pty/terminal.js";
import type { Sink } from "./sinks.js";

/**
 * The groups `run`'s options come in, and those of its attempts (attempt.ts), each named for the
 * question it answers; a module that needs one group takes that group. What the next start does
 * rests on the first three (see decide-start.ts).
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

/** sessionpin's own side as an attempt uses it: a terminal, or pipes. */
export type Screen = Pick<OuterSide, "size" | "attach" | "detach" | "write">;

/** Starts the agent; a real PTY (spawnAgent) unless a test passes its own. */
export type Spawner = (argv: readonly string[], options: SpawnOptions) => AgentPty;

/** How sessionpin talks with the agent: the terminal (or pipes) and how the prompt is typed. */
export interface Talk {
  readonly terminal: Screen & Pick<OuterSide, "onResize" | "onDrain" | "isTTY" | "streamsApart">;
  readonly spawn?: Spawner;
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

/** What one attempt starts: the agent's argv, in the run's folder and environment. */
export interface Launch extends Pick<AgentCall, "cwd" | "env"> {
  readonly argv: readonly string[];
}

/** What an attempt's agent is connected to: sessionpin's screen (or pipes), its signals, and who holds the running agent. */
export interface Wiring {
  readonly terminal: Screen;
  readonly spawn?: Spawner;
  readonly relay: Pick<SignalRelay, "attach" | "detach" | "stopRequested">;
  /** Receives the running agent, for resize and flow control; undefined once it exited. */
  readonly onSpawn: (agent: AgentPty | undefined) => void;
}

/** What reads the agent's output (and its on-disk store) for the session ID, and where the pins go. */
export interface Capturing {
  readonly extractor: Extractor;
  readonly onPin: (event: PinEvent) => void;
  /** For the agent's on-disk session store. */
  readonly context: RunContext;
  /** The agent answers once and exits: see StoreWatch. */
  readonly oneShot?: boolean;
}

/** The prompt sessionpin types into the PTY once the agent's output goes quiet. */
export interface TypedPrompt {
  readonly text: string;
  readonly quietMs: number;
  readonly maxWaitMs: number;
}

/** How a warm start guards the stored ID it resumes, and the message it must not send again. */
export interface Warm {
  /** How long a failure still means the stored ID was rejected. */
  readonly fallbackWindowMs: number;
  /** Piped input is not passed on (a warm start must not send a piped prompt again). */
  readonly dropInput: boolean;
  /**
   * A one-shot run's stdout is held while its output can still reject the ID, and goes to stderr
   * if it did (see HeldStdout): only where stdout and stderr are apart (pipes).
   */
  readonly holdStdout: boolean;
}
