import { definePlugin, PluginError } from "../declarative.js";
import type { AgentPlugin } from "../types.js";
import { DeclarativePluginSchema } from "./schema.js";
import { budget } from "../../engine/budget.js";

/** A plugin from data read from outside (a JSON file): the plugin, or one line per problem, by field. */
export function parsePlugin(json: unknown): { plugin: AgentPlugin } | { problems: string[] } {
  const parsed = DeclarativePluginSchema.safeParse(json);
  if (!parsed.success) {
    return { problems: parsed.error.issues.map((issue) => `field ${issue.path.join(".") || "(top level)"}: ${issue.message}`) };
  }
  try {
    const plugin = definePlugin(parsed.data);
    // Its text rules run on the thread that forwards keystrokes: each is timed, and cut off when slow.
    for (const rule of plugin.text) budget(rule.pattern);
    return { plugin };
  } catch (error) {
    if (error instanceof PluginError) return { problems: [`field ${error.field}: ${error.reason}`] };
    throw error;
  }
}
