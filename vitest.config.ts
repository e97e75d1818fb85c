import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    // node-pty is a native addon: child processes, not worker threads, keep each test file's PTYs apart.
    pool: "forks",
    testTimeout: 30_000,
    hookTimeout: 30_000,
  },
});
