/**
 * The built CLI's code cache (src/cli/launch.ts): written once per bundle and Node version into
 * $XDG_CACHE_HOME/sessionpin, private, taken by the next start, and never a reason for a command
 * to fail or print anything. A cache V8 turns down is written again; that is how a test sees that
 * V8 took it: the file is left as it was.
 */
import { spawnSync } from "node:child_process";
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, expect, it } from "vitest";
import { CLI, ROOT } from "../helpers/sandbox.js";

const PACKAGE = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { version: string };
const BUNDLE = join(ROOT, "dist/bin/cli.js");

let dir: string;
let cacheHome: string;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "sessionpin-cache-"));
  cacheHome = join(dir, "cache");
});

afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** `sessionpin --version` with the cache under `cacheHome`; it must work and say nothing else. */
function version(env: NodeJS.ProcessEnv = {}): void {
  const result = spawnSync(process.execPath, [CLI, "--version"], {
    env: { ...process.env, XDG_CACHE_HOME: cacheHome, NODE_DISABLE_COMPILE_CACHE: "", ...env },
    encoding: "utf8",
    timeout: 20_000,
  });
  expect(result.stderr).toBe("");
  expect(result.stdout).toBe(`sessionpin ${PACKAGE.version}\n`);
  expect(result.status).toBe(0);
}

/** The cache file this build and this Node write: named for the bundle's hash, Node's version and the architecture. */
function expectedName(): string {
  const hash = /^\/\/ sessionpin bundle ([0-9a-f]+)\n/.exec(readFileSync(BUNDLE, "utf8"))?.[1];
  if (hash === undefined) throw new Error(`${BUNDLE} does not start with its hash`);
  return `${hash}-${process.version}-${process.arch}.v8`;
}

it("writes one private cache file on the first start and leaves it as it is on the next (V8 took it)", () => {
  version();
  const folder = join(cacheHome, "sessionpin");
  expect(readdirSync(folder)).toEqual([expectedName()]);
  const file = join(folder, expectedName());
  const first = statSync(file);
  expect(first.size).toBeGreaterThan(10_000);
  expect(first.mode & 0o777).toBe(0o600);
  expect(statSync(folder).mode & 0o777).toBe(0o700);

  version();
  const second = statSync(file);
  expect([second.ino, second.mtimeMs]).toEqual([first.ino, first.mtimeMs]);
});

it("writes the cache again when V8 turns down the one there (damaged, or from another V8)", () => {
  version();
  const file = join(cacheHome, "sessionpin", expectedName());
  const good = readFileSync(file);
  writeFileSync(file, Buffer.alloc(good.length, 7));
  version();
  expect(readFileSync(file).equals(Buffer.alloc(good.length, 7))).toBe(false);
  const rewritten = statSync(file);
  version();
  expect(statSync(file).ino).toBe(rewritten.ino);
});

it("drops the caches of other builds when it writes its own, and nothing else in the folder", () => {
  const folder = join(cacheHome, "sessionpin");
  version({ XDG_CACHE_HOME: cacheHome });
  rmSync(join(folder, expectedName()));
  const older = `${"0".repeat(32)}-${process.version}-${process.arch}.v8`;
  writeFileSync(join(folder, older), "old build");
  writeFileSync(join(folder, "notes.txt"), "not ours to remove");
  version();
  expect(readdirSync(folder).sort()).toEqual([expectedName(), "notes.txt"].sort());
});

it("removes a cache's temp file that a writer killed mid-write left, when it writes the cache", () => {
  const folder = join(cacheHome, "sessionpin");
  version();
  rmSync(join(folder, expectedName()));
  const dead = spawnSync("true").pid;
  const leftover = `.${expectedName()}.${dead}.0123456789ab.tmp`;
  writeFileSync(join(folder, leftover), "half a cache");
  version();
  expect(readdirSync(folder)).toEqual([expectedName()]);
});

it("neither takes nor writes a cache in a folder others can write to: a cache is code V8 runs", () => {
  const folder = join(cacheHome, "sessionpin");
  version();
  const file = join(folder, expectedName());
  chmodSync(folder, 0o777);
  const planted = Buffer.alloc(statSync(file).size, 7);
  writeFileSync(file, planted);
  const before = statSync(file);
  version();
  // In a folder of its own a damaged cache is written again (above); here it is not touched.
  expect(readFileSync(file).equals(planted)).toBe(true);
  expect([statSync(file).ino, statSync(file).mtimeMs]).toEqual([before.ino, before.mtimeMs]);
});

it("is not held up by a FIFO where the cache file goes, and puts a cache in its place", () => {
  const folder = join(cacheHome, "sessionpin");
  version();
  const file = join(folder, expectedName());
  rmSync(file);
  expect(spawnSync("mkfifo", [file]).status).toBe(0);
  // Opened for reading as a plain file would be, a FIFO waits for a writer: `version` times out.
  version();
  expect(statSync(file).isFile()).toBe(true);
});

it("writes nothing with NODE_DISABLE_COMPILE_CACHE set, and runs as before", () => {
  version({ NODE_DISABLE_COMPILE_CACHE: "1" });
  expect(() => readdirSync(cacheHome)).toThrow(/ENOENT/);
});

it("runs as before when the cache folder cannot be made", () => {
  writeFileSync(cacheHome, "a file where the cache folder would go");
  version();
  version();
  expect(readFileSync(cacheHome, "utf8")).toBe("a file where the cache folder would go");
});

// os.homedir() throws for a user with no HOME and no passwd entry; only root can start one here.
it.skipIf(process.getuid?.() !== 0)("runs as before for a user with no home folder (no HOME, no passwd entry): no cache", () => {
  const result = spawnSync(process.execPath, [CLI, "--version"], {
    cwd: dir,
    env: { PATH: process.env["PATH"] },
    uid: 54_321,
    gid: 54_321,
    encoding: "utf8",
    timeout: 20_000,
  });
  expect(result.stderr).toBe("");
  expect(result.stdout).toBe(`sessionpin ${PACKAGE.version}\n`);
  expect(result.status).toBe(0);
});

it("puts no cache below the working folder for a relative HOME or XDG_CACHE_HOME: the user's own home then, as for the pointer", () => {
  const home = join(dir, "home");
  mkdirSync(home);
  for (const env of [{ HOME: "relhome", XDG_CACHE_HOME: "" }, { HOME: home, XDG_CACHE_HOME: "relcache" }]) {
    const result = spawnSync(process.execPath, [CLI, "--version"], { cwd: dir, env: { ...process.env, NODE_DISABLE_COMPILE_CACHE: "", ...env }, encoding: "utf8", timeout: 20_000 });
    expect([result.status, result.stderr]).toEqual([0, ""]);
  }
  expect(readdirSync(dir).sort()).toEqual(["home"]);
  expect(readdirSync(join(home, ".cache", "sessionpin"))).toEqual([expectedName()]);
});

it("runs the bundle in strict mode, as its ES module sources ran", () => {
  // A line before "use strict" (a banner) would make it an expression, and the bundle sloppy.
  expect(readFileSync(BUNDLE, "utf8").split("\n", 2)[1]).toMatch(/^"use strict";/);
});
