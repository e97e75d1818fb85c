/**
 * The bench driver's side of the PTY: starts a child either bare (its own PTY, read here
 * directly, as a host like agentapi would) or through `sessionpin run` (our PTY holds sessionpin,
 * sessionpin's PTY holds the child). Same size, env and reader code in both cases.
 */
import { cpSync, existsSync, mkdtempSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import * as pty from "@lydell/node-pty";

export const ROOT = fileURLToPath(new URL("../..", import.meta.url));
let build = join(ROOT, "dist");
/**
 * The built CLI the bench runs (a snapshot of dist/ once `snapshotBuild` ran). Builds before the
 * bundle (`--dist` of an older commit) have it at cli/main.js.
 */
export const cliIn = (dist) => [join(dist, "bin/main.js"), join(dist, "cli/main.js")].find((path) => existsSync(path));
export const cli = () => cliIn(build);
/** A module of the build, for `import()`. */
export const buildModule = (path) => pathToFileURL(join(build, path)).href;

/**
 * Copies dist/ (with package.json and a link to node_modules) to a temp folder and runs that from
 * now on: others may rebuild dist/ while the bench runs, and a half-written file would be measured.
 */
export function snapshotBuild(from = join(ROOT, "dist")) {
  const dir = tempDir("build");
  cpSync(from, join(dir, "dist"), { recursive: true });
  cpSync(join(ROOT, "package.json"), join(dir, "package.json"));
  symlinkSync(join(ROOT, "node_modules"), join(dir, "node_modules"));
  build = join(dir, "dist");
  return build;
}
export const CHILDREN = join(ROOT, "bench/children");
export const COLS = 80;
export const ROWS = 24;
/** What the amp plugin sees: execute mode, so no up-front `threads new` and no prompt typing. */
export const AMP_ARGS = ["-x", "--stream-json"];

/** A temp folder removed at exit. */
export function tempDir(label) {
  const dir = mkdtempSync(join(tmpdir(), `sessionpin-bench-${label}-`));
  process.once("exit", () => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** The environment of every child: no user plugins, no agentapi state, no inherited pointer. */
export function benchEnv(home, extra = {}) {
  const env = { ...process.env, TERM: "xterm-256color", XDG_CONFIG_HOME: join(home, "config"), XDG_STATE_HOME: join(home, "state"), ...extra };
  for (const name of ["SESSIONPIN_POINTER", "SESSIONPIN_PROMPT", "AGENTAPI_STATE_FILE", "NO_COLOR"]) delete env[name];
  return env;
}

/**
 * Spawns `file args` bare, through the minimal Node relay (children/relay: the floor for any
 * Node PTY shim), or as `sessionpin run --agent amp --pointer P --log L -- file args`.
 * Returns the node-pty process (Buffers, no flow control).
 */
export function spawnVia(via, file, args, { env, pointer, log, extraRunArgs = [], nodeArgs = [] }) {
  const opts = { cols: COLS, rows: ROWS, cwd: ROOT, env, name: "xterm-256color", encoding: null };
  if (via === "bare") return pty.spawn(file, args, opts);
  if (via === "relay") return pty.spawn(process.execPath, [join(CHILDREN, "relay"), file, ...args], opts);
  if (via !== "shim") throw new Error(`via ${via}`);
  return pty.spawn(process.execPath, [...nodeArgs, cli(), "run", "--agent", "amp", "--pointer", pointer, "--log", log, ...extraRunArgs, "--", file, ...args], opts);
}

/** Resolves with {exitCode, signal} when the PTY's process exits. */
export function exited(p) {
  return new Promise((resolve) => p.onExit(resolve));
}

/** Percentile (nearest rank) of a numeric array. */
export function percentile(values, p) {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[rank];
}

/** The middle value (mean of the two middle ones for an even count). */
export function median(values) {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}
export const nowMs = () => Number(process.hrtime.bigint()) / 1e6;
export const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
