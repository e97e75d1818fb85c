/**
 * The bench driver's side of the PTY: starts a child either bare (its own PTY, read here
 * directly, as a host like agentapi would) or through `sessionpin run` (our PTY holds sessionpin,
 * sessionpin's PTY holds the child). Same size, env and reader code in both cases.
 */
import { spawn, spawnSync } from "node:child_process";
import { closeSync, constants, cpSync, existsSync, mkdtempSync, openSync, rmSync, symlinkSync } from "node:fs";
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
  if (tempDirs.length === 0) process.once("exit", () => tempDirs.forEach((d) => rmSync(d, { recursive: true, force: true })));
  tempDirs.push(dir);
  return dir;
}
const tempDirs = [];

/**
 * The environment of every child: no user plugins, no agentapi state, no inherited pointer, and
 * the CLI's code cache in `home` (the section's first start writes it), on for every start.
 */
export function benchEnv(home, extra = {}) {
  const env = { ...process.env };
  for (const name of ["SESSIONPIN_POINTER", "SESSIONPIN_PROMPT", "AGENTAPI_STATE_FILE", "NO_COLOR", "NODE_DISABLE_COMPILE_CACHE"]) delete env[name];
  return { ...env, TERM: "xterm-256color", XDG_CONFIG_HOME: join(home, "config"), XDG_STATE_HOME: join(home, "state"), XDG_CACHE_HOME: join(home, "cache"), ...extra };
}

/** What runs the child: the agent's own PTY, the Node relay, sessionpin, and the C and Python peers. */
export const VIAS = ["bare", "relay", "shim", "script", "asciinema"];
const which = (cmd) => ["/usr/bin", "/bin", "/usr/local/bin"].map((d) => join(d, cmd)).find((path) => existsSync(path));
/** The peers found on this machine; a missing one is skipped with a line saying how to get it. */
export const PEERS = {
  script: { path: which("script"), install: "util-linux (apt-get install util-linux)" },
  asciinema: { path: which("asciinema"), install: "apt-get install asciinema" },
};
export const available = (via) => PEERS[via] === undefined || PEERS[via].path !== undefined;
const quoted = (words) => words.map((w) => `'${String(w).replaceAll("'", "'\\''")}'`).join(" ");

/**
 * Spawns `file args` bare, through the minimal Node relay (children/relay: the floor for any
 * Node PTY shim), as `sessionpin run --agent amp --pointer P --log L -- file args`, through
 * `script -q -c … /dev/null` (util-linux, a C PTY relay) or `asciinema rec -c … CAST`.
 * `record` (a .cast path) makes the shim record too; asciinema always records, to `record` or
 * a temp file. `cpuFile` wraps the command in bash, which writes its children's user and system
 * seconds (`times`) there at the end. Returns the node-pty process (Buffers, no flow control).
 */
export function spawnVia(via, file, args, { env, pointer, log, extraRunArgs = [], nodeArgs = [], record, cpuFile }) {
  const opts = { cols: COLS, rows: ROWS, cwd: ROOT, env, name: "xterm-256color", encoding: null };
  let argv;
  if (via === "bare") argv = [file, ...args];
  else if (via === "relay") argv = [process.execPath, join(CHILDREN, "relay"), file, ...args];
  else if (via === "shim") {
    argv = [process.execPath, ...nodeArgs, cli(), "run", "--agent", "amp", "--pointer", pointer, "--log", log,
      ...(record === undefined ? [] : ["--record", record, "--record-mode", "overwrite"]), ...extraRunArgs, "--", file, ...args];
  } else if (via === "script") argv = [PEERS.script.path, "-q", "-e", "-c", quoted([file, ...args]), "/dev/null"];
  else if (via === "asciinema") argv = [PEERS.asciinema.path, "rec", "-q", "--overwrite", "-c", quoted([file, ...args]), record ?? `${pointer}.cast`];
  else throw new Error(`via ${via}`);
  if (cpuFile !== undefined) argv = ["/bin/bash", "-c", '"$@"; s=$?; times > "$0"; exit $s', cpuFile, ...argv];
  return holdingSlave(pty.spawn(argv[0], argv.slice(1), opts));
}

/**
 * Holds the PTY's slave open until the exit is reported, as sessionpin does (src/pty/host.ts):
 * otherwise node-pty drops the tail of the output now and then on a busy machine, here too.
 */
export function holdingSlave(p) {
  const fd = openSync(p._pty, constants.O_RDWR | constants.O_NOCTTY);
  p.onExit(() => closeSync(fd));
  return p;
}

/** User+system seconds of a cpuFile's children (the second line of bash's `times`). */
export function childCpuSeconds(text) {
  const line = text.trim().split("\n")[1] ?? "";
  return [...line.matchAll(/(\d+)m([\d.]+)s/g)].reduce((sum, m) => sum + Number(m[1]) * 60 + Number(m[2]), 0);
}

/**
 * The background load of a busy pass: children/busy keeps one core busy until stopped.
 * Returns a stop function.
 */
export function startLoad() {
  const child = spawn(join(CHILDREN, "busy"), [], { stdio: "ignore" });
  return () => new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) { resolve(); return; }
    child.once("exit", () => resolve());
    child.kill("SIGKILL");
  });
}

/** Resolves with {exitCode, signal} when the PTY's process exits. */
export function exited(p) {
  return new Promise((resolve) => p.onExit(resolve));
}

export const nowMs = () => Number(process.hrtime.bigint()) / 1e6;

/** A whole call, as a CI step makes it (pipes, stdin empty): its time in ms, whether it exited 0, its stdout. */
export function timed(file, args, env, cwd) {
  const t0 = process.hrtime.bigint();
  const r = spawnSync(file, args, { env, cwd, stdio: ["ignore", "pipe", "pipe"], timeout: 30_000 });
  const ms = Number(process.hrtime.bigint() - t0) / 1e6;
  return { ms, ok: r.status === 0 && r.error === undefined, out: r.stdout };
}
export const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
