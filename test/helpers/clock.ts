import type { Clock, Timer } from "../../src/clock.js";

/** A clock that only moves when the test says so. */
export class ManualClock implements Clock {
  #now = 0;
  #timers: Array<{ at: number; callback: () => void; handle: Timer }> = [];

  now(): number {
    return this.#now;
  }

  setTimeout(callback: () => void, ms: number): Timer {
    const handle: Timer = {};
    this.#timers.push({ at: this.#now + ms, callback, handle });
    return handle;
  }

  clearTimeout(timer: Timer): void {
    this.#timers = this.#timers.filter((t) => t.handle !== timer);
  }

  /** Timers set and neither fired nor cleared. */
  get pending(): number {
    return this.#timers.length;
  }

  /** Moves time forward, firing due timers in order. */
  advance(ms: number): void {
    const until = this.#now + ms;
    for (;;) {
      const due = this.#timers.filter((t) => t.at <= until).sort((a, b) => a.at - b.at)[0];
      if (due === undefined) break;
      this.#timers = this.#timers.filter((t) => t !== due);
      this.#now = due.at;
      due.callback();
    }
    this.#now = until;
  }
}
