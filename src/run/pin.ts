import type { PinEvent } from "../engine/tracker.js";
import type { Logger } from "../log/logger.js";
import type { Pointer } from "../pointer/schema.js";
import { POINTER_VERSION } from "../pointer/version.js";
import { writePointer } from "../pointer/store.js";
import { withMessage } from "./messages.js";

type HistoryEntry = Pointer["history"][number];

/**
 * How many earlier IDs a pointer keeps. An agent that changes its ID all the time (a `/clear`
 * loop, a fork per turn) must not grow a file that is rewritten whole on every change.
 */
export const HISTORY_LIMIT = 50;

/** The newest entries of `history`, at most HISTORY_LIMIT. */
export function keepRecent(history: readonly HistoryEntry[]): HistoryEntry[] {
  return history.slice(-HISTORY_LIMIT);
}

/**
 * Turns pin events into pointer files, the moment they happen. Each write puts the whole latest
 * state atomically; writes never overlap. A failed write is logged, and the agent keeps running.
 */
export class PointerPin {
  #pointer: Pointer | undefined;
  #history: HistoryEntry[];
  #next: { pointer: Pointer; message: string } | undefined;
  #writing: Promise<void> | undefined;

  constructor(
    private readonly path: string,
    private readonly owner: { readonly agent: string; readonly cwd: string; readonly key?: string | undefined },
    private readonly log: Logger,
    private readonly now: () => Date = () => new Date(),
    resumed?: Pointer,
    history: HistoryEntry[] = [],
  ) {
    this.#pointer = resumed;
    this.#history = resumed?.history ?? history;
  }

  get pointer(): Pointer | undefined {
    return this.#pointer;
  }

  apply(event: PinEvent): void {
    const at = this.now().toISOString();
    const { pinned } = event;
    const source = pinned.line === undefined ? { rule: pinned.rule } : { rule: pinned.rule, line: pinned.line };
    const current = this.#pointer;
    if (event.kind === "confirmed" && current !== undefined) {
      this.#save({ ...current, state: "confirmed", confirmedAt: at, source }, `confirmed ${pinned.id} (rule ${pinned.rule})`);
      return;
    }
    if (event.kind === "changed") {
      this.#history = keepRecent([...this.#history, { id: event.previous.id, at, reason: `${this.owner.agent} switched to ${pinned.id}` }]);
    }
    this.#save(
      {
        version: POINTER_VERSION,
        agent: this.owner.agent,
        id: pinned.id,
        state: pinned.state,
        cwd: this.owner.cwd,
        ...(this.owner.key === undefined ? {} : { key: this.owner.key }),
        // The conversation goes on under the new ID (a fork, a compaction), with what it had.
        ...(event.kind === "changed" && current?.messages !== undefined ? { messages: current.messages } : {}),
        capturedAt: at,
        ...(pinned.state === "confirmed" ? { confirmedAt: at } : {}),
        source,
        history: this.#history,
      },
      event.kind === "changed"
        ? `${this.owner.agent} now reports ${pinned.id} instead of ${event.previous.id}: pointer follows, old ID kept in history`
        : `captured ${pinned.state} ${pinned.id} (rule ${pinned.rule}${pinned.line === undefined ? "" : `, line ${pinned.line}`})`,
    );
  }

  /**
   * The agent took a turn in this run: the pointer says when, and holds the fingerprint of the
   * message it took the turn with (never its text). A run that failed leaves the pointer as it was.
   */
  tookTurn(sha256: string | undefined): void {
    const current = this.#pointer;
    if (current === undefined) return;
    const at = this.now().toISOString();
    const messages = sha256 === undefined ? current.messages : withMessage(current.messages ?? [], sha256, at);
    const said = sha256 === undefined ? "" : ` with message ${sha256.slice(0, 12)}`;
    this.#save({ ...current, ...(messages === undefined ? {} : { messages }), lastRunAt: at }, `${current.id} took a turn${said}`);
  }

  /** Resolves once the latest state has landed (or failed). */
  settled(): Promise<void> {
    return this.#writing ?? Promise.resolve();
  }

  /**
   * Writes the latest state. While a write is in flight, newer states only replace the one
   * waiting behind it: a burst of events costs at most one more write, and nothing queues up.
   */
  #save(pointer: Pointer, message: string): void {
    this.#pointer = pointer;
    this.#next = { pointer, message };
    this.#writing ??= this.#drain();
  }

  async #drain(): Promise<void> {
    for (let job = this.#next; job !== undefined; job = this.#next) {
      this.#next = undefined;
      try {
        await writePointer(this.path, job.pointer);
        this.log.info(`${job.message} → ${this.path}`);
      } catch (error) {
        this.log.warn(`could not write pointer ${this.path}: ${String(error)}`);
      }
    }
    this.#writing = undefined;
  }
}
