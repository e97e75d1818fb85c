import { spawnSync } from "node:child_process";
import { chmodSync, closeSync, existsSync, constants, fstatSync, lstatSync, openSync, readdirSync, readSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { isAbsolute, join } from "node:path";
import { reasonOf, SessionpinError } from "../errors.js";
import { makeFolders } from "../files.js";
import { requireHome } from "../home.js";
import { tempPathFor } from "../pointer/atomic.js";
import { agentapiShim, agentShim, SHIM_MARK, type ShimTarget } from "./script.js";

/** The name of the shim that keeps the shim folder first on PATH for what agentapi starts. */
export const AGENTAPI = "agentapi";

/** `${XDG_DATA_HOME:-~/.local/share}/sessionpin/shims`: shims are data a user installs, as rbenv's and volta's are. */
export function defaultShimDir(env: NodeJS.ProcessEnv, home: string | undefined): string {
  // The XDG spec says a relative XDG_DATA_HOME is invalid and must be ignored.
  const xdg = env["XDG_DATA_HOME"];
  return join(xdg && isAbsolute(xdg) ? xdg : join(requireHome(home, "XDG_DATA_HOME (or --dir)"), ".local", "share"), "sessionpin", "shims");
}

/** What one install or removal did to one name. */
export type ShimResult =
  | { readonly name: string; readonly done: "written" | "replaced" | "removed" | "absent" }
  | { readonly name: string; readonly problem: string };

// A shim is a few hundred bytes; its mark is on line 2.
const HEAD_BYTES = 4096;

/**
 * Whether `path` is a shim: a regular file (not through a link) whose second line is the mark.
 * Read without blocking, so a FIFO put there cannot hang a listing.
 */
export function isShim(path: string): boolean {
  let fd: number | undefined;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
    if (!fstatSync(fd).isFile()) return false;
    const head = Buffer.alloc(HEAD_BYTES);
    const lines = head.subarray(0, readSync(fd, head, 0, HEAD_BYTES, 0)).toString("utf8").split("\n");
    return lines[1]?.startsWith(`${SHIM_MARK} `) === true || lines[1] === SHIM_MARK;
  } catch {
    return false;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/**
 * Writes one shim per target into its folder, each whole or not at all (a shell may be running
 * the old one). A file of that name that is not a shim (the real agent, a link someone made) is
 * left as it is: that name is a problem, the others are written.
 */
export function installShims(dir: string, targets: readonly ShimTarget[]): ShimResult[] {
  try {
    makeFolders(dir, 0o755);
  } catch (error) {
    throw new SessionpinError("shim-folder", `sessionpin: cannot write shims to ${dir}: ${reasonOf(error)}`, { cause: error });
  }
  return targets.map((target): ShimResult => {
    const path = join(dir, target.name);
    const there = presence(path);
    if (there === "other") return { name: target.name, problem: `${path} is there and is not a sessionpin shim: left as it is` };
    const temp = tempPathFor(path);
    try {
      writeFileSync(temp, target.name === AGENTAPI ? agentapiShim(target) : agentShim(target), { mode: 0o755, flag: "wx" });
      // The umask may have narrowed it: a shim must be executable by whoever runs the agent.
      chmodSync(temp, 0o755);
      renameSync(temp, path);
    } catch (error) {
      rmSync(temp, { force: true });
      return { name: target.name, problem: `cannot write ${path}: ${reasonOf(error)}` };
    }
    return { name: target.name, done: there === "shim" ? "replaced" : "written" };
  });
}

/** Removes the named shims; a file of that name that is no shim stays, and is a problem. */
export function removeShims(dir: string, names: readonly string[]): ShimResult[] {
  return names.map((name): ShimResult => {
    const path = join(dir, name);
    const there = presence(path);
    if (there === "none") return { name, done: "absent" };
    if (there === "other") return { name, problem: `${path} is not a sessionpin shim: left as it is` };
    try {
      rmSync(path);
    } catch (error) {
      return { name, problem: `cannot remove ${path}: ${reasonOf(error)}` };
    }
    return { name, done: "removed" };
  });
}

/** The shims in `dir`, by name; none when the folder is not there. */
export function shimNames(dir: string): string[] {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return [];
    throw error;
  }
  return names.filter((name) => !name.startsWith(".") && isShim(join(dir, name))).sort();
}

/** One shim as `shim list` shows it. */
export interface ShimInfo {
  readonly name: string;
  readonly path: string;
  /** The executable the shim runs now, with the PATH it was asked with; null when there is none (it exits 127). */
  readonly real: string | null;
  /** The sessionpin entry the shim was written for, and whether it is still there. */
  readonly main: string | null;
  readonly mainThere: boolean;
}

/**
 * What each shim in `dir` runs, asked of the shim itself (`SESSIONPIN_SHIM=which`), so that the
 * answer comes from the one lookup that runs the agent, not from a copy of it.
 */
export function describeShims(dir: string, env: NodeJS.ProcessEnv): ShimInfo[] {
  return shimNames(dir).map((name) => {
    const path = join(dir, name);
    const asked = spawnSync(path, [], { env: { ...env, SESSIONPIN_SHIM: "which" }, encoding: "utf8", timeout: 5_000, stdio: ["ignore", "pipe", "ignore"] });
    const real = asked.status === 0 ? asked.stdout.trim() || null : null;
    const main = recordedMain(path);
    return { name, path, real, main, mainThere: main !== null && existsSync(main) };
  });
}

// The `main='…'` line agentShim writes; the agentapi shim has none.
function recordedMain(path: string): string | null {
  let fd: number | undefined;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
    const head = Buffer.alloc(HEAD_BYTES);
    const text = head.subarray(0, readSync(fd, head, 0, HEAD_BYTES, 0)).toString("utf8");
    const quoted = /^main='((?:[^']|'\\'')*)'$/m.exec(text)?.[1];
    return quoted === undefined ? null : quoted.replaceAll(`'\\''`, "'");
  } catch {
    return null;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

function presence(path: string): "none" | "shim" | "other" {
  try {
    lstatSync(path);
  } catch {
    return "none";
  }
  return isShim(path) ? "shim" : "other";
}
