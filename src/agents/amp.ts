import { hasOption, optionValue, positionals, render, tokenize, withoutOptions, withoutPositionals, type ArgvSpec } from "./argv.js";
import type { AgentPlugin } from "./types.js";
import { STREAM_INIT, STREAM_MESSAGE, UUID } from "./grammar.js";

/**
 * Sourcegraph Amp. Threads live on Amp's server; `amp threads continue <id>` resumes one.
 * Facts from Amp's own `--help` (0.0.1790142911) and ../shared/agents.md.
 */

const THREAD_ID = `T-${UUID}`;
const GRAMMAR = new RegExp(`^${THREAD_ID}$`);

// Global options that take a value; Amp's parser accepts them before or after a command.
// `-x/--execute [message]` reads its message from stdin when none follows.
const EXECUTE = ["-x", "--execute"];
const ARGV: ArgvSpec = {
  values: [
    "--visibility", "--settings-file", "--log-level", "--log-file", "--mcp-config", "-m", "--mode",
    "--features", "--executor", "--runner-dir", "--attach", "--orb-size", "--title", "-l", "--label",
  ],
  optionalValues: [...EXECUTE, "--project", "--plugin-ready-timeout"],
};

interface AmpArgs {
  /** Every option with its value, in order, except -x/--execute and its message. */
  readonly options: string[];
  readonly execute: boolean;
  readonly message: string | undefined;
  /** Words that are no option's value: a subcommand such as `threads list`. */
  readonly command: string[];
  readonly help: boolean;
  readonly noTui: boolean;
  /** `threads continue --last`: this terminal's last thread. */
  readonly last: boolean;
}

function parseArgs(args: readonly string[]): AmpArgs {
  const tokens = tokenize(args, ARGV);
  return {
    options: render(withoutPositionals(withoutOptions(tokens, EXECUTE))),
    execute: hasOption(tokens, EXECUTE),
    message: optionValue(tokens, EXECUTE),
    command: positionals(tokens),
    help: hasOption(tokens, ["-h", "--help", "-V", "--version", "-v"]),
    noTui: hasOption(tokens, ["--no-tui"]),
    last: hasOption(tokens, ["--last"]),
  };
}

// A thread given as its URL (`https://ampcode.com/threads/T-…`, or under AMP_URL).
const THREAD_URL = new RegExp(`^\\w+://.*/threads/(${THREAD_ID})$`);

/**
 * The threads a command continues, when it continues one: `threads continue [threads...]`
 * (aliases `t`, `thread`, `c`; none: a picker, or `--last`) and `last` (alias `l`), which
 * continues this terminal's last thread (0.0.1790142911 `--help`).
 */
function continued(command: readonly string[]): readonly string[] | undefined {
  const [first, second, ...threads] = command;
  if (command.length === 1 && (first === "last" || first === "l")) return [];
  const continues = ["threads", "thread", "t"].includes(first ?? "") && (second === "continue" || second === "c");
  return continues ? threads : undefined;
}

export const amp: AgentPlugin = {
  name: "amp",
  names: ["amp"],
  grammar: GRAMMAR,
  // `amp -x … --stream-json` is Claude-Code-compatible stream JSON: every line carries the thread
  // in `session_id`; the thread is only known to have run a turn once `result` arrives.
  json: [
    STREAM_INIT,
    STREAM_MESSAGE,
    { name: "result", field: "session_id", when: { type: ["result"] }, state: "confirmed" },
  ],
  // Interactive Amp never prints its thread ID, so there is nothing to read off the screen.
  text: [],
  rejected: [/does not exist/i, /Thread not found/i],
  // Failures that say nothing about the thread: the pointer stays. 0.0.1790142911 prints
  // `Cannot reach Amp servers` when AMP_URL refuses connections, `Couldn't connect to the Amp
  // server at <url>` from the TUI and `-x` on a cold start, and `Unexpected error inside Amp CLI.`
  // when the server answers something it cannot read (all seen against a local AMP_URL); a lost
  // turn socket says `WebSocket connection failed` (reported by users; needs Amp's server).
  transient: [
    /Cannot reach Amp servers/i, /Are you offline\?/i, /No API key found/i, /Couldn't connect to the Amp server/i,
    /Unexpected error inside Amp CLI/i, /WebSocket connection failed/i,
  ],
  // Amp takes no positional prompt: every word is a command. `-h/--help`, `-V/--version` and
  // `-v` ("Alias for --version"), and the `version` command (0.0.1790142911 `--help`).
  noConversation(args) {
    const { command, help } = parseArgs(args);
    if (help) return "`amp --help/--version` opens no conversation";
    if (command.length === 0 || continued(command) !== undefined) return undefined;
    return `\`amp ${command.join(" ")}\` is a subcommand, not a conversation`;
  },
  // `--no-tui` serves threads that ampcode.com creates for this folder (0.0.1790142911 `--help`).
  unpinned: (args) => (parseArgs(args).noTui ? "`amp --no-tui` serves threads created on ampcode.com; none is this run's to pin" : undefined),
  callerSession(args) {
    const { command, last } = parseArgs(args);
    const threads = continued(command);
    if (threads === undefined) return undefined;
    const via = [...command, ...(last ? ["--last"] : [])].join(" ");
    // Each thread is an ID or a URL; the first is shown in the foreground.
    const id = threads[0]?.replace(THREAD_URL, "$1");
    return id !== undefined && GRAMMAR.test(id) ? { id, via } : { via };
  },
  upfront: {
    rule: "threads-new",
    applies: (args) => !parseArgs(args).execute,
    argv: (args) => [...parseArgs(args).options, "threads", "new"],
    // Current builds print the thread URL (`https://ampcode.com/threads/T-…`, or under AMP_URL);
    // older ones printed the bare ID.
    parse(output) {
      const match = new RegExp(`(?:^|/threads/)(${THREAD_ID})\\s*$`, "m").exec(output);
      return match?.[1];
    },
  },
  invocation(args) {
    const { execute, message } = parseArgs(args);
    return { message: message === "" ? undefined : message, oneShot: execute };
  },
  // `-x MSG` goes after the command: `amp [options] threads continue <id> -x MSG` is how
  // 0.0.1790142911 continues a thread headless.
  coldArgs(args, prompt) {
    const parsed = parseArgs(args);
    if (!parsed.execute) return { args: [...args], promptVia: "pty" };
    if (parsed.message !== undefined || prompt === undefined) return { args: [...args], promptVia: "none" };
    return { args: [...parsed.options, ...parsed.command, "-x", prompt], promptVia: "argv" };
  },
  // Execute mode stays: without `-x`, Amp refuses `--stream-json` (`requires --execute mode`,
  // exit 1) and opens its TUI otherwise. The bare `-x` is the slot coldArgs fills.
  warmArgs(args, id) {
    const { options, execute } = parseArgs(args);
    return [...options, "threads", "continue", id, ...(execute ? ["-x"] : [])];
  },
  // Threads live on Amp's server: nothing of Amp's is on disk to carry. The pointer alone names the
  // thread, which any machine signed in to the same Amp account continues (`threads continue`);
  // not provable offline (every thread operation needs Amp's server).
  carry: { kind: "pointer", says: "threads live on Amp's server; the pointer travels alone, and resumes the thread where the same Amp account is signed in" },
};
