import { matchesAny } from "../engine/match.js";
import type { AgentPlugin } from "../agents/types.js";

// 128 + SIGHUP, SIGINT, SIGQUIT, SIGKILL, SIGTERM: the exit codes of a process told to stop.
const STOPPED = new Set([129, 130, 131, 137, 143]);

/**
 * Decides whether a warm start's agent rejected the stored ID. Only the first `windowMs` of the
 * run count, and only until the agent shows a turn: a session that ran and later failed says
 * nothing about its ID. Failures the plugin calls transient (offline) never reject it, and for an
 * agent that says so when it refuses an ID (`saysRejected`), nothing but those words does.
 */
export class RejectionWatch {
  #rejectedBy: string | undefined;
  #transient = false;
  #settled = false;

  constructor(
    private readonly plugin: AgentPlugin,
    private readonly windowMs: number,
    private readonly startedAt: number,
  ) {}

  /** A line of output at time `now`; true when it is the rejection itself. */
  observe(text: string, now: number): boolean {
    if (!this.listening(now)) return false;
    // The agent's own word that the session is unknown outranks failures printed before it:
    // Auggie 0.36 warns `fetch failed` while offline, then looks the ID up locally and refuses it.
    if (matchesAny(this.plugin.rejected, text)) {
      this.#rejectedBy ??= `${this.plugin.name} printed ${JSON.stringify(text.slice(0, 200))}`;
      return true;
    }
    if (matchesAny(this.plugin.transient, text)) this.#transient = true;
    return false;
  }

  /**
   * The agent reported its session, or took a message (interactive agents show no turns in their
   * output, so a submitted message is the turn): the ID was accepted.
   */
  accept(): void {
    this.#settled = true;
  }

  /**
   * Why the ID counts as rejected once the agent exited, or undefined. An agent refuses an ID by
   * exiting with an error code; one killed by a signal crashed or was stopped, which says nothing
   * about the ID. So is one that caught a stop signal sent to it directly (not through
   * sessionpin) and exited with the shell's code for it, 128+N.
   */
  verdict(exit: { code: number; signal: number; now: number; signalledByUs: boolean }): string | undefined {
    if (this.#rejectedBy !== undefined) return this.#rejectedBy;
    // A plugin that claims to say so but names no words would never let a stale ID go.
    if (this.plugin.saysRejected === true && this.plugin.rejected.length > 0) return undefined;
    if (exit.code === 0 || exit.signal > 0 || exit.signalledByUs || STOPPED.has(exit.code) || this.#transient || !this.listening(exit.now)) return undefined;
    return `${this.plugin.name} exited with ${exit.code} after ${exit.now - this.startedAt} ms, within the ${this.windowMs} ms fallback window, before any turn`;
  }

  /** Whether output at `now` can still reject the ID: every line must then be read. */
  listening(now: number): boolean {
    return !this.#settled && now - this.startedAt < this.windowMs;
  }
}
