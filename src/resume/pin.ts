import type { PinEvent } from "../agents/tracker.js";
import type { Logger } from "../log/logger.js";
import { POINTER_VERSION, type Pointer } from "../pointer/schema.js";
import { writePointer } from "../pointer/store.js";

type HistoryEntry = Pointer["history"][number];

/**
 * Turns pin events into pointer files, the moment they happen. Writes are queued so they land in
 * order; each writes the whole latest state atomically. A failed write is logged, and the agent
 * keeps running.
 */
export class PointerPin {
  #pointer: Pointer | undefined;
  #history: HistoryEntry[];
  #queue: Promise<void> = Promise.resolve();

  constructor(
    private readonly path: string,
    private readonly owner: { readonly agent: string; readonly cwd: string },
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
      this.#history = [...this.#history, { id: event.previous.id, at, reason: `${this.owner.agent} switched to ${pinned.id}` }];
    }
    this.#save(
      {
        version: POINTER_VERSION,
        agent: this.owner.agent,
        id: pinned.id,
        state: pinned.state,
        cwd: this.owner.cwd,
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

  /** Resolves once every queued write has landed or failed. */
  settled(): Promise<void> {
    return this.#queue;
  }

  #save(pointer: Pointer, message: string): void {
    this.#pointer = pointer;
    this.#queue = this.#queue.then(
      () => writePointer(this.path, pointer).then(
        () => this.log.info(`${message} → ${this.path}`),
        (error: unknown) => this.log.warn(`could not write pointer ${this.path}: ${String(error)}`),
      ),
    );
  }
}
