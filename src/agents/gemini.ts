import { join } from "node:path";
import { hasOption, positionals, render, tokenize, withoutOptions, withoutPositionals, type ArgvSpec } from "./argv.js";
import { definePlugin } from "./declarative.js";
import type { AgentPlugin } from "./types.js";

/**
 * Gemini CLI. Facts from ../shared/agents.md and Gemini CLI's own source and docs
 * (docs/cli/cli-reference.md, sessionUtils.ts, chatRecordingService.ts, SessionSummaryDisplay).
 * A new session is named up front with `--session-id <uuid>` (Gemini CLI >= 0.41).
 */

// Gemini's own IDs are random v4 UUIDs; `--session-id` would take more, but sessionpin only ever
// chooses UUIDs, and a looser grammar would let other words through.
const UUID = "[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}";

const PROMPT = ["-p", "--prompt", "-i", "--prompt-interactive"];
// `--resume` and `--session-id` together are refused by Gemini; a warm start sets its own.
const SESSION = ["--session-id", "-r", "--resume"];
const ARGV: ArgvSpec = {
  values: [
    ...PROMPT, "--session-id", "-m", "--model", "-o", "--output-format", "--approval-mode", "-e", "--extensions",
    "--allowed-mcp-server-names", "--allowed-tools", "--include-directories", "--delete-session", "--proxy",
    "--sandbox-image", "--telemetry-target", "--telemetry-otlp-endpoint", "--telemetry-otlp-protocol", "--telemetry-outfile",
  ],
  // `-r` alone resumes the latest session; `-w` alone makes up a worktree name.
  optionalValues: ["-r", "--resume", "-w", "--worktree"],
};
const SUBCOMMANDS = ["mcp", "extensions", "skills", "hooks", "update", "rewind", "sandbox", "settings", "telemetry", "token-caching", "gemma"];
const NO_SESSION = ["--list-sessions", "--delete-session", "-l", "--list-extensions", "-v", "--version", "-h", "--help",
  "--acp", "--experimental-acp", "--experimental-zed-integration"];

/** `extra` goes before a `--`, so it is never read as part of the positional prompt. */
const beforeSeparator = (args: readonly string[], extra: readonly string[]): string[] => {
  const at = args.indexOf("--");
  return at < 0 ? [...args, ...extra] : [...args.slice(0, at), ...extra, ...args.slice(at)];
};

const base = definePlugin({
  name: "gemini",
  names: ["gemini"],
  grammar: UUID,
  // `--output-format stream-json`: only the first event names the session; later ones carry no ID,
  // and `result` has none to confirm with.
  json: [{ name: "init", field: "session_id", when: { type: ["init"] }, state: "provisional" }],
  text: [{
    // The exit box (and `/stats`), drawn by Ink at the PTY width; at agentapi's 67 columns the
    // UUID breaks inside the Session ID row and the hint's ID moves to the next row, and a full
    // row is joined without a space (hence `\s*`):
    //   │  Session ID:                 d5c83334-48c4-40cb-941e-c6ade6ee8  │
    //   │                              c8a                                │
    //   │  To resume this session: gemini --resume                        │
    //   │  d5c83334-48c4-40cb-941e-c6ade6ee8c8a                           │
    // The older footer `Tip: Resume a previous session using gemini --resume or /resume` names no ID.
    name: "exit-box",
    pattern: `(?:(?:^|[│|])\\s*Session ID:|gemini --resume)\\s*(?<id>${UUID})`,
    state: "provisional",
  }],
  resume: ["{args}", "--resume", "{id}"],
  rejected: [
    // sessionUtils.ts; exit 42. Sessions with no user/assistant message are not resumable either.
    "Error resuming session: Invalid session identifier",
    "No previous sessions found for this project",
  ],
  // Exit 41: nothing is wrong with the session, the pointer stays.
  transient: ["Please set an Auth method"],
});

export const gemini: AgentPlugin = {
  ...base,
  passthrough(args) {
    const tokens = tokenize(args, ARGV);
    const command = positionals(tokens)[0];
    if (command !== undefined && SUBCOMMANDS.includes(command)) return `\`gemini ${command}\` is a subcommand, not a conversation`;
    return hasOption(tokens, NO_SESSION) ? "this gemini invocation lists, deletes or serves sessions; it starts no conversation" : undefined;
  },
  // A prompt of the command's own (`-p`, `-i`, positional) wins; otherwise it is typed into the TUI.
  coldArgs(args, prompt) {
    const tokens = tokenize(args, ARGV);
    const own = hasOption(tokens, PROMPT) || positionals(tokens).length > 0;
    return { args: [...args], promptVia: own && prompt !== undefined ? "none" : "pty" };
  },
  // Gemini CLI < 0.41 has no `--session-id`: such a start then fails (see README).
  chooseId(args, fresh) {
    if (hasOption(tokenize(args, ARGV), SESSION)) return undefined;
    return { id: fresh, args: beforeSeparator(args, ["--session-id", fresh]) };
  },
  warmArgs(args, id) {
    const rest = withoutPositionals(withoutOptions(tokenize(args, ARGV), [...PROMPT, ...SESSION]));
    return [...render(rest), "--resume", id];
  },
  // ~/.gemini/tmp/<project>/chats/session-<YYYY-MM-DDTHH-MM>-<first 8 of the ID>.jsonl (older: .json).
  // Gemini creates it when the session starts, so it confirms the chosen ID early; a session that
  // never took a turn is then refused on resume and sessionpin falls back.
  store: {
    rule: "chats",
    where: ({ env, home }) => [{ dir: join(env["GEMINI_CLI_HOME"] || home, ".gemini", "tmp"), depth: 2 }],
    name: /^session-.+-(?<id>[0-9a-f]{8})\.jsonl?$/,
    wholeId: false,
  },
};
