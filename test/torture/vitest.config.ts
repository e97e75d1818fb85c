import { defineConfig } from "vitest/config";

/** `npm run torture`: the full counts, one family after another, never part of `npm test`. */
export default defineConfig({
  test: {
    include: ["test/torture/full.torture.ts"],
    pool: "forks",
    maxWorkers: 1,
    testTimeout: 3_600_000,
    hookTimeout: 60_000,
  },
});
