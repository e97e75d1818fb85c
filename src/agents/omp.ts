import type { ArgvSpec } from "./argv.js";
import { definePlugin } from "./declarative.js";
import { familyArgv, familyCarry, familySessionDir, familyStore, PROVIDER_FAILURES, SESSION_HEADER, SESSION_ID, TURN_FAILED } from "./pi-family.js";
import type { AgentPlugin, RunContext } from "./types.js";

/**
 * omp (oh-my-pi, @oh-my-pi/pi-coding-agent), pi's fork, on Bun. Proven against 18.2.3 (the newest
 * that installs here; 18.3.x does not) and checked against its source: src/cli/flag-tables.ts,
 * src/cli-commands.ts. What it shares with pi is in pi-family.ts.
 */

// 18.2.3's flag tables (src/cli/flag-tables.ts): options with a value, and `--resume`/`-r`/
// `--session` whose value is optional. `--profile` and `--alias` are read before them
// (src/cli/args.ts). `--models-config` and `--system-prompt-template` are 18.3.4's, kept for it.
const ARGV: ArgvSpec = {
  values: [
    "--cwd", "--config", "--add-dir", "--mode", "--fork", "--models-config", "--provider", "--model", "--smol", "--slow",
    "--plan", "--prewalk-into", "--plan-yolo-into", "--max-time", "--service-tier", "--api-key", "--system-prompt",
    "--system-prompt-template", "--append-system-prompt", "--provider-session-id", "--prompt-cache-key", "--session-dir",
    "--models", "--tools", "--thinking", "--export", "--hook", "--extension", "-e", "--trusted-extension", "--plugin-dir",
    "--skills", "--approval-mode", "--profile", "--alias",
  ],
  optionalValues: ["--resume", "-r", "--session"],
};
// What omp itself drops when it relaunches into a session (its `/restart`, the same list in
// 18.2.3's flag-tables.ts): the session pickers. `-r/--resume` and `--session` take an ID
// prefix or a path (none: a picker); `--fork` copies a session to a new one; `--from-claude` and
// `--from-codex` import one (18.2.3 `--help`).
const SESSION_PICKS = { named: ["--resume", "-r", "--session"], other: ["--continue", "-c", "--fork", "--from-claude", "--from-codex"] };
// Top-level commands (and aliases) that open no conversation: a first word among them is no
// prompt. 18.2.3's src/cli-commands.ts, plus those 18.3.4 added (`find`, `predict`, `clip`,
// `play`, `skill(s)`, `stream`, `toks`, `web-search`, `login`): in 18.2.3 such a first word is a
// message, and such a run then goes unpinned, which is the safe side.
const SUBCOMMANDS = new Set([
  "auth-broker", "auth-gateway", "agents", "bench", "browser-relay", "cleanse", "collab", "commit", "completions",
  "__complete", "compress", "config", "dry-balance", "find", "gc", "grep", "gallery", "git", "grievances", "images", "img",
  "if-bench", "install", "login", "models", "plugin", "plugins", "predict", "ps", "say", "clip", "play", "share",
  "setup", "shell", "read", "render", "skill", "skills", "ssh", "stats", "stream", "update", "usage", "tiny-models",
  "token", "toks", "ttsr", "worktree", "wt", "search", "q", "web-search", "help",
]);
// 18.2.3 `--help`: `acp` runs "as an ACP (Agent Client Protocol) server over stdio"; `join`
// joins "a shared collab session", another omp's.
const FOREIGN = new Map([
  ["acp", "serves an ACP client over stdio, which owns its sessions"],
  ["join", "joins another omp's shared collab session"],
]);

/**
 * The session folder sessionpin gives omp for this working folder, outside omp's own
 * `sessions/` root (18.2.3 names its own folders `sessions/-<cwd with / as ->/`), so omp's own
 * pickers and moves never mix these sessions with the user's.
 */
export function ompSessionDir(context: Pick<RunContext, "home" | "cwd">): string {
  return familySessionDir(".omp", context);
}

const data = definePlugin({
  name: "omp",
  names: ["omp"],
  grammar: SESSION_ID,
  json: [SESSION_HEADER],
  // The TUI shows no session ID; the session file in sessionpin's folder captures it.
  text: [],
  resume: ["--session", "{id}"],
  // 18.2.3, for --resume/--session/--fork, exit 1:
  //   Error: Session "01a2145a-d031-74f3-9c4e-000000000000" not found.
  //   Run `omp --resume` without an argument to pick from recent sessions, or `omp` to start a new one.
  rejected: ['Session "[^"\\n]*" not found\\.'],
  saysRejected: true,
  turnFailed: [...TURN_FAILED],
  transient: [
    ...PROVIDER_FAILURES,
    // 18.2.3 on Bun, provider at a closed port: `ECONNREFUSED: Unable to connect. Is the computer
    // able to access the url?` after about 31 s per attempt (and only once `retry.enabled` is off:
    // otherwise it retries for minutes). Bun's other fetch failures are named the same way.
    "^(?:Error: )?(?:ECONNREFUSED|ECONNRESET|ENOTFOUND|EAI_AGAIN|ETIMEDOUT|ENETUNREACH|EHOSTUNREACH|FailedToOpenSocket|ConnectionRefused|ConnectionClosed)\\b",
  ],
});

export const omp: AgentPlugin = {
  ...data,
  ...familyArgv({
    name: "omp",
    dot: ".omp",
    spec: ARGV,
    sessionPicks: SESSION_PICKS,
    // 18.2.3 prints its help for `-h/--help` and its version for `-v/--version` (not `-V`);
    // `--export <file>` ("Export session file to HTML and exit") and `--alias <name>` ("Create a
    // shell shortcut for the selected profile and exit"), 18.2.3 `--help`.
    noConversation: [
      { names: ["-h", "--help", "-v", "--version", "--export", "--alias"], why: "`omp --help/--version/--export/--alias` opens no conversation" },
    ],
    unpinned: [{ names: ["--no-session"], why: "`omp --no-session` keeps no session to resume" }],
    protocolModes: ["rpc", "rpc-ui", "acp"],
    subcommands: SUBCOMMANDS,
    foreignCommands: FOREIGN,
    // `omp launch …` is the explicit form of a plain start.
    launch: "launch",
    subcommandFirst: false,
    separator: true,
  }),
  store: familyStore(".omp"),
  carry: familyCarry(".omp"),
};
