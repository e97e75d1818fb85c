import { basename } from "node:path";
import { aider } from "./aider.js";
import { amp } from "./amp.js";
import { auggie } from "./auggie.js";
import { claude } from "./claude.js";
import { codex } from "./codex.js";
import { copilot } from "./copilot.js";
import { cursor } from "./cursor.js";
import { gemini } from "./gemini.js";
import { goose } from "./goose.js";
import { kiro } from "./kiro.js";
import { omp } from "./omp.js";
import { opencode } from "./opencode.js";
import { pi } from "./pi.js";
import { q } from "./q.js";
import { qwen } from "./qwen.js";
import type { AgentPlugin } from "./types.js";

export type AgentId = "aider" | "amp" | "auggie" | "claude" | "codex" | "copilot" | "cursor" | "gemini" | "goose" | "kiro" | "omp" | "opencode" | "pi" | "q" | "qwen";

/** Every built-in plugin; the compiler checks that each AgentId has one. */
export const agents = { aider, amp, auggie, claude, codex, copilot, cursor, gemini, goose, kiro, omp, opencode, pi, q, qwen } satisfies Record<AgentId, AgentPlugin>;

const builtIn: readonly AgentPlugin[] = Object.values(agents);

/** User plugins first, so a user can replace a built-in one by using its name. */
function all(user: readonly AgentPlugin[]): readonly AgentPlugin[] {
  return [...user, ...builtIn.filter((plugin) => !user.some((u) => u.name === plugin.name))];
}

/**
 * The plugin named `name` (`--agent NAME`): by plugin name, else by executable name. A name wins
 * over an executable: `--agent claude` is the plugin called claude even where a user plugin lists
 * `claude` among its executables.
 */
export function pluginNamed(name: string, user: readonly AgentPlugin[] = []): AgentPlugin | undefined {
  const plugins = all(user);
  return plugins.find((plugin) => plugin.name === name) ?? plugins.find((plugin) => plugin.names.includes(name));
}

/** The plugin for an executable, chosen by its basename. */
export function pluginForCommand(command: string, user: readonly AgentPlugin[] = []): AgentPlugin | undefined {
  const name = basename(command);
  return all(user).find((plugin) => plugin.names.includes(name));
}

export function pluginNames(user: readonly AgentPlugin[] = []): string[] {
  return all(user).map((plugin) => plugin.name);
}
