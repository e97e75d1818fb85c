/**
 * A time budget for text rules whose patterns come from plugin files. Output is read on the
 * thread that forwards keystrokes, so a rule that needs long on one line (a pattern that is
 * linear but slow on a 1 MiB line) stalls the agent's terminal for that long. A budgeted rule that
 * takes longer than this on one line is cut off: it reads no more lines in this process, and the
 * line it was cut off on says so (trace, explain, and the run's log). Built-in rules are ours and
 * not timed: a busy machine must never cost them a capture.
 */
export const RULE_BUDGET_MS = 200;

const budgeted = new WeakSet<RegExp>();
const cut = new WeakSet<RegExp>();

/** Puts a rule's pattern under the budget (user plugins' text rules). */
export function budget(pattern: RegExp): void {
  budgeted.add(pattern);
}

/** What `find` found for one rule on one line; `cutOff` says why the rule reads no more lines. */
export interface Timed<T> {
  readonly found: T[];
  readonly cutOff?: string;
}

/** Runs `find` for a rule's `pattern`, timed when it is budgeted; nothing once it was cut off. */
export function withinBudget<T>(pattern: RegExp, lineLength: number, find: () => T[]): Timed<T> {
  if (!budgeted.has(pattern)) return { found: find() };
  if (cut.has(pattern)) return { found: [] };
  const started = performance.now();
  const found = find();
  const took = performance.now() - started;
  if (took <= RULE_BUDGET_MS) return { found };
  cut.add(pattern);
  return { found, cutOff: `${Math.round(took)} ms on a line of ${lineLength} characters, over the ${RULE_BUDGET_MS} ms budget` };
}
