/**
 * The one switch of every speed-up under src/fast/: SESSIONPIN_NO_FAST=1 runs the simple path
 * each of them stands in for, the reference their equivalence tests compare with.
 */
export function fastPaths(env: NodeJS.ProcessEnv = process.env): boolean {
  return env["SESSIONPIN_NO_FAST"] !== "1";
}
