import type { Clock, Timer } from "../clock.js";
import { sourcesOf, type Candidate } from "./source.js";
import { lookNow, lookOffThread, type WatchedSource } from "./store-reads.js";
import type { Pinned } from "./tracker.js";
import type { AgentPlugin, RunContext } from "../agents/types.js";

const POLL_MS = 500;

/**
 * Watches, while the agent runs, the sources of its plugin that are read from disk (its session
 * store, pid file and session log: src/engine/source.ts), one look at all of them every POLL_MS.
 * The looks while the agent runs read off the thread that relays its bytes; the one before the
 * spawn and the last one, after the exit, read at once (store-reads.ts).
 */
export class StoreWatch {
  #timer: Timer | undefined;
  /** Bumped by stop(): a look still under way then is dropped, unseen. */
  #turn = 0;
  readonly #sources: readonly WatchedSource[];

  constructor(
    plugin: AgentPlugin,
    context: RunContext,
    private readonly clock: Clock,
    current: () => Pinned | undefined,
    /** Where every ID found goes, unjudged: the intake holds it against the grammar. */
    offer: (candidate: Candidate) => void,
    /** The agent answers once and exits: see Watching.oneShot. */
    oneShot = false,
  ) {
    const now = (): number => clock.now();
    this.#sources = sourcesOf(plugin).flatMap(({ kind, watch }) =>
      watch === undefined ? [] : [watch({ context, now, current, oneShot, offer: (rule, state, value) => offer({ source: kind, rule, state, value }) })]);
  }

  get needed(): boolean {
    return this.#sources.length > 0;
  }

  /**
   * Call before the spawn: what the store holds then belongs to earlier runs. Taken after it, an
   * agent that writes its session file as it starts could beat the look, and its session would
   * count as an earlier run's.
   */
  before(): void {
    for (const source of this.#sources) lookNow(source.before());
  }

  /** Looks at the running agent's sources every POLL_MS until `stop`, one look at a time. */
  start(pid: number): void {
    const turn = this.#turn;
    const tick = (): void => {
      void this.#look(pid, turn).catch(() => undefined).then(() => {
        if (this.#turn === turn) this.#timer = this.clock.setTimeout(tick, POLL_MS);
      });
    };
    this.#timer = this.clock.setTimeout(tick, POLL_MS);
  }

  /** Stops looking, after one last look at once (agents write their transcript as they exit). */
  stop(pid: number): void {
    this.#turn++;
    if (this.#timer !== undefined) this.clock.clearTimeout(this.#timer);
    this.#timer = undefined;
    this.poll(pid);
  }

  /** One look, at once. */
  poll(pid: number): void {
    for (const source of this.#sources) lookNow(source.look(pid));
  }

  /** One look off the thread, as poll() takes at once; dropped as soon as stop() has run. */
  async #look(pid: number, turn: number): Promise<void> {
    const live = (): boolean => this.#turn === turn;
    for (const source of this.#sources) if (!(await lookOffThread(source.look(pid), live))) return;
  }
}
