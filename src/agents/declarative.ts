import type { z } from "zod";
import { hasOption, optionValue, positionals, render, tokenize, withoutOptions, withoutPositionals, type ArgvSpec } from "./argv.js";
import type { DeclarativePluginSchema } from "./user/schema.js";
import type { AgentPlugin, ColdStart } from "./types.js";

/**
 * A plugin as data: the shape user plugins are written in (JSON, `--plugin FILE`, checked by
 * user/schema.ts), and what built-in plugins start from. Regexes are strings; `resume` is an
 * argv template in which `{id}` is the session ID and `{args}` the user's arguments without the
 * prompt. Built-in plugins are typed by the compiler and not parsed at run time: zod alone took
 * 40 ms to load, a third of sessionpin's start-up.
 */
export type DeclarativePlugin = z.input<typeof DeclarativePluginSchema>;

/** A declaration whose fields are each fine but do not fit together. */
export class PluginError extends Error {
  constructor(readonly field: string, readonly reason: string) {
    super(`${field}: ${reason}`);
  }
}

// Grouped, so that an alternation is anchored as a whole: `a|b` with anchors added at its ends
// would take anything that starts with an `a` or ends with a `b`.
const anchored = (source: string): RegExp => new RegExp(`^(?:${source})$`);

/**
 * A built-in plugin's declaration: everything but the `resume` template, as the built-ins write
 * their own warmArgs (each keeps a one-shot run one-shot, which no template can).
 */
export type DeclaredRules = Omit<DeclarativePlugin, "resume">;

/** The plugin a declaration describes, with the defaults filled in; throws a PluginError for a bad one. */
export function definePlugin(declaration: DeclarativePlugin): AgentPlugin {
  const { plugin, withoutPrompt } = compile(declaration);
  return {
    ...plugin,
    warmArgs(args, id) {
      const rest = withoutPrompt(args);
      return declaration.resume.flatMap((word) => (word === "{args}" ? rest : [word.replaceAll("{id}", id)]));
    },
  };
}

/** All of a plugin but its warm start, from a built-in's declaration; the built-in adds warmArgs. */
export function defineRules(declaration: DeclaredRules): Omit<AgentPlugin, "warmArgs"> {
  return compile(declaration).plugin;
}

function compile(declaration: DeclaredRules): { plugin: Omit<AgentPlugin, "warmArgs">; withoutPrompt(args: readonly string[]): string[] } {
  const spec = withDefaults(declaration);
  if (spec.prompt.via === "flag" && spec.prompt.flag === undefined) throw new PluginError("prompt.flag", 'required when prompt.via is "flag"');
  const values = [...spec.valueOptions, ...spec.prompt.dropFlags, ...(spec.prompt.flag ? [spec.prompt.flag] : [])];
  const both = spec.prompt.dropSwitches.find((name) => values.includes(name));
  if (both !== undefined) throw new PluginError("prompt.dropSwitches", `${both} takes a value (valueOptions, dropFlags or prompt.flag): a switch takes none`);
  const argv: ArgvSpec = { values };
  const dropped = [...spec.prompt.dropFlags, ...spec.prompt.dropSwitches];
  const ownMessage = (args: readonly string[]): string | undefined => {
    const tokens = tokenize(args, argv);
    if (spec.prompt.via === "flag") return optionValue(tokens, [spec.prompt.flag ?? ""]) || undefined;
    const words = spec.prompt.via === "positional" ? positionals(tokens) : [];
    return words.length > 0 ? words.join(" ") : undefined;
  };
  const withoutPrompt = (args: readonly string[]): string[] => {
    const tokens = withoutOptions(tokenize(args, argv), dropped);
    return render(spec.prompt.dropPositionals ? withoutPositionals(tokens) : tokens);
  };
  const plugin: Omit<AgentPlugin, "warmArgs"> = {
    name: spec.name,
    names: spec.names,
    grammar: anchored(spec.grammar),
    json: spec.json,
    text: spec.text.map((rule) => ({ ...rule, pattern: new RegExp(rule.pattern) })),
    rejected: spec.rejected.map((source) => new RegExp(source)),
    transient: spec.transient.map((source) => new RegExp(source)),
    ...(spec.saysRejected ? { saysRejected: true } : {}),
    ...(spec.turnFailed !== undefined ? { turnFailed: spec.turnFailed.map((source) => new RegExp(source)) } : {}),
    noConversation(args) {
      const tokens = tokenize(args, argv);
      const option = tokens.find((t) => t.kind === "option" && spec.noConversation.options.includes(t.name));
      if (option?.kind === "option") return `\`${spec.name} ${option.name}\` opens no conversation`;
      // A word after `--` is never a command.
      const first = tokens.find((t) => t.kind !== "option");
      return first?.kind === "positional" && spec.noConversation.commands.includes(first.value) ? `\`${spec.name} ${first.value}\` is a subcommand, not a conversation` : undefined;
    },
    invocation: (args) => ({ message: ownMessage(args), oneShot: hasOption(tokenize(args, argv), spec.prompt.oneShot) }),
    coldArgs(args, prompt): ColdStart {
      if (prompt === undefined || spec.prompt.via === "pty") return { args: [...args], promptVia: "pty" };
      const tokens = tokenize(args, argv);
      // The command already carries its own prompt: keep it, send nothing more.
      if (spec.prompt.via === "positional" ? positionals(tokens).length > 0 : tokens.some((t) => t.kind === "option" && t.name === spec.prompt.flag)) {
        return { args: [...args], promptVia: "none" };
      }
      return { args: spec.prompt.via === "positional" ? [...args, prompt] : [...args, spec.prompt.flag ?? "", prompt], promptVia: "argv" };
    },
  };
  return { plugin, withoutPrompt };
}

function withDefaults(d: DeclaredRules) {
  return {
    ...d,
    json: d.json ?? [],
    text: d.text ?? [],
    valueOptions: d.valueOptions ?? [],
    prompt: { via: d.prompt?.via ?? "pty", flag: d.prompt?.flag, dropFlags: d.prompt?.dropFlags ?? [], dropSwitches: d.prompt?.dropSwitches ?? [], dropPositionals: d.prompt?.dropPositionals ?? false, oneShot: d.prompt?.oneShot ?? [] },
    // Nearly every CLI prints its help or version and exits on these.
    noConversation: { options: d.noConversation?.options ?? ["--version", "--help"], commands: d.noConversation?.commands ?? [] },
    rejected: d.rejected ?? [],
    transient: d.transient ?? [],
  };
}
