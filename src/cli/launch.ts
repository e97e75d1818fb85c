#!/usr/bin/env node
/**
 * The CLI's entry, dist/bin/main.js: runs the bundle (dist/bin/cli.js) compiled from a V8 code
 * cache when there is one, so that a start does not parse and compile ~220 KB of JavaScript
 * before the agent starts. Node 20 has no compile cache of its own (`module.enableCompileCache`
 * is 22.1+) and none for ES modules, hence a CommonJS bundle run through `vm.Script`.
 *
 * The cache is one file per bundle, Node version and architecture in
 * `$XDG_CACHE_HOME/sessionpin` (or `~/.cache/sessionpin`), written when a process ends that found
 * none, or one V8 turned down. It holds what that process compiled: the first command run after an
 * install or a Node upgrade decides what later starts find compiled. `NODE_DISABLE_COMPILE_CACHE`
 * (Node's own switch for its cache) turns it off. A cache that cannot be read or written only
 * costs the time it would have saved: nothing is printed, nothing fails.
 */
import { closeSync, constants, fstatSync, lstatSync, openSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { isAbsolute, join } from "node:path";
import { fileURLToPath } from "node:url";
import { Script } from "node:vm";
import { tempPathFor } from "../pointer/atomic.js";
import { removeLeftoverTemps } from "../pointer/store.js";
import { makeFolders } from "../files.js";
import { homeOf } from "../home.js";
import { runDirect } from "../shim/direct.js";

// The bundle's first line: its hash, as scripts/bundle.mjs writes it. V8 checks a cache against
// the source's length, not its bytes, so each build's cache needs a name of its own.
const BUNDLE_MARK = "// sessionpin bundle ";
const SUFFIX = ".v8";

// A shim's call (`main.js shim exec NAME REAL [args…]`) starts the agent whatever goes wrong
// here: on a Node older than the bundle needs, or with the bundle missing or broken, the agent
// runs straight, with one line on stderr.
const [command, action, name, real, ...args] = process.argv.slice(2);
const shimCall = command === "shim" && action === "exec" && name !== undefined && real !== undefined;
const [major = 0, minor = 0] = process.versions.node.split(".").map(Number);
if (shimCall && (major < 20 || (major === 20 && minor < 19))) {
  process.stderr.write(`sessionpin: Node ${process.versions.node} is older than 20.19, which sessionpin needs; starting ${name} without sessionpin\n`);
  void runDirect(real, args);
} else {
  try {
    runBundle();
  } catch (error) {
    if (!shimCall) throw error;
    process.stderr.write(`sessionpin: cannot load ${fileURLToPath(new URL("./cli.js", import.meta.url))} (${(error as Error).message.split("\n", 1)[0]}); starting ${name} without sessionpin\n`);
    void runDirect(real, args);
  }
}

function runBundle(): void {
  const bundle = fileURLToPath(new URL("./cli.js", import.meta.url));
  const source = readFileSync(bundle, "utf8");
  const cache = cachePath(source, process.env);
  const cachedData = cache === undefined ? undefined : readOwn(cache.file);
  // The bundle's code runs as CommonJS does: a function of these five, its first line a comment.
  const script = new Script(`(function (exports, require, module, __filename, __dirname) {${source}\n})`, {
    filename: bundle,
    ...(cachedData === undefined ? {} : { cachedData }),
  });
  if (cache !== undefined && (cachedData === undefined || script.cachedDataRejected === true)) {
    process.once("exit", () => save(cache, () => script.createCachedData()));
  }
  const cjsModule = { exports: {} };
  (script.runInThisContext() as (...args: unknown[]) => void)(cjsModule.exports, createRequire(bundle), cjsModule, bundle, join(bundle, ".."));
}

interface CacheFile {
  readonly dir: string;
  readonly file: string;
  /** File names of this bundle's caches start so; other caches in `dir` are older builds'. */
  readonly prefix: string;
}

function cachePath(code: string, env: NodeJS.ProcessEnv): CacheFile | undefined {
  if (env["NODE_DISABLE_COMPILE_CACHE"] || !code.startsWith(BUNDLE_MARK)) return undefined;
  const hash = code.slice(BUNDLE_MARK.length, code.indexOf("\n"));
  if (!/^[0-9a-f]{16,64}$/.test(hash)) return undefined;
  // A relative XDG_CACHE_HOME or HOME would put it below whatever folder the agent runs in.
  const xdg = env["XDG_CACHE_HOME"];
  const base = xdg && isAbsolute(xdg) ? xdg : homeCache(env);
  if (base === undefined) return undefined;
  const dir = join(base, "sessionpin");
  if (!ownedPrivately(dir)) return undefined;
  const prefix = `${hash}-`;
  return { dir, file: join(dir, `${prefix}${process.version}-${process.arch}${SUFFIX}`), prefix };
}

// No home (no HOME and no passwd entry: a container run with an arbitrary uid): no cache.
function homeCache(env: NodeJS.ProcessEnv): string | undefined {
  const home = homeOf(env);
  return home === undefined ? undefined : join(home, ".cache");
}

/**
 * V8 runs what a cache holds, so only a folder no one else can write to is used: it is ours
 * (makeFolders makes it 0700), or missing. A shared XDG_CACHE_HOME cannot hand us code.
 */
function ownedPrivately(dir: string): boolean {
  try {
    const stat = lstatSync(dir);
    return stat.isDirectory() && stat.uid === process.getuid?.() && (stat.mode & 0o022) === 0;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "ENOENT";
  }
}

/**
 * The cache file when it is a regular file of ours, else nothing. Opened as the pointer is
 * (pointer/store.ts): not through a link, and without blocking, so a FIFO put there cannot hang
 * the start.
 */
function readOwn(file: string): Buffer | undefined {
  let fd: number | undefined;
  try {
    fd = openSync(file, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
    const stat = fstatSync(fd);
    return stat.isFile() && stat.uid === process.getuid?.() ? readFileSync(fd) : undefined;
  } catch {
    return undefined;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/** Writes the cache whole or not at all (another start may be reading it), then drops older builds' caches. */
function save(cache: CacheFile, data: () => Buffer): void {
  try {
    makeFolders(cache.dir, 0o700);
    const temp = tempPathFor(cache.file);
    writeFileSync(temp, data(), { mode: 0o600, flag: "wx" });
    renameSync(temp, cache.file);
    removeLeftoverTemps(cache.file);
    for (const name of readdirSync(cache.dir)) {
      if (name.endsWith(SUFFIX) && !name.startsWith(cache.prefix)) rmSync(join(cache.dir, name), { force: true });
    }
  } catch {
    // A cache is only worth the time it saves: without one the next start compiles as this one did.
  }
}
