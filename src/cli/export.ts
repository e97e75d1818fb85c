import { existsSync, readFileSync, statSync } from "node:fs";
import { resolve } from "node:path";
import { pluginNames } from "../agents/registry.js";
import type { AgentPlugin } from "../agents/types.js";
import { SessionpinError } from "../errors.js";
import { forTerminal, jsonForTerminal } from "../explain/escape.js";
import { readPointer } from "../pointer/store.js";
import { CarryError, sizeText } from "../state/archive-rules.js";
import { exportSession } from "../state/carry-export.js";
import { namedPlugin, parseOptions, pointerPathFor, userPlugins } from "./options.js";

export const EXPORT_USAGE = `Usage: sessionpin export [--key NAME | --pointer PATH] [--agent NAME] -o FILE [--json]

Writes one archive (a gzipped tar) that carries a pinned conversation to another machine or
folder: the pointer, the agent's own files of the session (Claude's transcript, Codex's rollout,
Gemini's chats, Copilot's session-state, Qwen's, pi's and omp's session files, Auggie's session;
OpenCode's through its own \`opencode export\`), and a manifest naming the agent, its version, the
folder, and each file's size and sha256. \`sessionpin import FILE\` restores it there.
\`sessionpin plugins\` says, per agent, what travels; Amp's threads stay on Amp's server (the
pointer alone travels); Cursor's, Goose's and Kiro's sessions are not carried.

Options:
  --key NAME          the pointer of this external conversation (env SESSIONPIN_KEY), as run's
  --pointer PATH      the pointer file (env SESSIONPIN_POINTER)
  --agent NAME        whose pointer for this folder is meant; by default the agent that has one
                      here (with --pointer, the pointer's agent)
  -o, --output FILE   the archive to write (replaced when it is there)
  --json              one JSON object instead of one line per file
  -h, --help          show this help

Without --pointer the pointer is the one \`sessionpin run\` uses in this folder (with --key, that
key's). Every option can also come from SESSIONPIN_<OPTION> (--key → SESSIONPIN_KEY).

Exit codes: 0 written; 1 no pointer, or its session is not in the agent's store; 2 usage; 3 this
agent's sessions cannot be carried; 75 a live \`sessionpin run\` holds the pointer (export once it
has ended: the agent may be writing the session).`;

export const EXPORT_OPTIONS = {
  key: { type: "string" },
  pointer: { type: "string" },
  agent: { type: "string" },
  output: { type: "string", short: "o" },
  json: { type: "boolean" },
  help: { type: "boolean", short: "h" },
} as const;

export async function exportCommand(argv: readonly string[]): Promise<number> {
  const values = parseOptions(argv, EXPORT_OPTIONS, EXPORT_USAGE);
  if (values.help) {
    process.stdout.write(`${EXPORT_USAGE}\n`);
    return 0;
  }
  if (values.output === undefined || values.output === "") throw new SessionpinError("usage", "sessionpin export: give the archive to write with -o FILE (`sessionpin export --help` lists the options)");
  const out = resolve(values.output);
  if (existsSync(out) && statSync(out).isDirectory()) throw new SessionpinError("usage", `sessionpin export: -o ${forTerminal(values.output)} is a folder: name the archive file`);
  const env = process.env;
  const cwd = process.cwd();
  const user = (await userPlugins(undefined, env, cwd)).plugins.map((loaded) => loaded.plugin);
  const { plugin, pointer } = await choosePointer(values, user, env, cwd);
  try {
    const result = await exportSession({ pointerPath: pointer, plugin, out, env, sessionpinVersion: version(), now: new Date() });
    const m = result.manifest;
    if (values.json) {
      process.stdout.write(`${jsonForTerminal({ archive: result.archive, bytes: result.bytes, agent: m.agent, session: m.session, cwd: m.cwd, key: result.pointer.key ?? null, pointer, carry: m.carry, files: result.sources.map((s) => ({ path: s.entry, from: s.from, size: s.size })) })}\n`);
    } else {
      for (const source of result.sources) process.stdout.write(`took ${forTerminal(source.from)} (${sizeText(source.size)})\n`);
      const agent = `${m.agent.name}${m.agent.version === null ? "" : ` (${m.agent.version})`}`;
      process.stdout.write(`wrote ${forTerminal(result.archive)} (${sizeText(result.bytes)}): ${forTerminal(agent)} session ${forTerminal(m.session)} from ${forTerminal(m.cwd)}${result.pointer.key === undefined ? "" : `, key ${forTerminal(JSON.stringify(result.pointer.key))}`}\n`);
    }
    return 0;
  } catch (error) {
    if (!(error instanceof CarryError)) throw error;
    process.stderr.write(`sessionpin export: ${forTerminal(error.message)}\n`);
    return error.exitCode;
  }
}

/**
 * The pointer to export and its plugin: `--pointer` (its agent, unless --agent names it), else
 * this folder's pointer of `--agent` with the key, else the one agent that has such a pointer here.
 */
async function choosePointer(
  values: { key?: string; pointer?: string; agent?: string },
  user: readonly AgentPlugin[],
  env: NodeJS.ProcessEnv,
  cwd: string,
): Promise<{ plugin: AgentPlugin; pointer: string }> {
  const named = values.agent === undefined ? undefined : namedPlugin(values.agent, user);
  if (values.pointer !== undefined || named !== undefined) {
    const pointer = pointerPathFor(values.pointer, named?.name ?? "", env, cwd, values.key);
    return { plugin: named ?? (await pointerAgent(pointer, user)), pointer };
  }
  const found = pluginNames(user).map((name) => ({ name, pointer: pointerPathFor(undefined, name, env, cwd, values.key) })).filter((p) => existsSync(p.pointer));
  const key = values.key === undefined ? "" : ` for key ${JSON.stringify(values.key)}`;
  if (found.length === 0) throw new SessionpinError("pointer-invalid", `sessionpin export: no pointer in this folder (${forTerminal(cwd)})${forTerminal(key)}: give --agent, --key or --pointer`);
  if (found.length > 1) throw new SessionpinError("usage", `sessionpin export: pointers of ${found.map((p) => p.name).join(", ")} in this folder${forTerminal(key)}: give --agent`);
  const [only] = found as [{ name: string; pointer: string }];
  return { plugin: namedPlugin(only.name, user), pointer: only.pointer };
}

/** The plugin of the agent a pointer file names; a pointer that cannot be read is exported's to refuse. */
async function pointerAgent(path: string, user: readonly AgentPlugin[]): Promise<AgentPlugin> {
  const read = await readPointer(path);
  if (read.kind !== "ok") {
    const why = read.kind === "missing" ? "no pointer there" : read.kind === "newer" ? `written by a newer sessionpin (version ${read.version})` : `unreadable: ${read.reason}`;
    throw new SessionpinError("pointer-invalid", `sessionpin export: ${forTerminal(path)}: ${forTerminal(why)}`);
  }
  return namedPlugin(read.pointer.agent, user);
}

/** This sessionpin's version, as `--version` prints it. */
export function version(): string {
  const pkg = JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as { version: string };
  return pkg.version;
}
