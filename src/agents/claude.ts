import { join } from "node:path";
import { callerPick, hasOption, optionValue, positionals, render, tokenize, withoutOptions, withoutPositionals, type ArgvSpec, type Token } from "./argv.js";
import { defineRules } from "./declarative.js";
import type { AgentPlugin, RunContext } from "./types.js";
import { filesBelow } from "../state/carry-files.js";
import { STREAM_INIT, STREAM_MESSAGE, STREAM_RESULT, UUID, uuidEntry } from "./grammar.js";

/**
 * Claude Code. Facts from ../shared/agents.md, Claude Code 2.1.197's and 2.1.330's own `--help`,
 * and 2.1.197 run here against a local Messages API (exit screen, /status, error texts).
 */


// Options that take a value (`--help` of 2.1.197 and 2.1.330), so their values are never read as the prompt.
const VARIADIC = ["--add-dir", "--allowedTools", "--allowed-tools", "--disallowedTools", "--disallowed-tools", "--betas", "--file", "--mcp-config", "--tools"];
const ARGV: ArgvSpec = {
  variadic: VARIADIC,
  values: [
    ...VARIADIC, "--agent", "--agents", "--append-system-prompt", "--append-system-prompt-file", "--autocompact", "--debug-file",
    "--effort", "--environment", "--fallback-model", "--input-format", "--json-schema", "--max-budget-usd", "--max-turns", "--model",
    "-n", "--name", "--output-format", "--permission-mode", "--permission-prompts", "--plugin-dir", "--plugin-url",
    "--remote-control-session-name-prefix", "--session-id", "--setting-sources", "--settings", "--system-prompt",
    "--system-prompt-file", "--system-prompt-snapshot",
  ],
  // Commander gives these the next word when it is no option: `claude -w fix-login`.
  optionalValues: [
    "-r", "--resume", "--from-pr", "-d", "--debug", "--prompt-suggestions", "--remote-control", "-w", "--worktree", "--cloud", "--teleport",
  ],
};
// Options that already say which conversation to open; the user's choice stands on a cold start.
const RESUMING = ["-r", "--resume", "-c", "--continue", "--from-pr"];
// 2.1.330's commands that open no conversation (`attach` opens a background one: see unpinned).
// `project` is an older build's; in 2.1.330 it would be a one-word prompt, which then goes unpinned.
const SUBCOMMANDS = new Set([
  "agents", "auth", "auto-mode", "doctor", "gateway", "import", "install", "kill", "logs", "mcp", "plugin", "plugins", "project",
  "purge", "respawn", "rm", "setup-token", "stop", "ultrareview", "update", "upgrade",
]);
// Conversations that run somewhere sessionpin does not see (2.1.330 `--help`): a background
// session (`--bg` returns at once; `claude attach` shows one, its own process keeps it), a cloud
// session, or the Claude Desktop app.
const ELSEWHERE: ReadonlyArray<readonly [readonly string[], string]> = [
  [["--bg", "--background"], "runs in the background, in a process of its own"],
  [["--cloud", "--environment"], "runs in the cloud"],
  [["--desktop"], "opens in the Claude Desktop app"],
];

const tokens = (args: readonly string[]): Token[] => tokenize(args, ARGV);

// `system` lines besides init that carry Claude's own session_id (see the json rules).
const SYSTEM_EVENTS = ["hook_started", "hook_progress", "hook_response", "status", "thinking_tokens", "compact_boundary", "api_retry"];

/** The config folder: `CLAUDE_CONFIG_DIR` moves all of ~/.claude (seen with 2.1.197). */
const configDir = (context: RunContext): string => context.env["CLAUDE_CONFIG_DIR"] || join(context.home, ".claude");

const data = defineRules({
  name: "claude",
  names: ["claude"],
  grammar: UUID,
  // `claude -p --output-format stream-json --verbose`: every line Claude writes carries its own
  // top-level `session_id`, and init is not always line 1. Claude 2.1.98 (a public transcript, see
  // fixtures/claude/README.md) writes, in this order:
  //   {"type":"system","subtype":"hook_started","hook_id":"<uuid>",…,"uuid":"<uuid>","session_id":"<id>"}
  //   {"type":"system","subtype":"hook_response",…,"session_id":"<id>"}
  //   {"type":"system","subtype":"init",…,"session_id":"<id>"}
  //   {"type":"assistant",…,"session_id":"<id>"}
  //   {"type":"rate_limit_event","rate_limit_info":{…},"uuid":"<uuid>","session_id":"<id>"}
  //   {"type":"result","subtype":"success",…,"session_id":"<id>"}
  // so a run killed after its hooks, or a stream read from its middle, still names the session.
  // The other `system` lines public streams show (`status`, `thinking_tokens`, `compact_boundary`,
  // `api_retry`) and `stream_event` lines carry it the same way. Only the top-level field is read
  // (nested `session_id`s, `uuid`, `hook_id`, `parent_tool_use_id` are other things), and lines of
  // a type or subtype Claude is not known to write are not read at all. A transcript exists only
  // once a turn ended, and a failed resume is a `result` too (`is_error`, `errors: ["No
  // conversation found …"]`): only `success` confirms.
  json: [
    STREAM_INIT,
    STREAM_MESSAGE,
    { name: "event", field: "session_id", when: { type: ["system"], subtype: SYSTEM_EVENTS }, state: "provisional" },
    { name: "event", field: "session_id", when: { type: ["rate_limit_event", "stream_event"] }, state: "provisional" },
    STREAM_RESULT,
    // Records of the session's own transcript, ~/.claude/projects/<folder>/<id>.jsonl, given to
    // `sessionpin replay`: each message record names the session in a camel-case `sessionId`
    // (2.1.330, fixtures/claude/store-transcript-2.1.330), which no stdout line uses. The record
    // is the stored session itself: confirmed.
    { name: "transcript-record", field: "sessionId", when: { type: ["user", "assistant"] }, state: "confirmed" },
  ],
  text: [
    // The exit screen, at column 0 (chat text is indented, so a quoted command there is not taken):
    //   Resume this session with:
    //   claude --resume 9ca906aa-a771-42ef-bd10-d5a75d7b5502
    //   claude --worktree fix-login --resume 9ca906aa-…      inside a worktree: may wrap at 67 columns
    //   claude --resume f6066ebb-…-b9cde0b60b57e REPL         2.1.85–2.1.88 glue screen text on: the
    //                                                         ID is 12 hex digits long, no delimiter needed
    //   claude --resume "my task"                             after /rename: a name, never taken
    { name: "exit-hint", pattern: `^claude (?:--worktree \\S+ )?--resume (?<id>${UUID})`, state: "provisional" },
    // The /status panel:   Session ID:             9ca906aa-a771-42ef-bd10-d5a75d7b5502
    { name: "status", pattern: `^ {0,2}Session ID:\\s+(?<id>${UUID})`, state: "provisional" },
  ],
  rejected: ["No conversation found with session ID", "Session ID \\S+ is already in use"],
  saysRejected: true,
  // A resumed print-mode run has no prompt (see warmArgs) and Claude refuses to run without one:
  // nothing is wrong with the ID. 2.1.197 says the second one for a session it found.
  // The API unreachable, the key refused, a limit hit: Claude exits 1 before any turn and the
  // session is fine. 2.1.330 prints (here, against a closed port / a 401 / a 429 API):
  //   API Error: Connection refused — a firewall or proxy may be blocking it (ECONNREFUSED)
  //   Invalid API key · Fix external API key                     (`· Please run /login` on login)
  //   API Error: Request rejected (429) · This request would exceed your account's rate limit. …
  // and subscriptions print `You've hit your limit · resets 1pm (Europe/Lisbon)`, exit 1
  // (slopus/happy#465; `session limit` in openclaw/openclaw#125285). Not anchored: in stream-json
  // the same text is the `result` line's string.
  transient: [
    "Input must be provided either through stdin or as a prompt argument",
    "Provide a prompt to continue the conversation",
    "API Error: (?:Connection|Unable to connect|Request timed out)",
    "API Error: Request rejected \\((?:429|5\\d\\d)\\)",
    "API Error: 401 ",
    "Invalid API key · (?:Fix external API key|Please run /login)",
    "Not logged in · Please run /login",
    "You've hit your (?:[a-z]+ )?limit",
    "Credit balance is too low",
  ],
});

export const claude: AgentPlugin = {
  ...data,
  // `-h, --help` and `-v, --version` (2.1.330 `--help`): `-v` is not verbose (`--verbose` is).
  noConversation(args) {
    const parsed = tokens(args);
    if (hasOption(parsed, ["-h", "--help", "-v", "--version"])) return "`claude --help/--version` opens no conversation";
    const first = positionals(parsed)[0];
    return first !== undefined && SUBCOMMANDS.has(first) ? `\`claude ${first}\` is a subcommand, not a conversation` : undefined;
  },
  unpinned(args) {
    const parsed = tokens(args);
    if (positionals(parsed)[0] === "attach") return "`claude attach` shows a background session, which its own process keeps";
    for (const [names, where] of ELSEWHERE) {
      const option = names.find((name) => hasOption(parsed, [name]));
      if (option !== undefined) return `\`claude ${option}\`: the conversation ${where}, where sessionpin cannot pin it`;
    }
    if (hasOption(parsed, ["--no-session-persistence"])) return "--no-session-persistence: Claude saves no session that could be resumed";
    return undefined;
  },
  // `-r/--resume [value]` takes a session ID, a name or a search term (2.1.330 `--help`): only a
  // UUID names the session; `--continue`, `--from-pr` and `--teleport [session]` (a cloud
  // session's) name no local one. With --fork-session the resumed session is copied to a new
  // one, which only `--session-id` names.
  callerSession(args) {
    const parsed = tokens(args);
    const pick = callerPick(parsed, { named: ["-r", "--resume"], other: ["-c", "--continue", "--from-pr", "--teleport"], fork: ["--fork-session"] }, data.grammar);
    const fork = hasOption(parsed, ["--fork-session"]) ? optionValue(parsed, ["--session-id"]) : undefined;
    return pick !== undefined && fork !== undefined && data.grammar.test(fork) ? { id: fork, via: pick.via } : pick;
  },
  invocation(args) {
    const parsed = tokens(args);
    const words = positionals(parsed);
    return { message: words.length > 0 ? words.join(" ") : undefined, oneShot: hasOption(parsed, ["-p", "--print"]) };
  },
  // Positionals are the prompt, interactive or with -p/--print. `--` keeps a prompt that starts
  // with "-" (or follows a variadic option) from being read as an option.
  coldArgs(args, prompt) {
    if (prompt === undefined) return { args: [...args], promptVia: "pty" };
    const parsed = tokens(args);
    if (positionals(parsed).length > 0) return { args: [...args], promptVia: "none" };
    const separated = parsed.some((token) => token.kind === "separator");
    return { args: separated ? [...args, prompt] : [...args, "--", prompt], promptVia: "argv" };
  },
  // `--session-id` names the new session; Claude refuses it next to --resume/--continue unless
  // --fork-session, where it names the fork.
  chooseId(args, fresh) {
    const parsed = tokens(args);
    if (hasOption(parsed, ["--session-id"])) return undefined;
    if (hasOption(parsed, RESUMING) && !hasOption(parsed, ["--fork-session"])) return undefined;
    return { id: fresh, args: ["--session-id", fresh, ...args] };
  },
  // `claude [other args] --resume <id>`, without the prompt and without any other choice of
  // session. Print mode (-p, output flags kept) stays: coldArgs adds the message to deliver
  // (`claude -p --resume <id> -- MSG`). Without one Claude reads no message from a terminal, and
  // stops at once with `Input must be provided …` (exit 1), listed as transient.
  warmArgs(args, id) {
    const rest = withoutPositionals(withoutOptions(tokens(args), [...RESUMING, "--session-id"]));
    return [...render(rest), "--resume", id];
  },
  store: {
    rule: "transcript",
    where: (context) => [{ dir: join(configDir(context), "projects", context.cwd.replace(/[^A-Za-z0-9]/g, "-")), depth: 0 }],
    name: uuidEntry(".jsonl"),
    entryName: (id) => `${id}.jsonl`,
    wholeId: true,
  },
  // While it runs (>= 2.1.10x): sessions/<pid>.json, which also follows /clear to the new session.
  pidFile: { rule: "pid-file", path: (pid, context) => join(configDir(context), "sessions", `${pid}.json`), field: "sessionId" },
  // 2.1.330 resumes a transcript put under another folder's projects/<folder>/ (test/interop/
  // carry.interop.ts), even with the old folder inside it; its lines name the folder as
  // `"cwd":"/old"` (and `"workingDirectory"`), made the new one's so that they say where it now
  // runs. Beside the transcript, `<id>/` holds the session's subagent transcripts and tool results.
  carry: {
    kind: "files",
    says: "projects/<folder>/<id>.jsonl and its <id>/ folder (subagents, tool results), filed under the new folder; the folder's path in them rewritten",
    root: (context) => join(configDir(context), "projects", context.cwd.replace(/[^A-Za-z0-9]/g, "-")),
    files: (id, root, _entry, look) => [{ path: `${id}.jsonl`, transcript: true }, ...filesBelow(look, root, id).map((path) => ({ path }))],
    owns: (path, id) => path === `${id}.jsonl` || path.startsWith(`${id}/`),
    folderNames: (cwd) => [cwd],
  },
};
