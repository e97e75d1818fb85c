import type { CallerSession } from "./types.js";

/**
 * An agent's argv as options and positionals, so plugins can drop a prompt flag or insert a
 * resume flag without knowing every option the agent has. Pure.
 */
export interface ArgvSpec {
  /** Options that take a value: `--opt value` or `--opt=value`. */
  readonly values: readonly string[];
  /** Options whose value is optional: the next word is theirs when it is not an option. */
  readonly optionalValues?: readonly string[];
  /**
   * Options (also in `values`) that take every word up to the next option, as commander's
   * `<dirs...>` and yargs' `[array]` do (Claude's `--add-dir a b`, Qwen's `--allowed-tools`).
   */
  readonly variadic?: readonly string[];
}

export type Token =
  | { readonly kind: "option"; readonly name: string; readonly value: string | undefined; readonly words: readonly string[] }
  | { readonly kind: "positional"; readonly value: string }
  | { readonly kind: "separator" };

export function tokenize(args: readonly string[], spec: ArgvSpec): Token[] {
  const tokens: Token[] = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] as string;
    const next = args[i + 1];
    if (arg === "--") {
      tokens.push({ kind: "separator" }, ...args.slice(i + 1).map((value) => ({ kind: "positional", value }) as const));
      break;
    }
    if (!arg.startsWith("-") || arg === "-") {
      const last = tokens.at(-1);
      if (last?.kind === "option" && spec.variadic?.includes(last.name)) tokens[tokens.length - 1] = { ...last, words: [...last.words, arg] };
      else tokens.push({ kind: "positional", value: arg });
      continue;
    }
    const eq = arg.startsWith("--") ? arg.indexOf("=") : -1;
    const name = eq > 0 ? arg.slice(0, eq) : arg;
    if (eq > 0) {
      tokens.push({ kind: "option", name, value: arg.slice(eq + 1), words: [arg] });
    } else if (spec.values.includes(name) && next !== undefined) {
      tokens.push({ kind: "option", name, value: next, words: [arg, next] });
      i++;
    } else if (spec.optionalValues?.includes(name) && next !== undefined && !next.startsWith("-")) {
      tokens.push({ kind: "option", name, value: next, words: [arg, next] });
      i++;
    } else {
      tokens.push({ kind: "option", name, value: undefined, words: [arg] });
    }
  }
  return tokens;
}

export function render(tokens: readonly Token[]): string[] {
  return tokens.flatMap((token) =>
    token.kind === "option" ? [...token.words] : token.kind === "positional" ? [token.value] : ["--"],
  );
}

export function hasOption(tokens: readonly Token[], names: readonly string[]): boolean {
  return tokens.some((token) => token.kind === "option" && names.includes(token.name));
}

export function optionValue(tokens: readonly Token[], names: readonly string[]): string | undefined {
  for (const token of tokens) if (token.kind === "option" && names.includes(token.name)) return token.value;
  return undefined;
}

export function withoutOptions(tokens: readonly Token[], names: readonly string[]): Token[] {
  return tokens.filter((token) => token.kind !== "option" || !names.includes(token.name));
}

export function positionals(tokens: readonly Token[]): string[] {
  return tokens.flatMap((token) => (token.kind === "positional" ? [token.value] : []));
}

export function withoutPositionals(tokens: readonly Token[]): Token[] {
  return tokens.filter((token) => token.kind === "option");
}

/** Options that open a session the caller chose, for AgentPlugin.callerSession. */
export interface SessionPicks {
  /** Options whose value is the session's ID when the grammar takes it whole (`--resume <id>`). */
  readonly named: readonly string[];
  /** Options that pick a session without naming it (`--continue`, a picker). */
  readonly other?: readonly string[];
  /** Options that copy the picked session to a new one, which the argv does not name. */
  readonly fork?: readonly string[];
}

/**
 * The session the caller's argv opens: the first of `picks.named` in argv, else of
 * `picks.other`. Its value is the ID only when `grammar` takes it whole (`--resume 9ca906aa-…`,
 * not `-r latest`, a name or a prefix), and never with a fork.
 */
export function callerPick(tokens: readonly Token[], picks: SessionPicks, grammar: RegExp): CallerSession | undefined {
  const first = (names: readonly string[] | undefined) => tokens.find((t) => t.kind === "option" && (names ?? []).includes(t.name));
  const token = first(picks.named) ?? first(picks.other);
  if (token?.kind !== "option") return undefined;
  const fork = first(picks.fork);
  const via = [...token.words, ...(fork?.kind === "option" ? fork.words : [])].join(" ");
  const id = fork === undefined && picks.named.includes(token.name) ? token.value : undefined;
  return id !== undefined && grammar.test(id) ? { id, via } : { via };
}
