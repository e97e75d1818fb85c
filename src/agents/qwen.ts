import { join } from "node:path";
import { callerPick, hasOption, optionValue, positionals, render, tokenize, withoutOptions, withoutPositionals, type ArgvSpec, type Token } from "./argv.js";
import { defineRules } from "./declarative.js";
import type { AgentPlugin, RunContext } from "./types.js";
import { STREAM_INIT, STREAM_MESSAGE, STREAM_RESULT, UUID, UUID_ONLY, uuidEntry } from "./grammar.js";

/**
 * Qwen Code (`@qwen-code/qwen-code`). Every fact below was seen with 0.24.4 (its `--help`, its
 * bundled source, and runs here against a local Chat Completions API, HOME in a temp folder).
 */


// yargs `[array]` options of 0.24.4's `--help`: they take every word up to the next option.
const VARIADIC = [
  "--fallback-model", "--allowed-mcp-server-names", "--allowed-tools", "-e", "--extensions", "--include-directories",
  "--add-dir", "--core-tools", "--exclude-tools", "--disabled-slash-commands",
];
// The prompt: `-p` runs it once and exits, `-i` opens the TUI and runs it first. A positional
// query is one-shot too in 0.24.4 ("Defaults to one-shot; use -i/--prompt-interactive").
// yargs gives none of them the next word when it starts with `-`: `qwen -p --output-format
// stream-json` reads its prompt from stdin (0.24.4, seen: `qwen -p --resume <id>` resumes <id>).
const PROMPT = ["-p", "--prompt", "-i", "--prompt-interactive"];
// Options that pick the session; a warm start replaces them with `--resume <id>`. With
// --fork-session, 0.24.4 gives the fork a random ID of its own (not --session-id's).
const SESSION = ["-r", "--resume", "-c", "--continue", "--session-id", "--fork-session"];
const ARGV: ArgvSpec = {
  variadic: VARIADIC,
  values: [
    ...VARIADIC, "--telemetry-target", "--telemetry-otlp-endpoint", "--telemetry-otlp-protocol",
    "--telemetry-outfile", "--proxy", "-m", "--model", "--system-prompt", "--append-system-prompt", "--output-style",
    "--sandbox-image", "--approval-mode", "--channel", "--mcp-config", "--openai-logging-dir", "--openai-api-key",
    "--openai-base-url", "--input-format", "-o", "--output-format", "--json-fd", "--json-file", "--json-schema",
    "--input-file", "--session-id", "--max-session-turns", "--max-wall-time", "--max-tool-calls",
    "--max-subagent-depth", "--auth-type",
  ],
  // `--resume` without an ID opens a picker; `--worktree` without a slug makes one up.
  optionalValues: [...PROMPT, "-r", "--resume", "--worktree"],
};
// 0.24.4's commands (`--help`) but `serve`, a daemon whose clients own their sessions.
const SUBCOMMANDS = new Set(["auth", "board", "channel", "extensions", "hooks", "mcp", "review", "sandbox", "sessions", "update"]);

const tokens = (args: readonly string[]): Token[] => tokenize(args, ARGV);

/** Whether this invocation runs one prompt and exits (`-p`, a positional query, or JSON output). */
function oneShot(parsed: readonly Token[]): boolean {
  const format = optionValue(parsed, ["-o", "--output-format"]);
  return hasOption(parsed, ["-p", "--prompt"]) || positionals(parsed).length > 0 || format === "json" || format === "stream-json";
}

/**
 * Where sessions live (0.24.4's Storage): `$QWEN_RUNTIME_DIR`, else `$QWEN_HOME`, else ~/.qwen;
 * then `projects/<cwd with every non-alphanumeric character made "-">/chats/<uuid>.jsonl`. (A
 * `runtimeOutputDir` in its settings.json moves it too; not read here: such runs are captured
 * from the output and `--session-id` only.)
 */
const runtimeDir = (context: RunContext): string =>
  context.env["QWEN_RUNTIME_DIR"] || context.env["QWEN_HOME"] || join(context.home, ".qwen");

const data = defineRules({
  name: "qwen",
  names: ["qwen"],
  grammar: UUID,
  // `qwen -p MSG --output-format stream-json` (0.24.4) has Claude's shape: line 1 is
  // {"type":"system","subtype":"init","session_id":…}, then `stream_event`, `assistant` and a
  // `result` line, all with the same session_id. A resume whose API call failed still prints
  // init and an `assistant` line (its text `[API Error: …]`) and ends in a `result` with
  // `subtype: "error_during_execution"`: only `success` confirms.
  json: [
    STREAM_INIT,
    STREAM_MESSAGE,
    STREAM_RESULT,
  ],
  text: [
    // The TUI on SIGINT (0.24.4, only once this run had a turn), at column 0, two rows. Not
    // always: qwen relaunches itself twice and SIGINT to the group reaches all three; in about
    // 1 run in 3 here the screen ended at `Press Ctrl+C again to exit.` without it.
    //   To continue this session, run
    //   qwen --resume 33333333-3333-4444-8555-666666666666
    // After /quit the summary puts both on one row, which 67 columns wrap. Anchored on the
    // label: chat text quoting a `qwen --resume …` command is not taken.
    { name: "exit-hint", pattern: `To continue this session, run\\s+qwen --resume (?<id>${UUID})`, state: "provisional" },
  ],
  // 0.24.4, headless and TUI alike, on stderr before anything else, then exit 1:
  //   No saved session found with ID <id>. Run `qwen --resume` without an ID to choose from existing sessions.
  rejected: ["No saved session found with ID"],
  saysRejected: true,
  transient: [
    // The model API unreachable or refusing, 0.24.4: `-p` prints `[API Error: 401 <message>]` at
    // once, `[API Error: Connection error. (cause: fetch failed)]` at once for a port fetch will
    // not dial, and `[API Error: Connection error. (cause: connect ECONNREFUSED 127.0.0.1:<port>)]`
    // for a closed port after ~100 s of retries (5 s, 11 s, … backoff); each exits 1. The TUI
    // shows `✕ [API Error: …]` and stays open. None says anything about the session.
    "\\[API Error: ",
    // A resumed `-p ""` with nothing on stdin (see warmArgs; sessionpin no longer starts one)
    // prints this and exits 1: the ID was fine. (Qwen inherited the wording, "gemini" included, from Gemini CLI.)
    "No input provided via stdin",
  ],
});

export const qwen: AgentPlugin = {
  ...data,

  // `-h, --help`, `-v, --version` and `-l, --list-extensions` ("List all available extensions
  // and exit"), 0.24.4 `--help`.
  noConversation(args) {
    const parsed = tokens(args);
    const first = positionals(parsed)[0];
    if (first !== undefined && SUBCOMMANDS.has(first)) return `\`qwen ${first}\` is a subcommand, not a conversation`;
    return hasOption(parsed, ["-h", "--help", "-v", "--version", "-l", "--list-extensions"]) ? "`qwen --help/--version/--list-extensions` opens no conversation" : undefined;
  },
  unpinned(args) {
    const parsed = tokens(args);
    if (positionals(parsed)[0] === "serve") return "`qwen serve` runs a daemon for clients, which own their sessions";
    if (hasOption(parsed, ["--acp"])) return "`qwen --acp` serves a client over stdio; the client names its sessions";
    if (hasOption(parsed, ["--no-chat-recording"]) || args.includes("--chat-recording=false")) {
      return "--no-chat-recording: Qwen saves no session that could be resumed";
    }
    return undefined;
  },
  // `-r, --resume` takes a session's ID (none: a picker), `-c, --continue` the folder's latest
  // (0.24.4 `--help`); with --fork-session the session is copied to a new, random ID.
  callerSession: (args) => callerPick(tokens(args), { named: ["-r", "--resume"], other: ["-c", "--continue"], fork: ["--fork-session"] }, data.grammar),

  invocation(args) {
    const parsed = tokens(args);
    const words = positionals(parsed);
    return { message: optionValue(parsed, PROMPT) || (words.length > 0 ? words.join(" ") : undefined), oneShot: oneShot(parsed) };
  },
  // The command's own prompt wins. One-shot runs (`-p`, JSON output) take it as `-p`; the TUI as
  // `-i`, which 0.24.4 runs as soon as it is ready (typed text arriving before its first frame
  // is lost: it echoes, then drops it).
  coldArgs(args, prompt) {
    if (prompt === undefined) return { args: [...args], promptVia: "pty" };
    const parsed = tokens(args);
    const own = optionValue(parsed, PROMPT);
    if (positionals(parsed).length > 0 || (own !== undefined && own !== "")) return { args: [...args], promptVia: "none" };
    const flag = oneShot(parsed) ? "-p" : "-i";
    return { args: [...render(withoutOptions(parsed, PROMPT)), flag, prompt], promptVia: "argv" };
  },

  // `--session-id <uuid>` (0.24.4) names the new session, so no parsing is needed. Not next to
  // a choice of session of the command's own.
  chooseId(args, fresh) {
    const parsed = tokens(args);
    const own = optionValue(parsed, ["--session-id"]);
    if (own !== undefined) return UUID_ONLY.test(own) ? { id: own, args: [...args] } : undefined;
    if (hasOption(parsed, SESSION)) return undefined;
    return { id: fresh, args: ["--session-id", fresh, ...args] };
  },

  // `qwen [options] --resume <id>`, without the prompt and any other choice of session. The task
  // ran once already and is not sent again. A one-shot run keeps its mode as `-p ""`, which coldArgs
  // fills with the run's new message or --resume-prompt; with neither, sessionpin does not start
  // it (a repeat). Left empty, 0.24.4 would take it as none: in a PTY it opens the TUI on the
  // resumed session (as `-o stream-json` alone does); with stdin not a terminal it says
  // `No input provided via stdin` and exits 1 (transient).
  warmArgs(args, id) {
    const parsed = tokens(args);
    const rest = render(withoutPositionals(withoutOptions(parsed, [...PROMPT, ...SESSION])));
    return [...rest, ...(oneShot(parsed) ? ["-p", ""] : []), "--resume", id];
  },

  store: {
    rule: "chats",
    where: (context) => [{ dir: join(runtimeDir(context), "projects", context.cwd.replace(/[^a-zA-Z0-9]/g, "-"), "chats"), depth: 0 }],
    // `chats/<uuid>.jsonl`, written at the first turn. The `<uuid>.runtime.json` next to it
    // (pid, session_id, work_dir) exists from start-up, before anything can be resumed: not taken.
    name: uuidEntry(".jsonl"),
    entryName: (id) => `${id}.jsonl`,
    wholeId: true,
    // Folder names are not unique (`/a-b` and `/a/b` share one); every line of the file names
    // its cwd: `{"uuid":…,"sessionId":…,"type":"user","cwd":"/work/app",…}`.
    belongs: (head, context) => head.includes(`"cwd":${JSON.stringify(context.cwd)}`),
  },
  // 0.24.4 refuses a chats file put under the new folder's projects/<folder>/chats whose lines
  // still name the old folder (`No saved session found with ID …`: it keeps only the records of
  // its own cwd), and resumes it once `"cwd":"/old"` names the new one (test/interop/carry.interop.ts).
  carry: {
    kind: "files",
    says: "projects/<folder>/chats/<id>.jsonl, filed under the new folder; the folder's path in it rewritten (0.24.4 refuses it otherwise)",
    root: (context) => join(runtimeDir(context), "projects", context.cwd.replace(/[^a-zA-Z0-9]/g, "-"), "chats"),
    files: (id) => [{ path: `${id}.jsonl`, transcript: true }],
    owns: (path, id) => path === `${id}.jsonl`,
    folderNames: (cwd) => [cwd],
  },
};
