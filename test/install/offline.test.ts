/**
 * The tarball that carries its dependencies (scripts/pack-offline.mjs, `npm run pack:offline`),
 * packed from the dist/ `npm test` built (the script builds nothing), then installed as the README
 * says with nothing else to draw on: `npm install --global --offline` into a fresh `.npm-global`
 * prefix with an empty npm cache, install scripts off and no compiler on PATH. `sessionpin demo`
 * from the installed bin must pass.
 *
 * The README's figures for it are checked against what is measured, not typed: its two sizes
 * against this run's within 10 %; its install time, a timing no unit test should assert, against
 * the figure the bench wrote (bench/sections/install.mjs → bench/results.json).
 */
import { existsSync, lstatSync, mkdirSync, readFileSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { CLI, ROOT } from "../helpers/sandbox.js";
import { COMPILERS, InstallSandbox } from "./install-sandbox.js";

/** node-pty's binaries the tarball carries: Linux (glibc) and macOS, x64 and arm64. */
const PLATFORMS = ["linux-x64", "linux-arm64", "darwin-x64", "darwin-arm64"];
const PACK_TIMEOUT_MS = 200_000; // the script's own bounds: 120 s to fetch, 60 s to pack, 30 s an unpack
const { name, version } = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { name: string; version: string };

interface Packed { filename: string; size: number; bundled: string[]; files: Array<{ path: string; mode: number }> }

let box: InstallSandbox;
let packed: Packed | undefined;

beforeAll(() => {
  if (!existsSync(CLI)) throw new Error(`${CLI} is missing: run npm run build first (npm test does)`);
  box = new InstallSandbox();
});

afterAll(() => box?.remove());

/** The README's words for a figure, as a number: `pattern`'s group `group`, lines joined with a space. */
function readmeFigure(pattern: RegExp, group: number): number {
  const match = pattern.exec(readFileSync(join(ROOT, "README.md"), "utf8").replace(/\s+/g, " "));
  expect(match, `README.md has no sentence matching ${pattern}`).not.toBeNull();
  return Number(match?.[group]);
}

/** Stated within 10 % of measured. */
function expectAbout(stated: number, measured: number, what: string): void {
  expect(Math.abs(stated - measured) / measured, `README says ${what} ${stated} MB, measured ${measured.toFixed(2)} MB`).toBeLessThanOrEqual(0.1);
}

/** Bytes of the files under `dir` (what they hold, not the disk blocks they take). */
function bytesUnder(dir: string): number {
  return readdirSync(dir).reduce((sum, entry) => {
    const path = join(dir, entry);
    const stat = lstatSync(path);
    return sum + (stat.isDirectory() ? bytesUnder(path) : stat.size);
  }, 0);
}

// "The offline tarball is 2.2 MB and installs as 10.0 MB of files"
const SIZES = /offline tarball is ([\d.]+) MB and installs as ([\d.]+) MB of files/;

it("packs every runtime dependency, with node-pty's binaries for Linux and macOS, x64 and arm64", () => {
  const pack = box.run(process.execPath, [join(ROOT, "scripts/pack-offline.mjs"), "--out", box.dir, "--json"], { cwd: ROOT, env: box.npmEnv(), timeoutMs: PACK_TIMEOUT_MS });
  expect(pack.status, pack.stderr).toBe(0);
  packed = JSON.parse(pack.stdout) as Packed;
  expect(packed.filename).toBe(join(box.dir, `${name}-${version}-offline.tgz`));
  expect(packed.bundled.sort()).toEqual(
    ["@lydell/node-pty", ...PLATFORMS.map((platform) => `@lydell/node-pty-${platform}`), "@noble/hashes", "ansi-regex", "strip-ansi", "undici", "zod"].sort(),
  );

  const modes = new Map(packed.files.map((file) => [file.path, file.mode]));
  for (const platform of PLATFORMS) {
    const prebuilds = `node_modules/@lydell/node-pty-${platform}/prebuilds/${platform}`;
    expect(modes.has(`${prebuilds}/pty.node`), `${prebuilds}/pty.node`).toBe(true);
    // macOS's node-pty starts every child through spawn-helper: it must stay executable.
    if (platform.startsWith("darwin")) expect(modes.get(`${prebuilds}/spawn-helper`), `${prebuilds}/spawn-helper`).toBe(0o755);
  }
  expect([...modes.keys()].filter((file) => !/^(dist|node_modules)\//.test(file) && !["LICENSE", "README.md", "package.json"].includes(file))).toEqual([]);
  expect([...modes.keys()].filter((file) => file.startsWith("dist/") && file.endsWith(".map"))).toEqual([]);

  const size = statSync(packed.filename).size;
  expect(size).toBe(packed.size);
  expectAbout(readmeFigure(SIZES, 1), size / 1e6, "the offline tarball is");
}, PACK_TIMEOUT_MS + 10_000);

it("installs with --offline from an empty npm cache, without scripts or a compiler, on this platform's binary; sessionpin demo passes", () => {
  if (packed === undefined) throw new Error("the tarball was not packed (the test above failed)");
  for (const compiler of COMPILERS) expect(existsSync(join(box.path, compiler)), compiler).toBe(false);
  const cache = join(box.dir, "empty-cache");
  mkdirSync(cache);
  const prefix = join(box.dir, ".npm-global");
  const install = box.run(
    "npm",
    ["install", "--global", "--offline", "--prefix", prefix, "--cache", cache, "--ignore-scripts", "--no-audit", "--no-fund", packed.filename],
    { env: box.npmEnv(), timeoutMs: 60_000 },
  );
  expect(install.status, install.stderr).toBe(0);

  const installed = join(prefix, "lib", "node_modules", "sessionpin");
  // node-pty loads the binary of this platform's package, from the installed tree.
  const loads = box.run(
    process.execPath,
    ["-e", "const r = require('node:module').createRequire(process.argv[1]); r('@lydell/node-pty'); console.log(Object.keys(r.cache).filter((f) => f.endsWith('.node')).join('\\n'))", join(installed, "package.json")],
    { timeoutMs: 10_000 },
  );
  const here = `${process.platform}-${process.arch}`;
  expect(loads.stdout).toBe(`${join(installed, "node_modules", "@lydell", `node-pty-${here}`, "prebuilds", here, "pty.node")}\n`);

  const demo = box.run(join(prefix, "bin", "sessionpin"), ["demo"], { env: { HOME: box.dir, TMPDIR: box.dir }, timeoutMs: 30_000 });
  expect(demo.stderr).toBe("");
  expect(demo.stdout).toContain("Demo passed: the thread survived the restart.");
  expect(demo.status).toBe(0);

  expectAbout(readmeFigure(SIZES, 2), bytesUnder(installed) / 1e6, "it installs as");
}, 120_000);

it("states the install time bench/results.json holds, as the bench measured it", () => {
  const results = JSON.parse(readFileSync(join(ROOT, "bench/results.json"), "utf8")) as {
    passes?: { quiet?: { sections?: { install?: { medianSeconds: number; runs: number } } } };
  };
  const measured = results.passes?.quiet?.sections?.install;
  expect(measured, "bench/results.json has no install figure: npm run bench -- --only install --load quiet").toBeDefined();
  // "installs offline in 3.9 s (the median of 5 runs"
  const pattern = /installs offline in ([\d.]+) s \(the median of (\d+) runs/;
  expect(readmeFigure(pattern, 1).toFixed(1), "README's seconds vs bench/results.json's median").toBe(measured?.medianSeconds.toFixed(1));
  expect(readmeFigure(pattern, 2), "README's runs vs bench/results.json's").toBe(measured?.runs);
});

it("without the registry and with an empty npm cache, packing stops in seconds with one line", () => {
  const cache = join(box.dir, "unreachable-cache");
  const env = { ...box.npmEnv(), npm_config_registry: "http://127.0.0.1:1/", npm_config_cache: cache };
  const pack = box.run(process.execPath, [join(ROOT, "scripts/pack-offline.mjs"), "--out", join(box.dir, "unreached")], { cwd: ROOT, env, timeoutMs: 30_000 });
  expect(pack.stderr).toMatch(/^pack-offline: cannot get the \d+ packages to bundle from the npm registry or the npm cache: .*ECONNREFUSED.*\n$/);
  expect(pack.stdout).toBe("");
  expect(pack.status).toBe(1);
});
