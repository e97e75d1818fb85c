import type { Clock, Timer } from "../clock.js";

// How agentapi sends a chat message: the text as one bracketed paste, then Enter on its own, so
// a TUI that treats a newline inside the paste as text does not submit half of it.
const PASTE_START = "\x1b[200~";
const PASTE_END = "\x1b[201~";
const ENTER_DELAY_MS = 100;

/** Types `prompt` into the agent's terminal the way agentapi does. */
export function typePrompt(write: (data: string) => void, prompt: string, clock: Clock): void {
  write(PASTE_START + prompt + PASTE_END);
  clock.setTimeout(() => write("\r"), ENTER_DELAY_MS);
}

/**
 * Fires once the agent's output has been quiet for `quietMs` (a TUI that stopped drawing is ready
 * for input), or after `maxWaitMs` (a spinner never goes quiet; an agent may print nothing).
 */
export class QuietTrigger {
  #quietTimer: Timer | undefined;
  #maxTimer: Timer | undefined;
  #done = false;

  constructor(
    private readonly clock: Clock,
    private readonly quietMs: number,
    private readonly maxWaitMs: number,
    private readonly fire: () => void,
  ) {}

  /**
   * Starts the maximum wait only: the quiet period begins with the agent's first output, since
   * a prompt typed before the agent has drawn anything lands in a terminal still in line mode,
   * where the kernel echoes it onto the screen.
   */
  start(): void {
    this.#maxTimer = this.clock.setTimeout(() => this.#fire(), this.maxWaitMs);
  }

  /** The agent printed something: the quiet period starts again. */
  activity(): void {
    if (this.#done) return;
    if (this.#quietTimer !== undefined) this.clock.clearTimeout(this.#quietTimer);
    this.#quietTimer = this.clock.setTimeout(() => this.#fire(), this.quietMs);
  }

  cancel(): void {
    this.#done = true;
    if (this.#quietTimer !== undefined) this.clock.clearTimeout(this.#quietTimer);
    if (this.#maxTimer !== undefined) this.clock.clearTimeout(this.#maxTimer);
  }

  #fire(): void {
    if (this.#done) return;
    this.cancel();
    this.fire();
  }
}
