import { basename } from "node:path";
import { parseArgs } from "node:util";
import { pluginForCommand, pluginNamed, pluginNames } from "../agents/registry.js";
import { loadUserPlugins, type LoadedPlugins } from "../agents/user/load.js";
import type { AgentPlugin } from "../agents/types.js";
import { reasonOf, SessionpinError } from "../errors.js";
import { readSmallFile } from "../files.js";
import { exactNames, exactVariable } from "./exact-names.js";
import { resolvePointerPath } from "../pointer/path.js";
import { homeOf } from "../home.js";

/** `env`: the variable the option comes from when not SESSIONPIN_<OPTION> (`--dir` of `shim`: SESSIONPIN_SHIM_DIR). */
type Options = Readonly<Record<string, { readonly type: "string" | "boolean"; readonly short?: string; readonly multiple?: boolean; readonly env?: string }>>;
type Values<O extends Options> = {
  -readonly [K in keyof O]?: O[K] extends { multiple: true } ? string[] : O[K]["type"] extends "string" ? string : boolean;
};

/** Options shared by the commands that start or plan an agent. */
export const AGENT_OPTIONS = {
  agent: { type: "string" },
  plugin: { type: "string", multiple: true },
  pointer: { type: "string" },
  key: { type: "string" },
  prompt: { type: "string" },
  "prompt-file": { type: "string" },
  "resume-prompt": { type: "string" },
  "message-id": { type: "string" },
  "aider-restore-history": { type: "boolean" },
  help: { type: "boolean", short: "h" },
} as const satisfies Options;

/** `run`'s options: also read from a running `sessionpin run`'s command line (see running.ts). */
export const RUN_OPTIONS = {
  ...AGENT_OPTIONS,
  log: { type: "string" },
  "fallback-window": { type: "string" },
  "wait-lock": { type: "string" },
  "prompt-quiet": { type: "string" },
  record: { type: "string" },
  "record-input": { type: "boolean" },
  "record-mode": { type: "string" },
  trace: { type: "string" },
  notify: { type: "string", multiple: true },
  pty: { type: "boolean" },
  "no-pty": { type: "boolean" },
  "on-lost": { type: "string" },
} as const;

/**
 * `[options] [--] <agent> [args…]`: sessionpin's options stop at `--` or at the first word that is
 * not an option, so the agent's own flags are never read as ours. `env`: where SESSIONPIN_* come
 * from; another process's own, when its flags are read from outside.
 */
export function parseWithCommand<O extends Options>(
  argv: readonly string[],
  options: O,
  usage: string,
  env: NodeJS.ProcessEnv = process.env,
): { values: Values<O>; command: string[] } {
  const end = commandStart(argv, options);
  const values = parseOptions(argv.slice(0, end), options, usage, env);
  const command = argv.slice(argv[end] === "--" ? end + 1 : end);
  return { values, command };
}

export function parseOptions<O extends Options>(argv: readonly string[], options: O, usage: string, env: NodeJS.ProcessEnv = process.env): Values<O> {
  return parseWithPositionals(argv, options, usage, env, false).values;
}

/** Options anywhere among words (`shim install amp --dir D codex`); `allowed` false refuses any word. */
export function parseWithPositionals<O extends Options>(
  argv: readonly string[],
  options: O,
  usage: string,
  env: NodeJS.ProcessEnv = process.env,
  allowed = true,
): { values: Values<O>; positionals: string[] } {
  let parsed: { values: unknown; positionals: string[]; tokens: ReturnType<typeof parseArgs>["tokens"] };
  try {
    parsed = parseArgs({ args: [...argv], options, allowPositionals: allowed, strict: true, tokens: true });
  } catch (error) {
    throw flagError(error, usage);
  }
  // This process's own command line: keys and message IDs as the bytes they were (exact-names.ts).
  const values = env === process.env ? exactNames(argv, parsed.tokens ?? [], NAMES, parsed.values as Values<O>) : parsed.values as Values<O>;
  return { values: fromEnvironment(values, options, env), positionals: parsed.positionals };
}

/** A flag parseArgs refused, in one line, as every error before the agent starts: the usage is a --help away. */
export function flagError(error: unknown, usage: string): SessionpinError {
  const command = /^Usage: (sessionpin(?: \w+)?)/.exec(usage)?.[1] ?? "sessionpin";
  return new SessionpinError("usage", `sessionpin: ${(error as Error).message.replaceAll("\n", " ")} (\`${command} --help\` lists the options)`);
}

// A flag given on the command line also silences the environment's value for its rival.
const RIVALS: Readonly<Record<string, string>> = { prompt: "prompt-file", "prompt-file": "prompt", pty: "no-pty", "no-pty": "pty" };

/**
 * Every flag not on the command line may come from SESSIONPIN_<FLAG> (`--wait-lock` →
 * SESSIONPIN_WAIT_LOCK), as agentapi reads AGENTAPI_*: start scripts set the environment once.
 * Booleans take 1/true/yes or 0/false/no; repeatable flags, space-separated values.
 */
export function fromEnvironment<O extends Options>(values: Values<O>, options: O, env: NodeJS.ProcessEnv = process.env): Values<O> {
  const filled: Record<string, unknown> = { ...values };
  for (const [name, option] of Object.entries(options)) {
    const rival = RIVALS[name];
    if (name === "help" || filled[name] !== undefined || (rival !== undefined && values[rival] !== undefined)) continue;
    const variable = option.env ?? `SESSIONPIN_${name.toUpperCase().replaceAll("-", "_")}`;
    const text = env[variable];
    // A key or message ID from a template whose variable was unset must not mean "none": every
    // chat thread would share one session, or no message would count as had.
    if (text === "" && NAMES.has(name)) throw new SessionpinError("usage", `sessionpin: ${variable} is set but empty (an unset variable?): give it a value, or unset it`);
    if (text === undefined || text === "") continue;
    if (NAMES.has(name) && env === process.env && text.includes("\uFFFD")) {
      filled[name] = exactVariable(variable, text);
      continue;
    }
    if (option.type === "boolean") {
      if (!/^(1|true|yes|0|false|no)$/i.test(text)) throw new SessionpinError("usage", `sessionpin: ${variable}=${text}: expected 1, true, yes, 0, false or no`);
      filled[name] = /^(1|true|yes)$/i.test(text);
    } else {
      filled[name] = option.multiple ? text.split(/\s+/).filter(Boolean) : text;
    }
  }
  return filled as Values<O>;
}

function commandStart(argv: readonly string[], options: Options): number {
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    if (arg === "--" || !arg.startsWith("-")) return i;
    const name = arg.startsWith("--") ? arg.slice(2) : Object.keys(options).find((key) => options[key]?.short === arg.slice(1));
    if (name !== undefined && !name.includes("=") && options[name]?.type === "string") i++;
  }
  return argv.length;
}

/** The plugin: `--agent NAME`, else the executable's basename; undefined when none fits. */
export function choosePlugin(agentFlag: string | undefined, command: string, user: readonly AgentPlugin[]): AgentPlugin | undefined {
  return agentFlag === undefined ? pluginForCommand(command, user) : namedPlugin(agentFlag, user);
}

/** The plugin `--agent NAME` names, built in or the user's; a name that is neither is a usage error. */
export function namedPlugin(agentFlag: string, user: readonly AgentPlugin[]): AgentPlugin {
  const plugin = pluginNamed(agentFlag, user);
  if (plugin === undefined) {
    throw new SessionpinError("unknown-agent", `sessionpin: --agent ${agentFlag}: no such plugin (known: ${pluginNames(user).join(", ")})`);
  }
  return plugin;
}

/** User plugins from `--plugin` files and the plugin folder, with the problems of bad ones. */
export function userPlugins(files: readonly string[] | undefined, env: NodeJS.ProcessEnv, cwd: string): Promise<LoadedPlugins> {
  return loadUserPlugins(files ?? [], env, homeOf(env), cwd);
}

// A task typed into the agent: far past any a person writes, and not read into memory beyond it.
const MAX_PROMPT_BYTES = 1 << 20;

/** `--prompt` or `--prompt-file` (or their SESSIONPIN_* variables); at most one of the flags. */
export function readPrompt(values: { prompt?: string; "prompt-file"?: string }): string | undefined {
  if (values.prompt !== undefined && values["prompt-file"] !== undefined) {
    throw new SessionpinError("usage", "sessionpin: give --prompt or --prompt-file, not both");
  }
  const file = values["prompt-file"];
  if (file !== undefined) {
    let read: ReturnType<typeof readSmallFile>;
    try {
      read = readSmallFile(file, MAX_PROMPT_BYTES, "a prompt");
    } catch (error) {
      throw new SessionpinError("prompt-file", `sessionpin: --prompt-file ${file}: ${reasonOf(error)}`, { cause: error });
    }
    if ("problem" in read) throw new SessionpinError("prompt-file", `sessionpin: --prompt-file ${file}: ${read.problem}`);
    // A trailing newline inside a bracketed paste would be typed as part of the message.
    return read.text.trimEnd();
  }
  return values.prompt;
}

/** What a run or plan delivers as its prompt, and whether it was read from stdin. */
export interface RunPrompt {
  readonly text: string | undefined;
  /** Taken from stdin, which the agent then does not get. */
  readonly fromStdin: boolean;
}

/**
 * The prompt of a run: `--prompt`, `--prompt-file` (`-`: stdin), or, for a one-shot run whose
 * argv carries no message, what stdin holds when it is no terminal (`echo MSG | sessionpin run
 * -- claude -p`): the message, as the agent would have read it there. Read whole, up to the bound
 * a prompt file has; more is a usage error, before anything starts.
 */
export async function runPrompt(values: { prompt?: string; "prompt-file"?: string }, plugin: AgentPlugin | undefined, args: readonly string[]): Promise<RunPrompt> {
  if (values["prompt-file"] === "-") {
    if (values.prompt !== undefined) readPrompt(values);
    return { text: (await readStdin("--prompt-file -")).trimEnd(), fromStdin: true };
  }
  const text = readPrompt(values);
  const invocation = plugin?.invocation(args);
  if (text !== undefined || process.stdin.isTTY === true || invocation?.oneShot !== true || invocation.message !== undefined) return { text, fromStdin: false };
  const piped = (await readStdin("the message on stdin")).trimEnd();
  return { text: piped === "" ? undefined : piped, fromStdin: true };
}

/** All of stdin, up to MAX_PROMPT_BYTES; `what` names it in the error past that. */
async function readStdin(what: string): Promise<string> {
  const chunks: Buffer[] = [];
  let bytes = 0;
  for await (const chunk of process.stdin as AsyncIterable<Buffer>) {
    bytes += chunk.length;
    if (bytes > MAX_PROMPT_BYTES) {
      process.stdin.destroy();
      throw new SessionpinError("usage", `sessionpin: ${what} is more than ${MAX_PROMPT_BYTES} bytes, more than a prompt may be: nothing started`);
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString("utf8");
}

/** `key`: `--key` or SESSIONPIN_KEY, one pointer per external conversation; checked here. */
export function pointerPathFor(explicit: string | undefined, agent: string, env: NodeJS.ProcessEnv, cwd: string, key?: string): string {
  // `--pointer "$UNSET"`: the default place, taken for a file the user named, would refuse a pointer run put there itself.
  if (explicit === "") throw new SessionpinError("usage", "sessionpin: --pointer: empty path (an unset variable?): name the pointer file, or leave --pointer out");
  return resolvePointerPath({ ...(explicit !== undefined ? { explicit } : {}), env, agent, cwd, home: homeOf(env), key: checkedName("key", key) });
}

const NAME_LIMIT = 1024;
/** Options whose value names something outside: a chat thread, a PR (`key`), a chat message. */
const NAMES = new Set(["key", "message-id"]);

/** `--key` or `--message-id`: a chat thread's, a PR's or a message's ID, kept in the pointer and shown by `sessions`. */
export function checkedName(flag: "key" | "message-id", value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  if (value.trim().length === 0 || value.length > NAME_LIMIT || /\p{Cc}/u.test(value)) {
    throw new SessionpinError("usage", `sessionpin: --${flag} ${JSON.stringify(value.slice(0, 80))}: expected 1 to ${NAME_LIMIT} characters, not only spaces, no control characters`);
  }
  return value;
}

/** The name a pointer is filed under: the plugin's, or the executable's when there is none. */
export function agentName(plugin: AgentPlugin | undefined, command: string): string {
  return plugin?.name ?? basename(command);
}

/** A number of seconds from a flag, as milliseconds. */
export function seconds(flag: string, value: string | undefined, fallback: number): number {
  if (value === undefined) return fallback * 1000;
  const parsed = Number(value);
  if (!Number.isFinite(parsed) || parsed < 0) {
    throw new SessionpinError("usage", `sessionpin: --${flag} ${value}: expected a number of seconds (0 or more)`);
  }
  return parsed * 1000;
}

