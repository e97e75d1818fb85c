import { resolve } from "node:path";
import { pluginNamed } from "../agents/registry.js";
import { pluginDir } from "../agents/user/load.js";
import type { AgentPlugin } from "../agents/types.js";
import { listProcesses, type ProcessInfo } from "../doctor/agentapi.js";
import {
  agentapiEnvCheck, agentapiTypeCheck, agentChecks, locationChecks, lockCheck, nodeCheck, pluginCheck, pointerCheck,
  pointerDirCheck, ptyCheck, type Check, type CheckStatus,
} from "../doctor/checks.js";
import { EXIT } from "../errors.js";
import { defaultLogPath } from "../pointer/path.js";
import { agentName, choosePlugin, parseWithCommand, userPlugins } from "./options.js";
import { nextStart } from "../run/next-start.js";
import { POINTER_HERE_HELP, pointerHere } from "./running.js";
import { readPointer } from "../pointer/store.js";
import { homeOf, storeHome } from "../home.js";
import { forTerminal } from "../explain/escape.js";

export const DOCTOR_USAGE = `Usage: sessionpin doctor [--json] [--agent NAME] [--pointer PATH] [--key NAME] [--plugin FILE] [-- <agent> [args…]]

Checks what \`sessionpin run\` needs here: Node.js, that node-pty can start a PTY, the agent on PATH
and its --version, its plugin and user plugin files, the agent's own settings where its plugin
knows them (Gemini: session retention, auth, folder trust), that the pointer's folder is writable,
the pointer's state (what the next start would do) and lock, the AGENTAPI_* variables and whether
agentapi was told --type, and where logs, recordings and plugins live.
The agent is the one after --, else --agent NAME, else AGENTAPI_TYPE.

Options:
  --json            one JSON object: {"ok":…,"agent":…,"pointer":…,"checks":[{"name","status","detail","data"}]}
  --agent NAME      the plugin (and its executable, when no command is given)
  --pointer PATH    the pointer file (env SESSIONPIN_POINTER; default as for run)
  --key NAME        the pointer of this external conversation (env SESSIONPIN_KEY), as for run
  --plugin FILE     load a user plugin (repeatable)
  -h, --help        show this help

${POINTER_HERE_HELP} The pointer-of check names a pointer found so.
Exit 0 when no check failed (warnings allowed), 1 when one did. NO_COLOR turns colors off.
Every option can also come from SESSIONPIN_<OPTION> (--agent → SESSIONPIN_AGENT); the command line wins.`;

export const DOCTOR_OPTIONS = {
  agent: { type: "string" },
  plugin: { type: "string", multiple: true },
  pointer: { type: "string" },
  key: { type: "string" },
  json: { type: "boolean" },
  help: { type: "boolean", short: "h" },
} as const;

/** What doctor reads from the machine; tests replace the slow or global parts. */
export interface DoctorContext {
  readonly env: NodeJS.ProcessEnv;
  readonly cwd: string;
  readonly out: (text: string) => void;
  /** Whether stdout is a terminal (colors, unless NO_COLOR). */
  readonly isTTY: boolean;
  readonly processes: () => readonly ProcessInfo[];
  /** How long `<agent> --version` and the PTY probe may take. */
  readonly timeoutMs: number;
}

export async function doctorCommand(argv: readonly string[]): Promise<number> {
  return doctor(argv, {
    env: process.env,
    cwd: process.cwd(),
    out: (text) => void process.stdout.write(text),
    isTTY: process.stdout.isTTY === true,
    processes: listProcesses,
    timeoutMs: 5_000,
  });
}

export async function doctor(argv: readonly string[], c: DoctorContext): Promise<number> {
  const { values, command } = parseWithCommand(argv, DOCTOR_OPTIONS, DOCTOR_USAGE);
  if (values.help) {
    c.out(`${DOCTOR_USAGE}\n`);
    return EXIT.ok;
  }
  const loaded = await userPlugins(values.plugin, c.env, c.cwd);
  const user = loaded.plugins.map((u) => u.plugin);
  const userFiles = new Map<AgentPlugin, string>(loaded.plugins.map((u) => [u.plugin, u.file]));
  const target = whichAgent(values.agent, command[0], c.env, user);

  // The process table is read at most once: for the running run's pointer and agentapi's --type.
  let processTable: readonly ProcessInfo[] | undefined;
  const processes = (): readonly ProcessInfo[] => (processTable ??= c.processes());
  const checks: Check[] = [nodeCheck(), await ptyCheck(c.env, c.cwd, c.timeoutMs)];
  for (const problem of loaded.problems) checks.push({ name: "plugin-file", status: "warn", detail: `${problem} (skipped)` });
  let pointer: string | undefined;
  if (target === undefined) {
    checks.push({ name: "agent", status: "skip", detail: "no agent given: use -- <agent> [args…], --agent NAME or AGENTAPI_TYPE" });
  } else {
    checks.push(...(await agentChecks(target.executable, c.env, c.cwd, c.timeoutMs)));
    checks.push(pluginCheck(target.plugin, target.executable, userFiles));
    checks.push(...(target.plugin?.advice?.({ home: storeHome(c.env), cwd: c.cwd, env: c.env }) ?? []));
  }
  if (target !== undefined && target.plugin === undefined) {
    checks.push({ name: "pointer", status: "skip", detail: `no plugin for ${JSON.stringify(target.executable)}: no pointer is kept` });
  } else if (target !== undefined || values.pointer !== undefined || c.env["SESSIONPIN_POINTER"]) {
    const agent = target === undefined ? "" : agentName(target.plugin, target.executable);
    const here = await pointerHere({ explicit: values.pointer, agent, env: c.env, cwd: c.cwd, key: values.key }, () => processes());
    pointer = here.pointer;
    if (here.why !== undefined) checks.push({ name: "pointer-of", status: "info", detail: here.why, data: { ...(here.from ?? here.kept) } });
    const next = target?.plugin === undefined ? undefined : await nextStart({
      agent: { command: target.executable, args: command.slice(1), plugin: target.plugin, cwd: c.cwd, env: c.env, restoreHistory: false },
      message: { prompt: undefined },
      pointer: { path: pointer, explicit: values.pointer !== undefined || Boolean(c.env["SESSIONPIN_POINTER"]) },
    });
    const [dir, lock] = next?.checks ?? [await pointerDirCheck(pointer), await lockCheck(pointer)];
    checks.push(dir, pointerCheck(pointer, next?.read ?? await readPointer(pointer), next?.decision), lock);
  } else {
    checks.push({ name: "pointer", status: "skip", detail: "no agent and no --pointer: the pointer's place depends on the agent" });
  }
  checks.push(agentapiEnvCheck(c.env), agentapiTypeCheck(c.env, processes()));
  // Where run would log: SESSIONPIN_LOG (run's --log from the environment), else beside the pointer.
  const logPath = c.env["SESSIONPIN_LOG"] ? resolve(c.cwd, c.env["SESSIONPIN_LOG"]) : pointer && defaultLogPath(pointer);
  checks.push(...(await locationChecks(logPath, pluginDir(c.env, homeOf(c.env)), loaded.plugins.length)));

  const ok = !checks.some((check) => check.status === "fail");
  if (values.json) {
    c.out(`${JSON.stringify({ ok, agent: target?.plugin?.name ?? target?.executable ?? null, pointer: pointer ?? null, checks })}\n`);
  } else {
    c.out(table(checks, target?.executable, pointer, c.isTTY && !c.env["NO_COLOR"]));
  }
  return ok ? EXIT.ok : EXIT.failure;
}

/** The command after --, else --agent NAME's first executable, else agentapi's AGENTAPI_TYPE. */
function whichAgent(
  flag: string | undefined,
  executable: string | undefined,
  env: NodeJS.ProcessEnv,
  user: readonly AgentPlugin[],
): { executable: string; plugin: AgentPlugin | undefined } | undefined {
  if (executable !== undefined) return { executable, plugin: choosePlugin(flag, executable, user) };
  if (flag !== undefined) {
    const plugin = choosePlugin(flag, flag, user) as AgentPlugin;
    return { executable: plugin.names[0] ?? flag, plugin };
  }
  const type = env["AGENTAPI_TYPE"];
  const plugin = type ? pluginNamed(type, user) : undefined;
  return plugin === undefined ? undefined : { executable: plugin.names[0] ?? plugin.name, plugin };
}

const COLORS: Record<CheckStatus, string> = { ok: "32", warn: "33", fail: "31", skip: "2", info: "2" };

function table(checks: readonly Check[], agent: string | undefined, pointer: string | undefined, color: boolean): string {
  const paint = (status: CheckStatus, text: string): string => (color ? `\x1b[${COLORS[status]}m${text}\x1b[0m` : text);
  const width = Math.max(...checks.map((check) => check.name.length));
  // Details name pointers, IDs, hosts and paths from files and processes: escaped for the terminal.
  const rows = checks.map((check) => `  ${paint(check.status, check.status.padEnd(4))}  ${check.name.padEnd(width)}  ${forTerminal(check.detail)}\n`);
  const failed = checks.filter((check) => check.status === "fail").length;
  const warned = checks.filter((check) => check.status === "warn").length;
  const verdict = failed > 0
    ? paint("fail", `${failed} check(s) failed`) + (warned > 0 ? `, ${warned} warning(s)` : "")
    : warned > 0 ? paint("warn", `no check failed, ${warned} warning(s)`) : paint("ok", "all checks passed");
  return `sessionpin doctor${agent ? ` for ${forTerminal(agent)}` : ""}${pointer ? `, pointer ${forTerminal(pointer)}` : ""}\n${rows.join("")}${verdict}\n`;
}
