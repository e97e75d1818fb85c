/**
 * The package as a user gets it: `npm pack`, then `npm install --global` of the tarball into a
 * temp prefix with install scripts off and no compiler on PATH (only node, npm and a few basic
 * tools, linked into one folder), then `sessionpin demo` from the installed bin. Offline: npm
 * takes sessionpin's dependencies from the npm cache, which `npm test` fills first
 * (scripts/cache-install-deps.mjs).
 * Then the same install without its node-pty binary: every PTY command says so in one line.
 *
 * Packs the dist/ that `npm test` built (--ignore-scripts: prepack would rebuild dist under the
 * other test files that run it).
 */
import { spawnSync, type SpawnSyncReturns } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, realpathSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { resolveExecutable } from "../../src/pty/which.js";
import { CLI, ROOT } from "../helpers/sandbox.js";

const TOOLS = ["sh", "bash", "env", "cat", "ls", "mkdir", "rm", "cp", "mv", "chmod", "ln", "tar", "gzip", "uname", "sed", "grep", "head", "tail", "true"];
const COMPILERS = ["make", "cc", "gcc", "c++", "g++", "clang", "python", "python3", "node-gyp"];
const PLATFORM_PACKAGE = `node-pty-${process.platform}-${process.arch}`;

let dir: string;
let path: string;
let prefix: string;
let installed: string;

/** Runs `file` with the compiler-free PATH; every run is bounded. */
function run(file: string, args: readonly string[], options: { cwd?: string; env?: NodeJS.ProcessEnv; timeoutMs: number }): SpawnSyncReturns<string> {
  const result = spawnSync(file, args, { cwd: options.cwd ?? dir, env: { ...options.env, PATH: path }, encoding: "utf8", timeout: options.timeoutMs, killSignal: "SIGKILL" });
  if (result.error !== undefined) throw result.error;
  return result;
}

/** npm with the user's npm config and cache, but none of the npm_* variables `npm test` set for itself. */
function npmEnv(): NodeJS.ProcessEnv {
  const kept = new Set(["npm_config_cache", "npm_config_userconfig", "npm_config_globalconfig", "npm_config_registry"]);
  return {
    ...Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith("npm_") || kept.has(name))),
    npm_config_logs_dir: join(dir, "npm-logs"),
    npm_config_update_notifier: "false",
  };
}

beforeAll(() => {
  if (!existsSync(CLI)) throw new Error(`${CLI} is missing: run npm run build first (npm test does)`);
  dir = realpathSync(mkdtempSync(join(tmpdir(), "sessionpin-install-")));
  path = join(dir, "path");
  prefix = join(dir, "prefix");
  mkdirSync(path);
  symlinkSync(process.execPath, join(path, "node"));
  const npm = process.env["npm_execpath"]?.endsWith("npm-cli.js") ? process.env["npm_execpath"] : resolveExecutable("npm", process.env, ROOT);
  symlinkSync(npm, join(path, "npm"));
  for (const tool of TOOLS) {
    try {
      symlinkSync(resolveExecutable(tool, process.env, ROOT), join(path, tool));
    } catch {
      // Not on this machine: npm and the demo do without it.
    }
  }
  installed = join(prefix, "lib", "node_modules", "sessionpin");
});

afterAll(() => {
  if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
});

it("installs from the packed tarball without scripts or a compiler, and sessionpin demo passes", () => {
  for (const compiler of COMPILERS) expect(existsSync(join(path, compiler)), compiler).toBe(false);

  const pack = run("npm", ["pack", "--ignore-scripts", "--pack-destination", dir, "--json"], { cwd: ROOT, env: npmEnv(), timeoutMs: 20_000 });
  expect(pack.status, pack.stderr).toBe(0);
  const [packed] = JSON.parse(pack.stdout) as Array<{ filename: string; files: Array<{ path: string }> }>;
  if (packed === undefined) throw new Error(`npm pack printed no package: ${pack.stdout}`);
  const files = packed.files.map((file) => file.path);
  expect(files).toContain("LICENSE");
  expect(files).toContain("dist/bin/main.js");
  expect(files.filter((file) => file.endsWith(".map"))).toEqual([]);
  expect(files.filter((file) => !file.startsWith("dist/") && !["LICENSE", "README.md", "package.json"].includes(file))).toEqual([]);

  const install = run(
    "npm",
    ["install", "--global", "--prefix", prefix, "--ignore-scripts", "--offline", "--no-audit", "--no-fund", join(dir, packed.filename)],
    { env: npmEnv(), timeoutMs: 40_000 },
  );
  // ENOTCACHED: the npm cache lacks a dependency; scripts/cache-install-deps.mjs fills it.
  expect(install.status, install.stderr).toBe(0);
  // Nothing was built: node-pty's binary came prebuilt in its platform package.
  expect(readdirSync(join(installed, "node_modules", "@lydell"))).toContain(PLATFORM_PACKAGE);

  const demo = run(join(prefix, "bin", "sessionpin"), ["demo"], { env: { HOME: dir, TMPDIR: dir }, timeoutMs: 30_000 });
  expect(demo.stderr).toBe("");
  expect(demo.stdout).toContain("Demo passed: the thread survived the restart.");
  expect(demo.status).toBe(0);
}, 90_000);

it("without node-pty's binary, run and demo say so in one line with the fix, and doctor names it", () => {
  // Continues from the install above, as npm's --omit=optional would have left it.
  const bin = join(prefix, "bin", "sessionpin");
  expect(existsSync(bin)).toBe(true);
  rmSync(join(installed, "node_modules", "@lydell", PLATFORM_PACKAGE), { recursive: true, force: true });
  const line = `cannot start a PTY: node-pty's prebuilt binary for ${process.platform}-${process.arch} (@lydell/${PLATFORM_PACKAGE}) is not installed: reinstall sessionpin without --omit=optional or --no-optional, on this machine`;
  const env = { HOME: dir, TMPDIR: dir };

  for (const args of [["demo"], ["run", "--", "true"]]) {
    const result = run(bin, args, { env, timeoutMs: 10_000 });
    expect(result.stderr, args.join(" ")).toBe(`sessionpin: ${line}\n`);
    expect(result.stdout).toBe("");
    expect(result.status).toBe(1);
  }

  const doctor = run(bin, ["doctor", "--json"], { env, timeoutMs: 10_000 });
  const report = JSON.parse(doctor.stdout) as { checks: Array<{ name: string; status: string; detail: string }> };
  expect(report.checks.find((check) => check.name === "pty")).toEqual({ name: "pty", status: "fail", detail: line });
  expect(doctor.status).toBe(1);

  // Commands that start no PTY still work.
  expect(run(bin, ["plugins"], { env, timeoutMs: 10_000 }).status).toBe(0);
});
