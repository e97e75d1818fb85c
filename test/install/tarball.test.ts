/**
 * The package as a user gets it: `npm pack`, then `npm install --global` of the tarball into a
 * temp prefix with install scripts off and no compiler on PATH (only node, npm and a few basic
 * tools, linked into one folder), then `sessionpin demo` from the installed bin. Offline: npm
 * takes sessionpin's dependencies from the npm cache, which `npm test` fills first
 * (scripts/cache-install-deps.mjs).
 * Then the same install without its node-pty binary: every PTY command says so in one line.
 *
 * Packs the dist/ that `npm test` built (--ignore-scripts: prepack would rebuild dist under the
 * other test files that run it). offline.test.ts does the same for the tarball that carries its
 * dependencies.
 */
import { existsSync, readdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { CLI, ROOT } from "../helpers/sandbox.js";
import { COMPILERS, InstallSandbox } from "./install-sandbox.js";

const PLATFORM_PACKAGE = `node-pty-${process.platform}-${process.arch}`;

let box: InstallSandbox;
let prefix: string;
let installed: string;

beforeAll(() => {
  if (!existsSync(CLI)) throw new Error(`${CLI} is missing: run npm run build first (npm test does)`);
  box = new InstallSandbox();
  prefix = join(box.dir, "prefix");
  installed = join(prefix, "lib", "node_modules", "sessionpin");
});

afterAll(() => box?.remove());

it("installs from the packed tarball without scripts or a compiler, and sessionpin demo passes", () => {
  for (const compiler of COMPILERS) expect(existsSync(join(box.path, compiler)), compiler).toBe(false);

  const pack = box.run("npm", ["pack", "--ignore-scripts", "--pack-destination", box.dir, "--json"], { cwd: ROOT, env: box.npmEnv(), timeoutMs: 20_000 });
  expect(pack.status, pack.stderr).toBe(0);
  const [packed] = JSON.parse(pack.stdout) as Array<{ filename: string; files: Array<{ path: string }> }>;
  if (packed === undefined) throw new Error(`npm pack printed no package: ${pack.stdout}`);
  const files = packed.files.map((file) => file.path);
  expect(files).toContain("LICENSE");
  expect(files).toContain("dist/bin/main.js");
  expect(files.filter((file) => file.endsWith(".map"))).toEqual([]);
  expect(files.filter((file) => !file.startsWith("dist/") && !["LICENSE", "README.md", "package.json"].includes(file))).toEqual([]);

  const install = box.run(
    "npm",
    ["install", "--global", "--prefix", prefix, "--ignore-scripts", "--offline", "--no-audit", "--no-fund", join(box.dir, packed.filename)],
    { env: box.npmEnv(), timeoutMs: 40_000 },
  );
  // ENOTCACHED: the npm cache lacks a dependency; scripts/cache-install-deps.mjs fills it.
  expect(install.status, install.stderr).toBe(0);
  // Nothing was built: node-pty's binary came prebuilt in its platform package.
  expect(readdirSync(join(installed, "node_modules", "@lydell"))).toContain(PLATFORM_PACKAGE);

  const demo = box.run(join(prefix, "bin", "sessionpin"), ["demo"], { env: { HOME: box.dir, TMPDIR: box.dir }, timeoutMs: 30_000 });
  expect(demo.stderr).toBe("");
  expect(demo.stdout).toContain("Demo passed: the thread survived the restart.");
  expect(demo.status).toBe(0);
}, 90_000);

it("without node-pty's binary, run in a PTY and demo say so in one line with the fix, doctor names it, and a run on pipes needs none", () => {
  // Continues from the install above, as npm's --omit=optional would have left it.
  const bin = join(prefix, "bin", "sessionpin");
  expect(existsSync(bin)).toBe(true);
  rmSync(join(installed, "node_modules", "@lydell", PLATFORM_PACKAGE), { recursive: true, force: true });
  const line = `cannot start a PTY: node-pty's prebuilt binary for ${process.platform}-${process.arch} (@lydell/${PLATFORM_PACKAGE}) is not installed: reinstall sessionpin without --omit=optional or --no-optional, on this machine`;
  const env = { HOME: box.dir, TMPDIR: box.dir };

  for (const args of [["demo"], ["run", "--pty", "--", "true"]]) {
    const result = box.run(bin, args, { env, timeoutMs: 10_000 });
    expect(result.stderr, args.join(" ")).toBe(`sessionpin: ${line}\n`);
    expect(result.stdout).toBe("");
    expect(result.status).toBe(1);
  }

  const doctor = box.run(bin, ["doctor", "--json"], { env, timeoutMs: 10_000 });
  const report = JSON.parse(doctor.stdout) as { checks: Array<{ name: string; status: string; detail: string }> };
  expect(report.checks.find((check) => check.name === "pty")).toEqual({ name: "pty", status: "fail", detail: line });
  expect(doctor.status).toBe(1);

  // Commands that start no PTY still work, and so does a run on pipes (no terminal).
  expect(box.run(bin, ["plugins"], { env, timeoutMs: 10_000 }).status).toBe(0);
  expect(box.run(bin, ["run", "--", "sh", "-c", "echo on pipes"], { env, timeoutMs: 10_000 })).toMatchObject({ status: 0, stdout: "on pipes\n", stderr: "" });
});
