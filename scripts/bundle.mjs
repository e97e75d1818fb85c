/**
 * Bundles the CLI into dist/bin/ (after tsc wrote dist/ for the library and its types).
 *
 * Why: Node 20 loads ES modules one file at a time, and `sessionpin run` reached 54 of them
 * before the agent started: ~20 ms of module resolution added to every agent start. Bundled, the
 * run path is a handful of files. Each command stays its own chunk, loaded when it runs.
 *
 * Kept external:
 * - @lydell/node-pty (node-pty with prebuilt binaries): a native addon, found at run time in its
 *   platform package.
 * - undici: CommonJS that requires Node built-ins, which esbuild's ESM output cannot do. It loads
 *   only when a webhook fires.
 * - zod: loaded while the agent starts (for the first pointer write). Bundled, it is one 750 KB
 *   chunk whose compile holds the event loop ~17 ms, so the agent's first output waited for it
 *   (start-up p50 88 ms vs 81 ms with zod's own modules, which load between output events).
 *
 * The entries keep the names and depth the code's `import.meta.url` lookups expect:
 * `./main.js` (demo), `../../package.json` (--version), `./scan-worker.js` (replay's workers),
 * `../demo/fake-amp.js` (the demo agent, a program of its own that tsc writes to dist/demo).
 */
import { build } from "esbuild";
import { rmSync } from "node:fs";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));
const outdir = `${root}dist/bin`;
rmSync(outdir, { recursive: true, force: true });
await build({
  absWorkingDir: root,
  entryPoints: ["src/cli/main.ts", "src/replay/fast/scan-worker.ts"],
  entryNames: "[name]",
  outdir,
  bundle: true,
  splitting: true,
  format: "esm",
  platform: "node",
  target: "node20",
  external: ["@lydell/node-pty", "undici", "zod"],
  logLevel: "warning",
});
