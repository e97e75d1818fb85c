import { setTimeout as sleep } from "node:timers/promises";

const EVERY_MS = 100;

/**
 * Synchronous reads never give timers (the progress line) a turn unless one is made: the returned
 * function makes one when 100 ms have passed since the last.
 */
export function timerTurns(): () => Promise<void> | undefined {
  let last = performance.now();
  return () => {
    if (performance.now() - last < EVERY_MS) return undefined;
    // A timer, not setImmediate: an immediate can run before the timers that are due.
    return sleep(0).then(() => void (last = performance.now()));
  };
}
