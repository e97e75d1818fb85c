import { defineConfig } from "vitest/config";

/**
 * `npm run test:interop`: sessionpin against the real agent CLIs pinned in interop/package.json.
 * Kept apart from `npm test` (its files are `*.interop.ts`, which the root config's include does
 * not match): it needs `npm ci --prefix interop` first and runs real programs, slower.
 */
export default defineConfig({
  test: {
    root: new URL("../..", import.meta.url).pathname,
    include: ["test/interop/**/*.interop.ts"],
    // node-pty is a native addon: child processes keep each file's PTYs apart. Two files at a
    // time on CI's 2 cores: the real CLIs are heavy, and every wait in these tests is bounded
    // generously enough for a loaded machine.
    pool: "forks",
    maxWorkers: 2,
    testTimeout: 120_000,
    hookTimeout: 60_000,
  },
});
