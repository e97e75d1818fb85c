import { readFileSync } from "node:fs";
import { delimiter } from "node:path";
import { fileURLToPath } from "node:url";
import { pluginNamed, pluginNames } from "../agents/registry.js";
import { EXIT, SessionpinError } from "../errors.js";
import { homeOf } from "../home.js";
import { AGENTAPI, defaultShimDir, describeShims, installShims, removeShims, shimNames, type ShimResult } from "../shim/folder.js";
import { shimExec } from "../shim/exec.js";
import { shQuote } from "../shim/script.js";
import { parseWithPositionals, userPlugins } from "./options.js";

export const SHIM_USAGE = `Usage: sessionpin shim install|remove|list|env [AGENT…] [--dir DIR] [--json]

Shims are small scripts named like the agents' executables (amp, claude, codex…). With their
folder first on PATH, whatever starts an agent by name (a Coder module's start script, a CI job, an
orchestrator) runs it through sessionpin, and its session resumes after a restart: no command line
changes. A shim runs the real agent, the next one on PATH that is no shim, with the options the
environment gives (SESSIONPIN_*, AGENTAPI_STATE_FILE; SESSIONPIN_KEY for --key). A call that opens
no conversation (--version, --help, \`amp threads list\`, \`claude mcp …\`) goes straight to the agent,
and so does every call when sessionpin cannot run: a shim never stops an agent from starting.

  install [AGENT…]  write the shims of these agents (plugin or executable names; all built-in
                    agents when none is named; \`agentapi\`: a shim that puts the shim folder first on
                    PATH again for the agent agentapi starts, for start scripts that put the agent's
                    own folder first)
  remove [AGENT…]   delete these shims (all when none is named); files that are not shims stay
  list              each shim and the executable it runs now (--json: one array)
  env               print the line that puts the shim folder first on PATH:
                    eval "$(sessionpin shim env)"

Options:
  --dir DIR   the shim folder (env SESSIONPIN_SHIM_DIR; default \${XDG_DATA_HOME:-~/.local/share}/sessionpin/shims)
  --json      one JSON document instead of text
  -h, --help  show this help`;

export const SHIM_OPTIONS = {
  dir: { type: "string", env: "SESSIONPIN_SHIM_DIR" },
  json: { type: "boolean" },
  help: { type: "boolean", short: "h" },
} as const;

export async function shimCommand(argv: readonly string[]): Promise<number> {
  const [action, ...rest] = argv;
  // A shim's own call: its arguments are the agent's, never ours.
  if (action === "exec") {
    const [name, real, ...args] = rest;
    if (name === undefined || real === undefined) throw new SessionpinError("usage", "sessionpin shim exec: expected NAME REAL [args…] (the shim scripts call this)");
    return shimExec(name, real, args);
  }
  const { values, positionals: names } = parseWithPositionals(rest, SHIM_OPTIONS, SHIM_USAGE);
  if (values.help || action === "--help" || action === "-h") {
    process.stdout.write(`${SHIM_USAGE}\n`);
    return EXIT.ok;
  }
  const env = process.env;
  const dir = values.dir ?? defaultShimDir(env, homeOf(env));
  switch (action) {
    case "install":
      return report(installShims(dir, (await executables(names)).map((name) => ({ name, dir, node: process.execPath, main: entry(), version: version() }))), values.json === true, dir);
    case "remove":
      return report(removeShims(dir, names.length > 0 ? await executables(names) : shimNames(dir)), values.json === true, dir);
    case "list": {
      const shims = describeShims(dir, env);
      if (values.json) {
        process.stdout.write(`${JSON.stringify({ dir, first: firstOnPath(dir, env), shims })}\n`);
      } else {
        const lines = shims.map((s) => `${s.name}\t${s.real ?? "(no real executable on PATH: exits 127)"}${s.main === null || s.mainThere ? "" : `\t(sessionpin gone: ${s.main}; runs the agent straight)`}`);
        process.stdout.write(`${dir}${firstOnPath(dir, env) ? "" : " (not first on PATH: eval \"$(sessionpin shim env)\")"}\n${lines.map((line) => `  ${line}\n`).join("")}`);
      }
      return EXIT.ok;
    }
    case "env":
      process.stdout.write(`export PATH=${shQuote(dir)}"\${PATH:+:$PATH}"\n`);
      return EXIT.ok;
    default:
      throw new SessionpinError("usage", `sessionpin shim: expected install, remove, list or env, got ${JSON.stringify(action ?? "")} (\`sessionpin shim --help\`)`);
  }
}

/**
 * The executables the named agents are started by (`cursor` → cursor-agent and agent), as plugins
 * know them, built in or the user's; all built-in agents' when none is named. `agentapi` is its own.
 */
async function executables(names: readonly string[]): Promise<string[]> {
  const user = (await userPlugins(undefined, process.env, process.cwd())).plugins.map((loaded) => loaded.plugin);
  const wanted = names.length > 0 ? names : pluginNames();
  const found = wanted.flatMap((name) => {
    if (name === AGENTAPI) return [AGENTAPI];
    const plugin = pluginNamed(name, user);
    if (plugin === undefined) throw new SessionpinError("unknown-agent", `sessionpin shim: ${JSON.stringify(name)}: no such agent (known: ${[...pluginNames(user), AGENTAPI].join(", ")})`);
    return plugin.names;
  });
  return [...new Set(found)];
}

function report(results: readonly ShimResult[], json: boolean, dir: string): number {
  const problems = results.filter((r) => "problem" in r);
  if (json) {
    process.stdout.write(`${JSON.stringify({ dir, results })}\n`);
  } else {
    for (const r of results) if ("done" in r) process.stdout.write(`${r.done} ${dir}/${r.name}\n`);
    for (const r of problems) process.stderr.write(`sessionpin: ${"problem" in r ? r.problem : ""}\n`);
  }
  return problems.length > 0 ? EXIT.failure : EXIT.ok;
}

/** Whether `dir` comes first on PATH, before any other folder. */
function firstOnPath(dir: string, env: NodeJS.ProcessEnv): boolean {
  return (env["PATH"] ?? "").split(delimiter)[0] === dir;
}

// dist/bin/main.js, the entry beside this bundle: what a shim runs.
function entry(): string {
  return fileURLToPath(new URL("./main.js", import.meta.url));
}

function version(): string {
  return (JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as { version: string }).version;
}
