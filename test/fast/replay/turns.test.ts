import { describe, expect, it } from "vitest";
import { timerTurns } from "../../../src/fast/replay/turns.js";

/** Synchronous work for `ms`: what a replay's reads are to the event loop. */
function busy(ms: number): void {
  for (const end = performance.now() + ms; performance.now() < end;);
}

describe("timerTurns", () => {
  it("makes no turn until 100 ms passed since the last, then one in which due timers run", async () => {
    const turn = timerTurns();
    expect(turn()).toBeUndefined();
    let fired = false;
    setTimeout(() => void (fired = true), 0);
    busy(120);
    const made = turn();
    expect(made).toBeInstanceOf(Promise);
    expect(fired).toBe(false);
    await made;
    expect(fired).toBe(true);
    // The turn taken counts as the last: none again at once.
    expect(turn()).toBeUndefined();
  });

  it("lets a progress timer run during a long synchronous read only through its turns", async () => {
    const ticks: number[] = [];
    const timer = setInterval(() => ticks.push(performance.now()), 20);
    try {
      const turn = timerTurns();
      for (const end = performance.now() + 600; performance.now() < end;) {
        busy(5);
        const made = turn();
        if (made !== undefined) await made;
      }
    } finally {
      clearInterval(timer);
    }
    // About one turn per 100 ms (fewer on a loaded machine): the timer ran, but not every 20 ms.
    expect(ticks.length).toBeGreaterThanOrEqual(1);
    expect(ticks.length).toBeLessThanOrEqual(8);
  });
});
