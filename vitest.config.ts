import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    // node-pty is a native addon: child processes, not worker threads, keep each test file's PTYs apart.
    pool: "forks",
    // Two files at a time on CI's 2 cores: most of the suite waits on real PTYs and processes.
    maxWorkers: 2,
    testTimeout: 30_000,
    hookTimeout: 30_000,
  },
});
