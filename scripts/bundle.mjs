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
 *   only when a webhook fires.
 * - zod: ~60 ms to load. Bundled, its code would be compiled on every start; as its own modules
 *   it loads only for a file that is not plainly valid (a hand-edited pointer, a user plugin, a
 *   recording's header).
 *
 * The entries keep the names and depth the code's `import.meta.url` lookups expect:
 * `./main.js` (demo), `../../package.json` (--version), `./scan-worker.js` (replay's workers),
 * `../demo/fake-amp.js` (the demo agent, a program of its own that tsc writes to dist/demo).
 */
import { build } from "esbuild";
import { readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));
const outdir = `${root}dist/bin`;
rmSync(outdir, { recursive: true, force: true });
const common = {
  absWorkingDir: root,
  entryNames: "[name]",
  outdir,
  bundle: true,
  format: "esm",
  platform: "node",
  target: "node20",
  external: ["@lydell/node-pty", "undici", "zod"],
  // Node compiles the whole file before the agent starts: without the comments and indentation
  // that is ~5.5 ms instead of ~9.5 ms. Names stay, so a stack trace still names its functions.
  minifyWhitespace: true,
  logLevel: "warning",
};
// The CLI: main.js, and apart from it only what is loaded with `await import` (the modules that
// use zod) and the little they share with main.js.
await build({ ...common, entryPoints: ["src/cli/main.ts"], splitting: true });
// Replay's worker runs in a thread of its own, which shares no module instances with the main
// thread: built as one file, its code shared with the CLI stays out of main.js's chunks.
await build({ ...common, entryPoints: ["src/replay/fast/scan-worker.ts"] });

// Node 20 makes an ES module facade for each built-in imported by name, and fills it with every
// export the built-in has (node:util's reach node:internal/mime): ~1 ms for the eleven the CLI
// imports. process.getBuiltinModule (Node 20.16 and 22.3: package.json's engines) hands over the
// module itself. The named imports become one destructuring each at the top of the file, where
// the imports were hoisted to anyway; any other form of import fails the build.
for (const file of readdirSync(outdir).filter((name) => name.endsWith(".js"))) {
  const path = `${outdir}/${file}`;
  const lines = [];
  const code = readFileSync(path, "utf8").replace(/import\{([^}]*)\}from"(node:[^"]+)";/g, (_, names, id) => {
    // A built-in's module object has no `default`: that import would be undefined.
    if (/\bdefault\b/.test(names)) throw new Error(`${file}: ${id}'s default import, which the bundle step does not rewrite`);
    lines.push(`const{${names.replaceAll(" as ", ":")}}=process.getBuiltinModule(${JSON.stringify(id)});`);
    return "";
  });
  if (/(?:from|import)\s*"node:/.test(code)) throw new Error(`${file}: a built-in imported in a form the bundle step does not rewrite`);
  const shebang = code.startsWith("#!") ? code.slice(0, code.indexOf("\n") + 1) : "";
  writeFileSync(path, shebang + lines.join("") + code.slice(shebang.length));
}
