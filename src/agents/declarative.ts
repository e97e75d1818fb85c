import { z } from "zod";
import { positionals, render, tokenize, withoutOptions, withoutPositionals, type ArgvSpec } from "./argv.js";
import type { AgentPlugin, ColdStart } from "./types.js";

/**
 * A plugin as data: the shape user plugins are written in (JSON, `--plugin FILE`), and what
 * built-in plugins start from. Regexes are strings; `resume` is an argv template in which
 * `{id}` is the session ID and `{args}` the user's arguments without the prompt.
 */
const state = z.enum(["provisional", "confirmed"]);
const regex = z.string().min(1).superRefine((source, ctx) => {
  try {
    new RegExp(source);
  } catch (error) {
    ctx.addIssue({ code: "custom", message: `not a regular expression: ${(error as Error).message}` });
  }
});

export const DeclarativePluginSchema = z.strictObject({
  name: z.string().regex(/^[a-z0-9][a-z0-9._-]*$/, "lowercase letters, digits, '.', '_' or '-'"),
  names: z.array(z.string().min(1)).min(1),
  /** The whole-ID grammar; anchored for you when it is not. */
  grammar: regex,
  json: z
    .array(z.strictObject({
      name: z.string().min(1),
      field: z.string().min(1),
      when: z.record(z.string(), z.array(z.string())).optional(),
      state,
    }))
    .default([]),
  text: z
    .array(z.strictObject({
      name: z.string().min(1),
      pattern: regex.refine((source) => source.includes("(?<id>"), "needs a named group (?<id>…)"),
      state,
    }))
    .default([]),
  resume: z.array(z.string()).min(1).refine((words) => words.some((w) => w.includes("{id}")), "must contain {id}"),
  /** Options of the agent that take a value (so their values are not read as a prompt). */
  valueOptions: z.array(z.string()).default([]),
  /** How a cold start passes the prompt, and what a warm start removes. */
  prompt: z
    .strictObject({
      via: z.enum(["pty", "flag", "positional"]).default("pty"),
      /** With via "flag": the flag that takes the prompt (added on cold starts if absent). */
      flag: z.string().optional(),
      /** Options removed (with their values) on a warm start. */
      dropFlags: z.array(z.string()).default([]),
      /** Whether positional words are the prompt and dropped on a warm start. */
      dropPositionals: z.boolean().default(false),
    })
    .default({ via: "pty", dropFlags: [], dropPositionals: false }),
  rejected: z.array(regex).default([]),
  transient: z.array(regex).default([]),
}).superRefine((spec, ctx) => {
  if (spec.prompt.via === "flag" && spec.prompt.flag === undefined) {
    ctx.addIssue({ code: "custom", path: ["prompt", "flag"], message: 'required when prompt.via is "flag"' });
  }
});

export type DeclarativePlugin = z.input<typeof DeclarativePluginSchema>;

const anchored = (source: string): RegExp => new RegExp(`${source.startsWith("^") ? "" : "^"}${source}${source.endsWith("$") ? "" : "$"}`);

/** The plugin a declaration describes; throws a zod error for a bad one. */
export function definePlugin(declaration: DeclarativePlugin): AgentPlugin {
  const spec = DeclarativePluginSchema.parse(declaration);
  const argv: ArgvSpec = { values: [...spec.valueOptions, ...spec.prompt.dropFlags, ...(spec.prompt.flag ? [spec.prompt.flag] : [])] };
  const withoutPrompt = (args: readonly string[]): string[] => {
    const tokens = withoutOptions(tokenize(args, argv), spec.prompt.dropFlags);
    return render(spec.prompt.dropPositionals ? withoutPositionals(tokens) : tokens);
  };
  return {
    name: spec.name,
    names: spec.names,
    grammar: anchored(spec.grammar),
    json: spec.json,
    text: spec.text.map((rule) => ({ ...rule, pattern: new RegExp(rule.pattern) })),
    rejected: spec.rejected.map((source) => new RegExp(source)),
    transient: spec.transient.map((source) => new RegExp(source)),
    coldArgs(args, prompt): ColdStart {
      if (prompt === undefined || spec.prompt.via === "pty") return { args: [...args], promptVia: "pty" };
      const tokens = tokenize(args, argv);
      // The command already carries its own prompt: keep it, send nothing more.
      if (spec.prompt.via === "positional" ? positionals(tokens).length > 0 : tokens.some((t) => t.kind === "option" && t.name === spec.prompt.flag)) {
        return { args: [...args], promptVia: "none" };
      }
      return { args: spec.prompt.via === "positional" ? [...args, prompt] : [...args, spec.prompt.flag ?? "", prompt], promptVia: "argv" };
    },
    warmArgs(args, id) {
      const rest = withoutPrompt(args);
      return spec.resume.flatMap((word) => (word === "{args}" ? rest : [word.replaceAll("{id}", id)]));
    },
  };
}
