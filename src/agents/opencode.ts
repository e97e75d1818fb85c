import { callerPick, hasOption, optionValue, positionals, render, tokenize, withoutOptions, withoutPositionals, type ArgvSpec } from "./argv.js";
import { join } from "node:path";
import { defineRules } from "./declarative.js";
import type { AgentPlugin, RunContext } from "./types.js";

/**
 * OpenCode. Facts from ../shared/agents.md and OpenCode 1.18.33 run here against a local model
 * server: its `--help`, the `run --format json` events, the TUI's exit screen and its error texts.
 */

const SESSION_ID = "ses_[0-9a-f]{12}[0-9A-Za-z]{14}";

// Options of `opencode` and `opencode run` that take a value (1.18.33 `--help`).
const ARGV: ArgvSpec = {
  values: [
    "--log-level", "--hostname", "--mdns-domain", "--cors", "-m", "--model", "-s", "--session", "--prompt", "--agent",
    "--replay-limit", "--command", "--format", "-f", "--file", "--attach", "-p", "--password", "-u", "--username",
    "--dir", "--variant",
  ],
  optionalValues: ["--port", "--title"],
};
// Options that pick the session; a warm start names its own with `-s <id>`. `--fork` would fork the
// pinned session again on every start.
const SESSION_PICKS = ["-s", "--session", "-c", "--continue", "--fork"];
// What belongs to the first message: the TUI's `--prompt`, and run's `--command` and attached files.
const PROMPT_PARTS = ["--prompt", "--command", "-f", "--file"];
// 1.18.33's commands (and aliases) that open no conversation (`--help`).
const SUBCOMMANDS = new Set([
  "completion", "mcp", "debug", "providers", "auth", "agent", "upgrade", "uninstall", "models", "stats", "export", "import",
  "github", "session", "plugin", "plug", "db",
]);
// 1.18.33's commands whose conversations belong to someone else: an ACP client, the clients of a
// server (`serve`, `web`), a server elsewhere (`attach <url>`); `pr <number>` checks out a branch
// first, then opens the TUI, which a warm start would not do again.
const ELSEWHERE = new Map([
  ["acp", "serves an ACP client over stdio, which owns its sessions"],
  ["serve", "serves clients, which own their sessions"],
  ["web", "serves its web interface, which owns its sessions"],
  ["attach", "attaches to a running OpenCode server, which keeps the session"],
  ["pr", "checks out a pull request's branch before the TUI opens"],
]);

function parse(args: readonly string[]) {
  const tokens = tokenize(args, ARGV);
  const words = positionals(tokens);
  return { tokens, words, run: words[0] === "run" };
}

const data = defineRules({
  name: "opencode",
  names: ["opencode"],
  grammar: SESSION_ID,
  // `opencode run --format json`: every event carries top-level `sessionID` (its `part` repeats it;
  // never read). OpenCode stores the session before the first event; a finished step means the
  // turn's messages are stored too.
  json: [
    { name: "step-start", field: "sessionID", when: { type: ["step_start"] }, state: "provisional" },
    { name: "event", field: "sessionID", when: { type: ["text", "reasoning", "tool_use", "error"] }, state: "provisional" },
    { name: "step-finish", field: "sessionID", when: { type: ["step_finish"] }, state: "confirmed" },
  ],
  text: [
    // The TUI's exit screen (1.18.33), below the logo; the title row is the session's title, which
    // may say anything:
    //   Session   Fix the login form
    //   Continue  opencode -s ses_dfab803f5ffeN56Fn350UkxP8T
    { name: "exit-hint", pattern: `^\\s*Continue\\s+opencode\\s+-s\\s+(?<id>${SESSION_ID})`, state: "confirmed" },
  ],
  // 1.18.33 refuses an unknown `ses_…` ID at once (about 3 s, exit 1), before any model request:
  //   run:  Error: Session not found
  //   TUI:  Error: Session not found: ses_494719016ffe85dkDMj0FPRbHK
  rejected: ["Session not found"],
  saysRejected: true,
  transient: [
    // `opencode run` without a message refuses to start (exit 1) before it loads the session.
    // sessionpin's warm run starts always carry one (a follow-up or the resume prompt).
    "You must provide a message or a command",
    // 1.18.33 with its provider at a closed port retries for about 70 s, then (run, exit 1):
    //   Error: Cannot connect to API: Unable to connect. Is the computer able to access the url?
    // and in `--format json` the same text in an `error` event's `error.data.message`. The TUI
    // shows it on its status row while it retries, a spinner drawn over the space after `Cannot`.
    "connect to API: Unable to connect",
    // `run --format json` when the provider refuses (1.18.33, a 401 here, exit 1 within seconds):
    //   {"type":"error",…,"sessionID":"ses_…","error":{"name":"APIError","data":{"message":"<the
    //   provider's text>","statusCode":401,"isRetryable":false,…}}}
    // An APIError comes from the model request, which OpenCode makes only once the session loaded.
    '"name":"APIError"',
    // Plain `opencode run` prints the provider's own text (`Error: refused`), which says nothing
    // recognisable; but first, once the session is loaded and the turn starts, its header:
    //   > build · fake-model
    // (agent · model). An unknown ID fails before it, so a failure after it says nothing about the ID.
    "^> [\\w-]+ · \\S",
  ],
});

export const opencode: AgentPlugin = {
  ...data,
  // 1.18.33 keeps sessions in SQLite (see below) and carries one itself: `opencode export <id>`
  // prints it as JSON (its messages and parts, `info.directory` the old folder), and `opencode
  // import <file>` stores it under the folder it runs in (`directory`, `path` and the project are
  // the new folder's) and inserts only what is not there yet: a session already there keeps its
  // row, and gains the messages it lacks. `run -s <id>` in the new folder then continues it
  // (test/interop/carry.interop.ts). `Session not found` is its export's word for an unknown ID.
  carry: {
    kind: "command",
    says: "through OpenCode's own `opencode export <id>` (in the old folder) and `opencode import <file>` (in the new one, which files the session under it)",
    exportArgs: (id) => ["export", id],
    importArgs: (file) => ["import", file],
    missing: /Session not found/,
    turns(text) {
      try {
        const messages = (JSON.parse(text) as { messages?: unknown }).messages;
        if (!Array.isArray(messages)) return undefined;
        return messages.map((m: { info?: { id?: unknown } } | null) => (typeof m?.info?.id === "string" ? m.info.id : JSON.stringify(m)));
      } catch {
        return undefined;
      }
    },
  },
  // The TUI shows its session only on a clean exit; the log names it the moment it is stored.
  sessionLog: { rule: "log-created", path: (context) => opencodeLogPath(context), created: (line, context) => sessionCreatedIn(line, context) },
  // `-h, --help` and `-v, --version` (1.18.33 `--help`).
  noConversation(args) {
    const { tokens, words } = parse(args);
    if (hasOption(tokens, ["-h", "--help", "-v", "--version"])) return "`opencode --help/--version` opens no conversation";
    const command = words[0];
    return command !== undefined && SUBCOMMANDS.has(command) ? `\`opencode ${command}\` is a subcommand, not a conversation` : undefined;
  },
  unpinned(args) {
    const command = parse(args).words[0];
    const why = command === undefined ? undefined : ELSEWHERE.get(command);
    return why === undefined ? undefined : `\`opencode ${command}\` ${why}: nothing is pinned`;
  },
  // `-s, --session` takes a session ID, `-c, --continue` the last session, TUI and `run` alike
  // (1.18.33 `--help`); with `--fork` the session is copied to a new one first.
  callerSession: (args) => callerPick(parse(args).tokens, { named: ["-s", "--session"], other: ["-c", "--continue"], fork: ["--fork"] }, data.grammar),
  invocation(args) {
    const { tokens, words, run } = parse(args);
    const message = run ? (words.length > 1 ? words.slice(1).join(" ") : undefined) : optionValue(tokens, ["--prompt"]) || undefined;
    return { message, oneShot: run };
  },
  coldArgs(args, prompt) {
    const { tokens, words, run } = parse(args);
    if (prompt === undefined) return { args: [...args], promptVia: "pty" };
    // A resumed TUI (`--resume-prompt`): 1.18.33 ignores `--prompt` next to `-s <id>` (nothing is
    // sent, nothing shows in its input box), so the message is typed.
    if (!run && hasOption(tokens, ["-s", "--session"])) return { args: [...args], promptVia: "pty" };
    // run: the message is positional; the TUI takes `--prompt` and submits it at start.
    if (run ? words.length > 1 : hasOption(tokens, ["--prompt"])) return { args: [...args], promptVia: "none" };
    if (run) return { args: [...args, ...(prompt.startsWith("-") ? ["--"] : []), prompt], promptVia: "argv" };
    return { args: [...args, ...(prompt.startsWith("-") ? [`--prompt=${prompt}`] : ["--prompt", prompt])], promptVia: "argv" };
  },
  // TUI: `opencode [project] [opts] -s <id>` (the positional is a folder, not a prompt);
  // run: `opencode run [opts] -s <id>`, to which coldArgs adds the message to deliver
  // (`opencode run -s <id> MSG` continues the session, 1.18.33).
  warmArgs(args, id) {
    const { tokens, run } = parse(args);
    const kept = withoutOptions(tokens, [...SESSION_PICKS, ...PROMPT_PARTS]).filter((t) => t.kind !== "separator");
    return [...(run ? ["run", ...render(withoutPositionals(kept))] : render(kept)), "-s", id];
  },
};

/**
 * OpenCode 1.18.33 writes no file or folder per session: sessions live in SQLite
 * (`<data>/opencode/opencode.db`, table `session`, column `directory`), which Node 20 cannot read
 * without a dependency. The TUI names its session only on the exit screen (SIGINT, SIGTERM,
 * SIGHUP; nothing on SIGKILL). While it runs, the one text that names a new session is the line it
 * appends to its log, shared by every OpenCode process of that HOME, the moment it stores the session
 * (before the first model request; a TUI started without a prompt creates none until a message):
 *
 *   timestamp=2026-11-25T20:18:13.936Z level=INFO run=fa060889 message=created
 *   id=ses_deba424cfffexLzwia0wxH1kRO slug=brave-lagoon version=1.18.33 projectID=global
 *   directory=/tmp/oc-exp/t1/cwd path=tmp/oc-exp/t1/cwd workspaceID=undefined parentID=undefined
 *   title="New session - 2026-11-25T20:18:13.936Z" …            (one line)
 *
 * It is an INFO line: `--log-level WARN` (or ERROR) leaves it out, and then only the exit screen names
 * the session. The core has no way yet to read lines appended to a log while the agent runs; these
 * are the pieces such a reader needs (the path, and which line is a new top-level session of this
 * folder).
 */
export function opencodeLogPath(context: RunContext): string {
  const data = context.env["XDG_DATA_HOME"];
  return join(data !== undefined && data !== "" ? data : join(context.home, ".local", "share"), "opencode", "log", "opencode.log");
}

const LOG_FIELD = /(?:^|\s)([\w.]+)=("(?:[^"\\]|\\.)*"|\S*)/g;
const SESSION_ID_ONLY = new RegExp(`^${SESSION_ID}$`);

/**
 * The ID of the session a log line says was created in `context.cwd`, or undefined. Sub-agent
 * sessions (the task tool's, `parentID=ses_…`) and other folders' sessions are not this run's.
 * Never throws.
 */
export function sessionCreatedIn(line: string, context: RunContext): string | undefined {
  const fields = new Map<string, string>();
  for (const match of line.matchAll(LOG_FIELD)) {
    const [, key, raw] = match;
    if (key === undefined || raw === undefined || fields.has(key)) continue;
    let value = raw;
    if (raw.startsWith('"')) {
      try {
        value = JSON.parse(raw) as string;
      } catch {
        return undefined; // a cut line
      }
    }
    fields.set(key, value);
  }
  const id = fields.get("id");
  if (fields.get("message") !== "created" || id === undefined || !SESSION_ID_ONLY.test(id)) return undefined;
  if (fields.get("parentID") !== "undefined" || fields.get("directory") !== context.cwd) return undefined;
  return id;
}
