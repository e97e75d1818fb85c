import type { AgentPty } from "../pty/host.js";
import type { Screen } from "./options.js";
import type { Sinks } from "./sinks.js";

/**
 * sessionpin's input on its way to the agent: passed on and reported to the run's sinks, or on a
 * warm start from pipes, dropped (only counted). An Enter passed on is a message submitted.
 */
export class InputSide {
  #dropped = 0;
  #entered = false;
  #lineOpen = false;

  /** `onEnter` hears each submitted message. */
  constructor(
    private readonly agent: Pick<AgentPty, "write" | "endInput">,
    private readonly report: Sinks,
    private readonly onEnter: () => void,
  ) {}

  /** Bytes of input dropped. */
  get dropped(): number {
    return this.#dropped;
  }

  /** Someone submitted input through the terminal (an Enter passed on: agentapi's messages). */
  get entered(): boolean {
    return this.#entered;
  }

  attach(terminal: Screen, drop: boolean): void {
    // Piped input that ended is end-of-file to the agent (`echo x | sessionpin run -- wc -c`), even
    // where its content was dropped: what reads it to the end must not wait for ever.
    terminal.attach(drop ? (chunk) => void (this.#dropped += chunk.length) : (chunk) => this.#pass(chunk), () => this.agent.endInput?.(this.#lineOpen));
  }

  #pass(chunk: Buffer): void {
    this.agent.write(chunk);
    this.report.emit({ kind: "input", chunk });
    const last = chunk.at(-1);
    if (last !== undefined) this.#lineOpen = last !== 0x0a && last !== 0x0d;
    // Enter submits a message (agentapi ends each with "\r"): the agent is taking turns.
    if (chunk.includes(0x0d)) {
      this.#entered = true;
      this.onEnter();
    }
  }
}
