import { readdirSync } from "node:fs";
import { isAbsolute, join, resolve } from "node:path";
import type { AgentPlugin } from "../types.js";
import { errnoCode, messageOf, reasonOf } from "../../errors.js";
import { readSmallFile } from "../../files.js";

export interface UserPlugin {
  readonly plugin: AgentPlugin;
  readonly file: string;
}

export interface LoadedPlugins {
  readonly plugins: UserPlugin[];
  /** One line per problem: the file, the field and the reason. */
  readonly problems: string[];
}

/** `${XDG_CONFIG_HOME:-~/.config}/sessionpin/plugins`, where every `*.json` is a user plugin; none without a home. */
export function pluginDir(env: NodeJS.ProcessEnv, home: string | undefined): string | undefined {
  const xdg = env["XDG_CONFIG_HOME"];
  // As for XDG_STATE_HOME (pointer/path.ts): a relative value is invalid and ignored.
  const config = xdg && isAbsolute(xdg) ? xdg : home === undefined ? undefined : join(home, ".config");
  return config === undefined ? undefined : join(config, "sessionpin", "plugins");
}

/**
 * User plugins from `--plugin` files and the plugin folder. A bad file is reported and skipped:
 * a typo in a plugin must never keep the agent from running.
 */
export async function loadUserPlugins(explicit: readonly string[], env: NodeJS.ProcessEnv, home: string | undefined, cwd: string): Promise<LoadedPlugins> {
  const dir = pluginDir(env, home);
  let found: string[] = [];
  try {
    if (dir !== undefined) found = readdirSync(dir).filter((name) => name.endsWith(".json")).sort().map((name) => join(dir, name));
  } catch {
    // No plugin folder: nothing to load.
  }
  const files = [...explicit.map((path) => resolve(cwd, path)), ...found];
  const plugins: UserPlugin[] = [];
  const problems: string[] = [];
  if (files.length === 0) return { plugins, problems };
  // Loaded only when there is a file to check: zod is most of sessionpin's start-up time.
  const { parsePlugin } = await import("./parse.js");
  for (const file of files) {
    const loaded = loadOne(file, parsePlugin);
    if ("problem" in loaded) problems.push(...loaded.problem);
    else plugins.push({ plugin: loaded.plugin, file });
  }
  return { plugins, problems };
}

/** A plugin is a few kilobytes; anything past this is not one (and is not read into memory). */
const MAX_PLUGIN_BYTES = 1 << 20;

function loadOne(file: string, parsePlugin: (json: unknown) => { plugin: AgentPlugin } | { problems: string[] }): { plugin: AgentPlugin } | { problem: string[] } {
  let json: unknown;
  try {
    const read = readSmallFile(file, MAX_PLUGIN_BYTES, "a plugin");
    if ("problem" in read) return { problem: [`plugin ${file}: ${read.problem}`] };
    // Editors on some systems save UTF-8 with a byte-order mark: not content.
    json = JSON.parse(read.text.replace(/^\uFEFF/, ""));
  } catch (error) {
    const reason = errnoCode(error) !== undefined ? reasonOf(error) : `not JSON: ${messageOf(error)}`;
    return { problem: [`plugin ${file}: ${reason}`] };
  }
  const parsed = parsePlugin(json);
  return "plugin" in parsed ? parsed : { problem: parsed.problems.map((problem) => `plugin ${file}: ${problem}`) };
}
