import { expect, it } from "vitest";
import { runFamily, type Family } from "./harness.js";

/** The seed of quick mode: a failure names the attack and its case; this seed reproduces it. */
export const SEED = 20;

/**
 * The torture suite's quick mode, part of `npm test`: `families` with small counts and the same
 * checks as `npm run torture`. Two test files share the families so vitest runs them side by side.
 */
export function quick(families: readonly Family[]): void {
  for (const family of families) {
    it(`holds against ${family.name}`, async () => {
      const row = await runFamily(family, "quick", SEED);
      console.info(`${row.attack}: tried ${row.tried}, held ${row.held}, failed ${row.failed}, ${row.seconds.toFixed(1)} s`);
      expect(row.failures, `seed ${SEED}`).toEqual([]);
      expect(row.tried).toBeGreaterThan(0);
    }, family.budgetMs.quick + 30_000);
  }
}
