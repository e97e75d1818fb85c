import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { callerPick, hasOption, optionValue, positionals, render, tokenize, withoutOptions, withoutPositionals, type ArgvSpec, type Token } from "./argv.js";
import { defineRules } from "./declarative.js";
import type { AgentPlugin, RunContext } from "./types.js";
import { UUID, UUID_ONLY, uuidEntry } from "./grammar.js";

/**
 * Augment's Auggie CLI. Facts from the real `@augmentcode/auggie` 0.36.0 (commit 7c61e5bb), run
 * offline against a fake Augment API (test/interop/auggie.interop.ts), and from Coder's Auggie
 * module (`auggie … --instruction "$PROMPT" --workspace-root DIR` under agentapi).
 *
 * 0.36.0 keeps every session in `~/.augment/sessions/<uuid>.json`, written as soon as the first
 * exchange ends, while the TUI still runs: that store is the capture that does not depend on how
 * Auggie exits (agentapi stops it with SIGINT, and on SIGINT 0.36.0 exits 0 without a word).
 */


// The task: a positional, `-i/--instruction`, `-if/--instruction-file` and `--queue` (0.36.0 --help).
const PROMPT = ["--instruction", "--instruction-file", "-i", "-if", "--queue"];
const SESSION = ["--resume", "-r", "--continue", "-c"];
const ARGV: ArgvSpec = {
  values: [
    ...PROMPT, "--image", "--file", "--output-format", "-m", "--model", "--reasoning-effort", "--persona",
    "-w", "--workspace-root", "--add-workspace", "--rules", "--augment-cache-dir", "--retry-timeout", "--max-turns",
    "--augment-session-json", "--github-api-token", "--mcp-config", "--permission", "--remove-tool", "--shell",
    "--startup-script", "--startup-script-file", "--plugin-dir",
  ],
  // `--resume` alone opens a session picker.
  optionalValues: ["--resume", "-r"],
};
// 0.36.0's commands (`--help`; `sessions` is `session`'s alias); any other positional word is the
// task (`auggie "fix the bug"`). `session continue|resume` opens a session: see callerSession.
const COMMANDS = ["login", "logout", "token", "session", "sessions", "model", "account", "context", "upgrade", "command", "mcp", "tools", "help"];
const SESSION_COMMANDS = ["session", "sessions"];

/** `session continue` or `session resume [id]`, as its words, when the command is one. */
function sessionCommand(tokens: readonly Token[]): string[] | undefined {
  const words = positionals(tokens);
  return SESSION_COMMANDS.includes(words[0] ?? "") && (words[1] === "continue" || words[1] === "resume") ? words.slice(0, 3) : undefined;
}

/** The nearest folder at or above `cwd` that holds `.git`, as 0.36.0 finds its workspace root. */
function gitRoot(cwd: string): string | undefined {
  for (let dir = cwd; ; dir = dirname(dir)) {
    if (existsSync(join(dir, ".git"))) return dir;
    if (dirname(dir) === dir) return undefined;
  }
}

/** `~/.augment/sessions` (`--augment-cache-dir` moves it; that option is not seen here). */
const sessionsDir = (context: RunContext): string => join(context.home, ".augment", "sessions");

export const auggie: AgentPlugin = {
  ...defineRules({
    name: "auggie",
    names: ["auggie"],
    grammar: UUID,
    json: [
      // `auggie --print --output-format json …` (0.36.0) prints one line when the run ends:
      //   {"type":"result","result":"…","is_error":false,"subtype":"success","session_id":"<uuid>",
      //    "num_turns":0,"request_id":"<uuid>"}
      // The session file exists by then; the store confirms it.
      { name: "print-result", field: "session_id", when: { type: ["result"] }, state: "provisional" },
    ],
    text: [
      // Auggie 0.36.0 on its own exit keys (Ctrl+C twice), never on SIGINT, one logical row that
      // the terminal wraps at 67 columns:
      //   ✨ Tip: Use 'auggie session continue' or 'auggie session resume 5871de2c-90c9-44f8-94d7-7
      //   1be9fdd4af6' to resume your session
      // Older spellings (`auggie --resume <uuid>`) are kept; a prefix is never pinned.
      { name: "exit-resume-hint", pattern: `auggie (?:--resume[ =]|session resume )(?<id>${UUID})`, state: "provisional" },
    ],
    // 0.36.0, TUI (red, exit 1) and print mode (`❌ Failed to initialize agent: …`, exit 1):
    //   Error: Failed to resume session: No session found matching '<id>'.
    // The lookup is local (~/.augment/sessions): it says this even with the server unreachable.
    rejected: ["Failed to resume session: No session found matching '"],
    saysRejected: true,
    transient: [
      // The server unreachable (0.36.0, closed port): a warning on every start, then after about
      // 5 minutes of retries, in print mode, `❌ API Error: "unavailable: fetch failed (ECONNREFUSED: …)"`, exit 1.
      //   Warning: Could not fetch tenant MCP server configurations: fetch failed (ECONNREFUSED: connect ECONNREFUSED 127.0.0.1:9)
      "fetch failed \\((?:ECONNREFUSED|ENOTFOUND|ECONNRESET|ETIMEDOUT|EAI_AGAIN|EHOSTUNREACH|ENETUNREACH)",
      // The server refuses the token (0.36.0, HTTP 401 from /chat-stream, exit 1):
      //   ❌ Authentication failed: HTTP error: 401 Unauthorized
      //      Run 'auggie login' to authenticate first.
      "Authentication failed: ",
      "Run 'auggie login' to authenticate first",
      // No token at all (0.36.0): `❌ No auth provided. Please log in with `auggie login` or set …`.
      "No auth provided\\. Please log in with",
      // Older wording of a missing login.
      "You are not currently logged in to Augment",
      // A resumed print-mode run without a task (0.36.0), before anything is said of the ID:
      //   ❌ Failed to initialize agent: No instruction provided. In text mode, provide an instruction via …
      "No instruction provided\\. In text mode, provide an instruction",
    ],
  }),

  // `-h, --help` and `-v, --version` (0.36.0 takes both; `-V` is unknown to it); `--mcp` runs it
  // as an MCP tool server, which opens no conversation.
  noConversation(args) {
    const tokens = tokenize(args, ARGV);
    if (hasOption(tokens, ["--mcp", "-h", "--help", "-v", "--version"])) return "`auggie --help/--version/--mcp` opens no conversation";
    const first = positionals(tokens)[0];
    if (first === undefined || !COMMANDS.includes(first) || sessionCommand(tokens) !== undefined) return undefined;
    return `\`auggie ${first}\` is a subcommand, not a conversation`;
  },
  unpinned(args) {
    const tokens = tokenize(args, ARGV);
    if (hasOption(tokens, ["--acp"])) return "`auggie --acp` serves an Agent Client Protocol client, which owns its sessions";
    if (hasOption(tokens, ["--dont-save-session"])) return "--dont-save-session: Auggie saves no session that could be resumed";
    return undefined;
  },
  // `-r, --resume [sessionId]` takes an ID or a prefix (none: a picker), `-c, --continue` the most
  // recent session; `auggie session resume [sessionId]` and `session continue` are the same
  // (0.36.0 `--help`, `auggie session --help`). Only a whole UUID names the session.
  callerSession(args) {
    const tokens = tokenize(args, ARGV);
    const command = sessionCommand(tokens);
    if (command === undefined) return callerPick(tokens, { named: ["--resume", "-r"], other: ["--continue", "-c"] }, UUID_ONLY);
    const [, verb, id] = command;
    const via = command.join(" ");
    return verb === "resume" && id !== undefined && UUID_ONLY.test(id) ? { id, via } : { via };
  },

  // `--instruction-file` and `--queue` are not read: their message is not in argv.
  invocation(args) {
    const tokens = tokenize(args, ARGV);
    const words = positionals(tokens);
    const message = optionValue(tokens, ["--instruction", "-i"]) || (words.length > 0 ? words.join(" ") : undefined);
    return { message, oneShot: hasOption(tokens, ["--print", "-p"]) };
  },
  // Coder's module passes the task as `--instruction`; the TUI runs it at once, print mode too.
  coldArgs(args, prompt) {
    const tokens = tokenize(args, ARGV);
    if (hasOption(tokens, PROMPT) || positionals(tokens).length > 0) return { args: [...args], promptVia: "none" };
    if (prompt === undefined) return { args: [...args], promptVia: "pty" };
    return { args: [...args, "--instruction", prompt], promptVia: "argv" };
  },

  // `auggie [options] --resume <id>`, never with the task again: Coder's module re-sent
  // `--instruction` beside `--continue`, which appends the task to the resumed session. Print mode
  // (`--print`, `--output-format`) stays: `auggie --print --resume <id> --instruction MSG` is
  // 0.36.0's headless resume (the message comes from `--resume-prompt`).
  warmArgs(args, id) {
    const rest = withoutPositionals(withoutOptions(tokenize(args, ARGV), [...PROMPT, ...SESSION]));
    return [...render(rest), "--resume", id];
  },

  store: {
    rule: "session-file",
    where: (context) => [{ dir: sessionsDir(context), depth: 0 }],
    movedBy: ["--augment-cache-dir"],
    name: uuidEntry(".json"),
    entryName: (id) => `${id}.json`,
    wholeId: true,
    // One folder for every workspace. 0.36.0 writes the file pretty-printed: `sessionId`,
    // `created`, `modified`, then `chatHistory`, whose first exchange holds the first message twice
    // (`request_message` and a text node in `request_nodes`) and then the IDE state node:
    //   "ide_state_node": { "workspace_folders": [ { "repository_root": "/w", "folder_root": "/w" } ],
    //     …, "current_terminal": { "terminal_id": 0, "current_working_directory": "/w" } }
    // Both name the workspace root, not the process's cwd: `--workspace-root DIR` if given, else
    // the nearest git root above the cwd, else the cwd (0.36.0 run in repo/sub wrote repo in
    // both). So a session belongs here when its workspace is the cwd or the cwd's git root; with
    // a `--workspace-root` elsewhere it is never taken (the option is not seen here).
    // Both fields come after the first message, twice: a first message of 40,000 characters put
    // folder_root at byte 80,760, past the default 64 KiB head. 1 MiB covers first messages of up
    // to ~500 KB; past that the session is not captured here (no capture rather than another
    // folder's session), and print mode's result line still names it.
    headBytes: 1024 * 1024,
    belongs(head, context) {
      const root = /"current_working_directory"\s*:\s*("(?:[^"\\]|\\.)*")/.exec(head)?.[1] ?? /"folder_root"\s*:\s*("(?:[^"\\]|\\.)*")/.exec(head)?.[1];
      if (root === undefined) return false;
      let workspace: unknown;
      try {
        workspace = JSON.parse(root);
      } catch {
        return false;
      }
      return workspace === context.cwd || workspace === gitRoot(context.cwd);
    },
  },
  // 0.36.0 resumes ~/.augment/sessions/<id>.json from another folder (test/interop/carry.interop.ts).
  // The file is written whole at each turn, so its turns are its chatHistory's exchanges; the
  // folder it names (`folder_root`, `current_working_directory`) becomes the new one.
  carry: {
    kind: "files",
    says: "sessions/<id>.json (one JSON document, rewritten whole at each turn); the folder's path in it rewritten",
    root: (context) => sessionsDir(context),
    files: (id) => [{ path: `${id}.json`, transcript: true }],
    owns: (path, id) => path === `${id}.json`,
    folderNames: (cwd) => [cwd],
    turns(text) {
      try {
        const history = (JSON.parse(text) as { chatHistory?: unknown }).chatHistory;
        if (!Array.isArray(history)) return undefined;
        return history.map((turn: { exchange?: { request_id?: unknown } } | null) => {
          const id = turn?.exchange?.request_id;
          return typeof id === "string" ? id : JSON.stringify(turn);
        });
      } catch {
        return undefined;
      }
    },
  },
};
