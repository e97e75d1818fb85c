import { pluginNamed, pluginNames } from "../agents/registry.js";
import type { AgentPlugin } from "../agents/types.js";
import { sourcesOf } from "../engine/source.js";
import { parseOptions, userPlugins } from "./options.js";

export const PLUGINS_USAGE = `Usage: sessionpin plugins [--plugin FILE]… [--json]

Lists every plugin (built-in, and user plugins from --plugin files and
\${XDG_CONFIG_HOME:-~/.config}/sessionpin/plugins/*.json) with the executables it serves, where it
captures the session ID, and how it resumes. Problems with user plugin files go to stderr, one
line each; the file is skipped and the exit code is 1.

Options:
  --plugin FILE     load a user plugin (JSON; repeatable)
  --json            one JSON array, an object per plugin
  -h, --help        show this help

Every option can also come from SESSIONPIN_<OPTION> (--plugin → SESSIONPIN_PLUGIN, space-separated);
the command line wins.`;

export const PLUGINS_OPTIONS = {
  plugin: { type: "string", multiple: true },
  json: { type: "boolean" },
  help: { type: "boolean", short: "h" },
} as const;

interface PluginRow {
  readonly name: string;
  readonly names: readonly string[];
  readonly source: string;
  readonly capture: string[];
  readonly resume: string | null;
  /** What `sessionpin export`/`import` carry of its sessions (docs/carry.md). */
  readonly carry: string;
}

export async function pluginsCommand(argv: readonly string[]): Promise<number> {
  const values = parseOptions(argv, PLUGINS_OPTIONS, PLUGINS_USAGE);
  if (values.help) {
    process.stdout.write(`${PLUGINS_USAGE}\n`);
    return 0;
  }
  const loaded = await userPlugins(values.plugin, process.env, process.cwd());
  for (const problem of loaded.problems) process.stderr.write(`sessionpin: ${problem} (skipped)\n`);
  const user = loaded.plugins.map((u) => u.plugin);
  const rows = pluginNames(user).map((name): PluginRow => {
    const plugin = pluginNamed(name, user) as AgentPlugin;
    const file = loaded.plugins.find((u) => u.plugin === plugin)?.file;
    return { name, names: plugin.names, source: file ?? "built-in", ...describe(plugin), carry: carried(plugin) };
  });
  if (values.json) {
    process.stdout.write(`${JSON.stringify(rows)}\n`);
  } else {
    for (const row of rows) {
      process.stdout.write(
        `${row.name} (${row.names.join(", ")}; ${row.source})\n  capture: ${row.capture.join("; ")}\n  resume:  ${row.resume ?? "none"}\n  carry:   ${row.carry}\n`,
      );
    }
  }
  return loaded.problems.length > 0 ? 1 : 0;
}

/** Capture sources, most trusted first, and the resume command's shape. */
function describe(plugin: AgentPlugin): { capture: string[]; resume: string | null } {
  const noConversation = plugin.unpinned?.([]);
  if (noConversation !== undefined && plugin.json.length === 0 && plugin.text.length === 0) {
    return { capture: [`none: ${noConversation}`], resume: plugin.history ? `adds ${plugin.history.flag} (--aider-restore-history)` : null };
  }
  const capture = sourcesOf(plugin).map((source) => source.says);
  return { capture: capture.length > 0 ? capture : ["none"], resume: `${plugin.names[0]} ${plugin.warmArgs([], "<id>").join(" ")}` };
}

/** What export/import carry of the plugin's sessions, in one line. */
function carried(plugin: AgentPlugin): string {
  const carry = plugin.carry;
  if (carry === undefined) return "not carried: the plugin says nothing about carrying its sessions";
  return carry.kind === "none" ? carry.says : `${carry.kind === "pointer" ? "pointer only" : carry.kind === "command" ? "carried by the agent" : "carried"}: ${carry.says}`;
}
