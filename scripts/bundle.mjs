/**
 * Bundles the CLI into dist/bin/ (after tsc wrote dist/ for the library and its types).
 *
 * Why: Node 20 loads ES modules one file at a time, and every file on the way to the agent's
 * start is time the agent waits for. `sessionpin run` reached 54 of them unbundled, and still 19
 * when each command was a chunk of its own (code-split): +24-31 ms over a plain Node relay, most
 * of it module loading. So every command is in main.js; apart from it only what loads with
 * `await import` (the modules that use zod) and the little they share with main.js.
 *
 * Kept external:
 * - @lydell/node-pty (node-pty with prebuilt binaries): a native addon, found at run time in its
 *   platform package.
 * - undici: CommonJS that requires Node built-ins, which esbuild's ESM output cannot do. It loads
 *   only when a webhook fires, in the webhook thread (post-worker.js).
 * - zod: ~60 ms to load. Bundled, its code would be compiled on every start; as its own modules
 *   it loads only for a file that is not plainly valid (a hand-edited pointer, a user plugin, a
 *   recording's header).
 *
 * tar (npm's node-tar, which `export` and `import` read and write archives with) is bundled into
 * a file of its own, tar.js, that cli.js requires only when an archive is written or read: in
 * cli.js it was 147 KB more for every start to read, and as a dependency of the package it was
 * 3.8 MB more of every install (node-tar and minipass ship each build twice, with source maps).
 * So it is a devDependency, and both tarballs carry it inside dist/.
 *
 * The bundle is CommonJS, run by a small entry (src/cli/launch.ts → main.js) that compiles it with a
 * V8 code cache: Node 20 caches no compiled code on its own, and `vm.Script`, the one way to give V8
 * a cache, runs scripts, not ES modules. `sessionpin --version` took 0.90 of the time the ES module
 * bundle took, `run` ~15 ms less from launch to the agent's first byte. dist/bin/package.json says
 * its files are CommonJS (the package is "type": "module"). What loads with `await import` stays
 * lazy: esbuild turns it into a module initialised on first use, zod's `require` inside it.
 *
 * The entries keep the names and depth the code's `import.meta.url` lookups expect:
 * `./main.js` (demo), `../../package.json` (--version), `./scan-worker.js` (replay's workers),
 * `./post-worker.js` (the webhook thread),
 * `../demo/fake-amp.js` (the demo agent, a program of its own that tsc writes to dist/demo).
 */
import { build } from "esbuild";
import { createHash } from "node:crypto";
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));
const outdir = `${root}dist/bin`;
rmSync(outdir, { recursive: true, force: true });
mkdirSync(outdir, { recursive: true });
writeFileSync(`${outdir}/package.json`, `${JSON.stringify({ type: "commonjs" })}\n`);
const common = {
  absWorkingDir: root,
  bundle: true,
  format: "cjs",
  platform: "node",
  target: "node20",
  external: ["@lydell/node-pty", "undici", "zod"],
  // `import()` of a package or built-in becomes `require`: a script run by `vm.Script` has no
  // loader for `import()` unless it is given one.
  supported: { "dynamic-import": false },
  // CommonJS has no import.meta.
  define: { "import.meta.url": "importMetaUrl" },
  inject: ["scripts/import-meta-url.js"],
  // Without the comments and indentation V8 parses the file in ~5.5 ms instead of ~9.5 ms on a
  // start without a cache. Names stay, so a stack trace still names its functions.
  minifyWhitespace: true,
  logLevel: "warning",
};
// `tar` in cli.js is `require("./tar.js")`, found beside it (launch.ts's require is cli.js's own).
const tarBeside = { name: "tar-beside", setup: (b) => b.onResolve({ filter: /^tar$/ }, () => ({ path: "./tar.js", external: true })) };
await build({ ...common, entryPoints: ["src/cli/main.ts"], outfile: `${outdir}/cli.js`, plugins: [tarBeside] });
await build({ ...common, stdin: { contents: 'module.exports = require("tar");', resolveDir: root, sourcefile: "tar-entry.js" }, outfile: `${outdir}/tar.js`, inject: [], define: {} });
await build({ ...common, entryPoints: ["src/cli/launch.ts"], outfile: `${outdir}/main.js` });
// Replay's and the webhooks' workers run in threads of their own, which share no module instances with the main thread.
await build({ ...common, entryPoints: ["src/fast/replay/scan-worker.ts"], outfile: `${outdir}/scan-worker.js` });
await build({ ...common, entryPoints: ["src/notify/post-worker.ts"], outfile: `${outdir}/post-worker.js` });

// Its first line names cli.js's contents, for launch.ts's cache (BUNDLE_MARK).
const cli = `${outdir}/cli.js`;
const code = readFileSync(cli, "utf8");
writeFileSync(cli, `// sessionpin bundle ${createHash("sha256").update(code).digest("hex").slice(0, 32)}\n${code}`);
