import { lstatSync, readFileSync, readlinkSync } from "node:fs";
import { basename } from "node:path";
import { pluginForCommand, pluginNamed } from "../agents/registry.js";
import { listProcesses, type ProcessInfo } from "../doctor/agentapi.js";
import { errnoCode } from "../errors.js";
import { homeOf } from "../home.js";
import { exactBytes, exactString, nulSeparated } from "../bytes.js";
import { forTerminal } from "../explain/escape.js";
import { keptPointersFor } from "../pointer/module-dirs.js";
import { parseWithCommand, pointerPathFor, RUN_OPTIONS } from "./options.js";

/** A `sessionpin run` running now, and the pointer it uses. */
export interface RunningRun {
  readonly pid: number;
  readonly agent: string;
  readonly cwd: string;
  readonly key: string | undefined;
  readonly pointer: string;
}

/**
 * The `sessionpin run`s among `processes`, each with the pointer it uses, worked out the way it
 * worked it out itself: from its own flags, environment (AGENTAPI_STATE_FILE, SESSIONPIN_*) and
 * folder. A workspace terminal has none of agentapi's environment, so its own default differs.
 * Only this user's processes count: root can read every process's environment, and a script
 * named `sessionpin` that another user ran (`sessionpin run --pointer /etc/… -- amp`) once made
 * root's `pointer clear` move that file aside.
 */
export function runningRuns(
  processes: readonly ProcessInfo[],
  cwdOf: (pid: number) => string | undefined = procCwd,
  ours: (pid: number) => boolean = sameUser,
): RunningRun[] {
  const found: RunningRun[] = [];
  for (const listed of processes) {
    if (runArgs(listed.argv) === undefined || !ours(listed.pid)) continue;
    // Its key as the bytes it was given: a key that is no UTF-8 names a pointer of its own.
    const p = exactProcess(listed);
    const args = runArgs(p.argv);
    const cwd = p.env === undefined ? undefined : cwdOf(p.pid);
    if (args === undefined || p.env === undefined || cwd === undefined) continue;
    try {
      const { values, command } = parseWithCommand(args, RUN_OPTIONS, "", p.env);
      const executable = command[0];
      if (executable === undefined) continue;
      const agent = (values.agent === undefined ? pluginForCommand(executable, []) : pluginNamed(values.agent))?.name ?? basename(executable);
      found.push({ pid: p.pid, agent, cwd, key: values.key, pointer: pointerPathFor(values.pointer, agent, p.env, cwd, values.key) });
    } catch {
      // Flags this sessionpin cannot read (another version's): not ours to guess.
    }
  }
  return found;
}

/**
 * `run`'s arguments in a process's argv: `sessionpin run …`, or node running the installed or
 * built entry point (`…/dist/bin/main.js run …`); a shim's `… shim exec NAME REAL [args…]` is
 * `run -- REAL [args…]`, its options all from its environment.
 */
function runArgs(argv: readonly string[]): string[] | undefined {
  const entry = (i: number): boolean => i > 0 && /(^|\/)sessionpin(\.js)?$|\/dist\/bin\/main\.js$/.test(argv[i - 1] ?? "");
  const at = argv.findIndex((word, i) => (word === "run" || (word === "shim" && argv[i + 1] === "exec")) && entry(i));
  if (at < 0) return undefined;
  if (argv[at] === "run") return argv.slice(at + 1);
  const real = argv[at + 3];
  return real === undefined ? undefined : ["--", real, ...argv.slice(at + 4)];
}

/** pointerHere's order, in the help of each command that uses it. */
export const POINTER_HERE_HELP = `With no pointer named (no --pointer, SESSIONPIN_POINTER or AGENTAPI_STATE_FILE), the pointer is
that of a running \`sessionpin run\` of the agent in this folder (same --key), else the default
when it is there, else the one run under agentapi kept for this folder in a Coder module folder
(~/.coder-modules/<namespace>/<module>/, ~/.<agent>-module/, ~/.kiro/; the newest if several).`;

/** The pointer `plan`, `doctor` and `pointer show` mean when none is named, and where it came from. */
export interface PointerHere {
  readonly pointer: string;
  /** The running `sessionpin run` whose pointer it is. */
  readonly from?: RunningRun;
  /** The pointer `run` under agentapi kept in a Coder module folder, and how many matched. */
  readonly kept?: { readonly pointer: string; readonly matches: number };
  /** One line saying which file this is and why, when it is not this terminal's own default. */
  readonly why?: string;
}

/**
 * The pointer that `plan`, `doctor` and `pointer show` mean when none is named, in this order:
 * the one a running `sessionpin run` of this agent in this folder uses (with the same key, if one
 * is given); the default, when it is there; else the one `run` under agentapi kept for this agent,
 * folder and key in a Coder module folder (the newest, when several were); else the default.
 * A workspace terminal has none of agentapi's environment, so without the first and third it
 * would look at its own default and see no pointer while agentapi's runs resume one.
 */
export async function pointerHere(
  o: { explicit: string | undefined; agent: string; env: NodeJS.ProcessEnv; cwd: string; key: string | undefined },
  processes: () => readonly ProcessInfo[] = listProcesses,
): Promise<PointerHere> {
  const own = pointerPathFor(o.explicit, o.agent, o.env, o.cwd, o.key);
  if (o.explicit !== undefined || o.env["SESSIONPIN_POINTER"] || o.env["AGENTAPI_STATE_FILE"]) return { pointer: own };
  const runs = runningRuns(processes()).filter((run) => run.agent === o.agent && run.pid !== process.pid && (o.key === undefined || run.key === o.key));
  const from = runs.find((run) => run.cwd === o.cwd);
  if (from !== undefined) {
    return from.pointer === own ? { pointer: own } : { pointer: from.pointer, from, why: forTerminal(`using the pointer of the running sessionpin run (pid ${from.pid}, in ${from.cwd}): ${from.pointer}`) };
  }
  const home = homeOf(o.env);
  if (home === undefined || isThere(own)) return { pointer: own };
  const kept = await keptPointersFor(home, o);
  const newest = kept[0];
  if (newest === undefined) return { pointer: own };
  const among = kept.length > 1 ? `, the newest of ${kept.length}` : "";
  return {
    pointer: newest.path,
    kept: { pointer: newest.path, matches: kept.length },
    // Said on stderr by every command that asks: names from files and folders, escaped.
    why: forTerminal(`no pointer at the default place (${own}): using ${o.agent}'s for ${o.cwd} kept in a Coder module folder${among}: ${newest.path}`),
  };
}

/** Anything at the path, even what is no pointer: doctor and `pointer show` say what is wrong with it. */
function isThere(path: string): boolean {
  try {
    lstatSync(path);
    return true;
  } catch (error) {
    return errnoCode(error) !== "ENOENT" && errnoCode(error) !== "ENOTDIR";
  }
}

/**
 * The process's command line and environment as their exact bytes (src/bytes.ts), read again from
 * /proc; as listed when that cannot be read or no longer says what was listed (another process).
 */
function exactProcess(p: ProcessInfo): ProcessInfo {
  try {
    const argv = nulSeparated(readFileSync(`/proc/${p.pid}/cmdline`));
    if (argv.length !== p.argv.length || argv.some((word, i) => word.toString("utf8") !== p.argv[i])) return p;
    if (p.env === undefined) return { pid: p.pid, argv: argv.map(exactString) };
    const env: Record<string, string> = {};
    for (const entry of nulSeparated(readFileSync(`/proc/${p.pid}/environ`))) {
      const eq = entry.indexOf(0x3d);
      const name = (eq < 0 ? entry : entry.subarray(0, eq)).toString("utf8");
      env[name] = eq < 0 ? "" : exactString(entry.subarray(eq + 1));
    }
    const same = Object.keys(env).length === Object.keys(p.env).length && Object.entries(env).every(([name, value]) => Buffer.from(exactBytes(value)).toString("utf8") === p.env?.[name]);
    return same ? { pid: p.pid, argv: argv.map(exactString), env } : p;
  } catch {
    return p;
  }
}

/**
 * Whether the process runs as this user, real and effective uid alike (/proc/<pid>/status): the
 * only processes whose word on a pointer is taken. False wherever it cannot be told.
 */
export function sameUser(pid: number): boolean {
  const uid = process.geteuid?.();
  if (uid === undefined || process.getuid?.() !== uid) return false;
  try {
    const ids = /^Uid:\s+(\d+)\s+(\d+)\s+(\d+)\s+(\d+)/m.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
    return ids !== null && ids.slice(1).every((id) => Number(id) === uid);
  } catch {
    return false;
  }
}

function procCwd(pid: number): string | undefined {
  try {
    return readlinkSync(`/proc/${pid}/cwd`);
  } catch {
    return undefined;
  }
}
