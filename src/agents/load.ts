import { readFileSync, readdirSync } from "node:fs";
import { join, resolve } from "node:path";
import { z } from "zod";
import { definePlugin } from "./declarative.js";
import type { AgentPlugin } from "./types.js";

export interface UserPlugin {
  readonly plugin: AgentPlugin;
  readonly file: string;
}

export interface LoadedPlugins {
  readonly plugins: UserPlugin[];
  /** One line per problem: the file, the field and the reason. */
  readonly problems: string[];
}

/** `${XDG_CONFIG_HOME:-~/.config}/sessionpin/plugins`, where every `*.json` is a user plugin. */
export function pluginDir(env: NodeJS.ProcessEnv, home: string): string {
  const config = env["XDG_CONFIG_HOME"] || join(home, ".config");
  return join(config, "sessionpin", "plugins");
}

/**
 * User plugins from `--plugin` files and the plugin folder. A bad file is reported and skipped:
 * a typo in a plugin must never keep the agent from running.
 */
export function loadUserPlugins(explicit: readonly string[], env: NodeJS.ProcessEnv, home: string, cwd: string): LoadedPlugins {
  const dir = pluginDir(env, home);
  let found: string[] = [];
  try {
    found = readdirSync(dir).filter((name) => name.endsWith(".json")).sort().map((name) => join(dir, name));
  } catch {
    // No plugin folder: nothing to load.
  }
  const plugins: UserPlugin[] = [];
  const problems: string[] = [];
  for (const file of [...explicit.map((path) => resolve(cwd, path)), ...found]) {
    const loaded = loadOne(file);
    if ("problem" in loaded) problems.push(...loaded.problem);
    else plugins.push({ plugin: loaded.plugin, file });
  }
  return { plugins, problems };
}

function loadOne(file: string): { plugin: AgentPlugin } | { problem: string[] } {
  let json: unknown;
  try {
    json = JSON.parse(readFileSync(file, "utf8"));
  } catch (error) {
    const reason = (error as NodeJS.ErrnoException).code ?? `not JSON: ${(error as Error).message}`;
    return { problem: [`plugin ${file}: ${reason}`] };
  }
  try {
    return { plugin: definePlugin(json as Parameters<typeof definePlugin>[0]) };
  } catch (error) {
    if (!(error instanceof z.ZodError)) throw error;
    return {
      problem: error.issues.map((issue) => `plugin ${file}: field ${issue.path.join(".") || "(top level)"}: ${issue.message}`),
    };
  }
}
