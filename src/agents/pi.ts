import type { ArgvSpec } from "./argv.js";
import { definePlugin } from "./declarative.js";
import { familyArgv, familyCarry, familySessionDir, familyStore, PROVIDER_FAILURES, SESSION_HEADER, SESSION_ID, TURN_FAILED } from "./pi-family.js";
import type { AgentPlugin, RunContext } from "./types.js";

/**
 * pi (@mariozechner/pi-coding-agent), omp's upstream, on Node. Proven against 0.73.1 and checked
 * against its dist/cli/args.js and dist/package-manager-cli.js. What it shares with omp is in
 * pi-family.ts.
 */

// 0.73.1's dist/cli/args.js: options that take the next word (only when there is one), and
// `--list-models [search]`. `--resume`/`-r` takes no value (it opens the picker); unknown
// `--flag value` pairs go to extensions.
const ARGV: ArgvSpec = {
  values: [
    "--mode", "--provider", "--model", "--api-key", "--system-prompt", "--append-system-prompt", "--session", "--fork",
    "--session-dir", "--models", "--tools", "-t", "--thinking", "--export", "--extension", "-e", "--skill",
    "--prompt-template", "--theme",
  ],
  optionalValues: ["--list-models"],
};
// `--session <path|id>` takes a file or a partial UUID, `--fork <path|id>` copies one to a new
// session, `-c` continues the previous one and `-r` opens a picker (0.73.1 `--help`).
const SESSION_PICKS = { named: ["--session"], other: ["--resume", "-r", "--continue", "-c", "--fork"] };
// Read only as the very first argument (dist/package-manager-cli.js); `uninstall` is `remove`.
const SUBCOMMANDS = new Set(["install", "remove", "uninstall", "update", "list", "config"]);

/** The session folder sessionpin gives pi for this working folder, beside pi's own `sessions/` root. */
export function piSessionDir(context: Pick<RunContext, "home" | "cwd">): string {
  return familySessionDir(".pi", context);
}

const data = definePlugin({
  name: "pi",
  names: ["pi"],
  grammar: SESSION_ID,
  json: [SESSION_HEADER],
  // The TUI shows no session ID; the session file in sessionpin's folder captures it.
  text: [],
  resume: ["--session", "{id}"],
  // 0.73.1, for --session and --fork, exit 1:
  //   No session found matching '01a2145e-bf00-73cb-b3e6-000000000000'
  rejected: ["No session found matching '[^'\\n]*'"],
  saysRejected: true,
  turnFailed: [...TURN_FAILED],
  transient: [
    ...PROVIDER_FAILURES,
    // 0.73.1, provider at a closed port: three retries, then `Connection error.` (the OpenAI
    // SDK's APIConnectionError), exit 1, about 20 s after the start; `Request timed out.` is its
    // timeout twin.
    "^(?:Error: )?(?:Connection error\\.|Request timed out\\.)$",
  ],
});

export const pi: AgentPlugin = {
  ...data,
  ...familyArgv({
    name: "pi",
    dot: ".pi",
    spec: ARGV,
    sessionPicks: SESSION_PICKS,
    // `--help, -h`, `--version, -v`, `--list-models [search]` and `--export <file>` ("Export
    // session file to HTML and exit"), 0.73.1 `--help`.
    noConversation: [
      { names: ["-h", "--help", "-v", "--version", "--list-models", "--export"], why: "`pi --help/--version/--list-models/--export` opens no conversation" },
    ],
    unpinned: [{ names: ["--no-session"], why: "`pi --no-session` keeps no session to resume" }],
    protocolModes: ["rpc"],
    subcommands: SUBCOMMANDS,
    subcommandFirst: true,
    // 0.73.1 has no `--`: it reads it as an extension flag named "" that takes the next word.
    separator: false,
  }),
  store: familyStore(".pi"),
  carry: familyCarry(".pi"),
};
