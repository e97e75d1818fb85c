import { setFlagsFromString } from "node:v8";

/**
 * Regexes from plugin files run on every line an agent prints, on the thread that also forwards
 * keystrokes: one that backtracks catastrophically (`(a+)+$` against a long run of `a`s) would
 * freeze the agent's terminal. Two V8 switches, set once when the first plugin file is checked:
 *  - patterns are checked against V8's linear-time engine, which refuses what it cannot run in
 *    linear time (lookaround, backreferences, large counted repeats): such a pattern is a bad
 *    field of the plugin file, reported and skipped like any other;
 *  - every regex that goes on to backtrack excessively (50,000 backtracks) at run time is re-run
 *    by that linear engine, so a pattern that passed stays linear on any input.
 * The engine is the ordinary one until a regex backtracks that much: built-in rules, which never
 * do, run as before. What a rule still costs per line is bounded in src/engine/budget.ts.
 */
let linear: boolean | undefined;

function linearEngine(): boolean {
  if (linear === undefined) {
    try {
      setFlagsFromString("--enable-experimental-regexp-engine");
      setFlagsFromString("--enable-experimental-regexp-engine-on-excessive-backtracks");
      new RegExp("a", "l");
      linear = true;
    } catch {
      // A Node whose V8 has no linear engine: the per-line budget is then the only bound.
      linear = false;
    }
  }
  return linear;
}

/** Why `source` may backtrack without bound, or undefined when it runs in linear time (or is not a regex at all). */
export function unboundedReason(source: string): string | undefined {
  if (!linearEngine()) return undefined;
  try {
    new RegExp(source);
  } catch {
    // Not a regex: reported as such by the caller.
    return undefined;
  }
  try {
    new RegExp(source, "l");
    return undefined;
  } catch {
    return "may backtrack without bound on some output: lookaround, backreferences and counted repeats over a few hundred are not allowed in plugin patterns";
  }
}
