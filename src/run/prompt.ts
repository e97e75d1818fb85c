import type { Clock, Timer } from "../clock.js";

const PASTE_START = "\x1b[200~";
const PASTE_END = "\x1b[201~";
// Enter follows once the agent has echoed the paste and been still this long, as agentapi waits
// for the screen to settle: Gemini 0.61 takes an Enter within 40 ms of a paste as a newline in
// the input box, and Auggie 0.36 dropped a paste whose Enter came in the same burst.
const ENTER_QUIET_MS = 300;
const ENTER_MAX_WAIT_MS = 3_000;

/**
 * Types a prompt the way agentapi sends a chat message: once the agent's screen is still, the
 * text as one bracketed paste (a TUI that treats a newline inside it as text does not submit
 * half of it); then, once the echo has settled, Enter on its own. `activity` feeds both waits.
 */
export class PromptTyper {
  #wait: QuietTrigger;
  #submitted = false;

  constructor(
    private readonly clock: Clock,
    private readonly write: (data: string) => void,
    text: string,
    quiet: { readonly quietMs: number; readonly maxWaitMs: number },
    onPaste: () => void = () => undefined,
  ) {
    this.#wait = new QuietTrigger(clock, quiet.quietMs, quiet.maxWaitMs, () => {
      onPaste();
      this.write(PASTE_START + text + PASTE_END);
      this.#wait = new QuietTrigger(this.clock, ENTER_QUIET_MS, ENTER_MAX_WAIT_MS, () => {
        this.write("\r");
        this.#submitted = true;
      });
      this.#wait.start();
      // Counted from the paste too: an agent that echoes nothing gets Enter after the quiet period.
      this.#wait.activity();
    });
  }

  start(): void {
    this.#wait.start();
  }

  /** Whether the prompt was typed and submitted (Enter sent after the paste). */
  get submitted(): boolean {
    return this.#submitted;
  }

  /** The agent printed something. */
  activity(): void {
    this.#wait.activity();
  }

  cancel(): void {
    this.#wait.cancel();
  }
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
