import { readlinkSync } from "node:fs";
import { basename } from "node:path";
import { pluginForCommand, pluginNamed } from "../agents/registry.js";
import { listProcesses, type ProcessInfo } from "../doctor/agentapi.js";
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
 */
export function runningRuns(processes: readonly ProcessInfo[], cwdOf: (pid: number) => string | undefined = procCwd): RunningRun[] {
  const found: RunningRun[] = [];
  for (const p of processes) {
    // `sessionpin run …`, or node running the installed or built entry point (`…/dist/bin/main.js run …`).
    const at = p.argv.findIndex((word, i) => word === "run" && i > 0 && /(^|\/)sessionpin(\.js)?$|\/dist\/bin\/main\.js$/.test(p.argv[i - 1] ?? ""));
    const cwd = at < 0 || p.env === undefined ? undefined : cwdOf(p.pid);
    if (at < 0 || p.env === undefined || cwd === undefined) continue;
    try {
      const { values, command } = parseWithCommand(p.argv.slice(at + 1), RUN_OPTIONS, "", p.env);
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
 * The pointer that `plan`, `doctor` and `pointer show` mean when none is named: the one a running
 * `sessionpin run` of this agent in this folder uses (with the same key, if one is given), when
 * there is one, else the default. `from` says which run it came from.
 */
export function pointerHere(
  o: { explicit: string | undefined; agent: string; env: NodeJS.ProcessEnv; cwd: string; key: string | undefined },
  processes: () => readonly ProcessInfo[] = listProcesses,
): { pointer: string; from?: RunningRun } {
  const own = pointerPathFor(o.explicit, o.agent, o.env, o.cwd, o.key);
  if (o.explicit !== undefined || o.env["SESSIONPIN_POINTER"] || o.env["AGENTAPI_STATE_FILE"]) return { pointer: own };
  const runs = runningRuns(processes()).filter((run) => run.agent === o.agent && run.pid !== process.pid && (o.key === undefined || run.key === o.key));
  const from = runs.find((run) => run.cwd === o.cwd);
  return from === undefined || from.pointer === own ? { pointer: own } : { pointer: from.pointer, from };
}

function procCwd(pid: number): string | undefined {
  try {
    return readlinkSync(`/proc/${pid}/cwd`);
  } catch {
    return undefined;
  }
}
