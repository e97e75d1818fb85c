import { basename } from "node:path";
import { amp } from "./amp.js";
import type { AgentPlugin } from "./types.js";

export type AgentId = "amp";

/** Every built-in plugin; the compiler checks that each AgentId has one. */
export const agents = { amp } satisfies Record<AgentId, AgentPlugin>;

const builtIn: readonly AgentPlugin[] = Object.values(agents);

/** The plugin named `name` (`--agent NAME`), matched by plugin name or executable name. */
export function pluginNamed(name: string): AgentPlugin | undefined {
  return builtIn.find((plugin) => plugin.name === name || plugin.names.includes(name));
}

/** The plugin for an executable, chosen by its basename. */
export function pluginForCommand(command: string): AgentPlugin | undefined {
  const name = basename(command);
  return builtIn.find((plugin) => plugin.names.includes(name));
}

export function pluginNames(): string[] {
  return builtIn.map((plugin) => plugin.name);
}
