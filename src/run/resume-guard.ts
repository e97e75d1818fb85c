import type { AgentPlugin } from "../agents/types.js";
import type { Clock, Timer } from "../clock.js";
import type { Line } from "../engine/capture/line.js";
import type { Logger } from "../log/logger.js";
import type { AgentPty, OutputStream } from "../pty/host.js";
import { RejectionWatch } from "./fallback.js";
import type { Warm } from "./options.js";
import { HeldStdout, type Sink } from "./sinks.js";

// An agent that printed its rejection but keeps running gets this long after SIGTERM.
const KILL_GRACE_MS = 3_000;

/**
 * A warm attempt's stored ID under watch: an agent that says it has no such session is stopped,
 * and a one-shot run's stdout is held until the ID is accepted (or the fallback window passes);
 * when the agent exited, the guard says whether the ID was rejected.
 */
export class ResumeGuard {
  readonly #watch: RejectionWatch;
  readonly #held: HeldStdout | undefined;
  readonly #window: Timer | undefined;
  #kill: Timer | undefined;

  constructor(
    plugin: AgentPlugin,
    warm: Warm,
    private readonly clock: Clock,
    private readonly log: Logger,
    private readonly agent: Pick<AgentPty, "signal">,
    startedAt: number,
    show: (chunk: Buffer, stream: OutputStream) => void,
  ) {
    this.#watch = new RejectionWatch(plugin, warm.fallbackWindowMs, startedAt);
    this.#held = warm.holdStdout ? new HeldStdout(show) : undefined;
    // Output later than the window can no longer reject the ID: what is held then goes out.
    const held = this.#held;
    this.#window = held && clock.setTimeout(() => held.release("stdout"), warm.fallbackWindowMs);
  }

  /** What shows the agent's output while its stdout is held; undefined when nothing is. */
  get screen(): Sink | undefined {
    return this.#held;
  }

  /** The session is shown (or input was submitted): the ID was accepted, and held output can go. */
  accept(): void {
    this.#watch.accept();
    this.#held?.release("stdout");
  }

  /** A line of the agent's output: the rejection itself stops the agent, SIGKILL after a grace period. */
  line(line: Line): void {
    if (!this.#watch.observe(line.text, this.clock.now()) || this.#kill !== undefined) return;
    this.log.info(`rejection seen on line ${line.n}; stopping the agent`);
    this.agent.signal("SIGTERM");
    this.#kill = this.clock.setTimeout(() => this.agent.signal("SIGKILL"), KILL_GRACE_MS);
  }

  /**
   * The agent exited: why the ID counts as rejected, or undefined. A refused session's output is no
   * answer, so what is held goes to stderr then: stdout carries only the session that answers.
   */
  end(exit: { code: number; signal: number; signalledByUs: boolean }): string | undefined {
    if (this.#window !== undefined) this.clock.clearTimeout(this.#window);
    if (this.#kill !== undefined) this.clock.clearTimeout(this.#kill);
    const rejected = this.#watch.verdict({ ...exit, now: this.clock.now() });
    this.#held?.release(rejected === undefined ? "stdout" : "stderr");
    return rejected;
  }
}
