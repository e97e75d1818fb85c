import { join } from "node:path";
import { callerPick, hasOption, positionals, render, tokenize, withoutOptions, withoutPositionals, type ArgvSpec, type Token } from "./argv.js";
import { defineRules } from "./declarative.js";
import type { AgentPlugin } from "./types.js";
import { QUOTED_UUID, UUID, UUID_ONLY, uuidEntry } from "./grammar.js";

/**
 * Kiro CLI (`kiro-cli`, Amazon Q Developer CLI's successor). Facts from ../shared/agents.md,
 * kiro.dev's "CLI commands" and "Session Management" pages, and kirodotdev/Kiro issues #9066
 * (2.5.1: `--resume-id` takes existing IDs only; headless runs print no ID) and #9968 (session
 * files in ~/.kiro/sessions/cli/ carry their `cwd`).
 */


// Session choice: `--resume` (latest in this folder), `--resume-id <id>`, and the picker, which
// blocks the PTY: a warm start replaces them all with `--resume-id <id>`.
const SESSION = ["-r", "--resume", "--resume-id", "--resume-picker"];
const ARGV: ArgvSpec = {
  values: ["--agent", "--model", "--trust-tools", "--resume-id", "--delete-session", "--wrap", "--output-format", "--input-format"],
};

/**
 * Help and version, clap's `-h, --help`, `--help-all` and `-V, --version` (kiro.dev's CLI
 * commands page; not `-v`). Amazon Q's CLI, whose successor Kiro CLI is, has the same (q.ts).
 */
export const HELP_AND_VERSION = ["-h", "--help", "--help-all", "-V", "--version"];

/**
 * `kiro-cli` alone is `kiro-cli chat`; the words after `chat` are its INPUT, the task. Amazon Q's
 * `q` reads its argv alike (q.ts).
 */
export function parseArgs(args: readonly string[]): { tokens: Token[]; command: string | undefined; input: string[] } {
  const tokens = tokenize(args, ARGV);
  const [first, ...rest] = positionals(tokens);
  return first === undefined || first === "chat" ? { tokens, command: "chat", input: rest } : { tokens, command: first, input: [] };
}

export const kiro: AgentPlugin = {
  ...defineRules({
    name: "kiro",
    names: ["kiro-cli"],
    grammar: UUID,
    // `--output-format stream-json` exists since 2.19.2, but its event shapes are (unverified):
    // no JSON rule, so no stream line can be mistaken for the session.
    text: [
      // On exit Kiro prints the session ID with the command that resumes it (Session Management):
      //   kiro-cli chat --resume-id f2946a26-3735-4b08-8d05-c928010302d5
      // A shell-quoted ID (`--resume-id "f2946a26-…"`, as launchers and docs write it) is the same
      // ID; an opening quote without its closing one is not.
      { name: "exit-hint", pattern: `kiro-cli chat --resume-id[ =]${QUOTED_UUID}`, state: "provisional" },
    ],
    // Kiro does not refuse an ID it cannot find: it says so and starts a new session, which
    // would not get the task. Treated as a refusal, so the fresh start carries the prompt.
    // The second form is the Session Management page's troubleshooting text.
    rejected: ["No saved sessions found for this directory", "No saved chat sessions"],
  }),

  // Help and version, and `chat --list-sessions` / `--delete-session <id>` (Session Management).
  noConversation(args) {
    const { tokens, command } = parseArgs(args);
    if (command !== "chat") return `\`kiro-cli ${command}\` is a subcommand, not a conversation`;
    if (hasOption(tokens, ["--list-sessions", "--delete-session", ...HELP_AND_VERSION])) {
      return "`kiro-cli --help/--version/--list-sessions/--delete-session` opens no conversation";
    }
    return undefined;
  },
  // `--resume-id <id>` names the session; `-r/--resume` takes this folder's latest and
  // `--resume-picker` asks (Session Management).
  callerSession: (args) => callerPick(parseArgs(args).tokens, { named: ["--resume-id"], other: ["-r", "--resume", "--resume-picker"] }, UUID_ONLY),

  // Kiro saves every turn to ~/.kiro/sessions/cli/<uuid>.json (issue #9968; the file layout is
  // (unverified) and read from third-party session readers). A file named for the pinned ID
  // confirms it; a new file captures its ID only when its first line is a JSON object whose
  // `cwd` is this folder, so a pretty-printed or differently shaped file captures nothing.
  store: {
    rule: "kiro-sessions",
    where: (context) => [{ dir: join(context.home, ".kiro", "sessions", "cli"), depth: 0 }],
    name: uuidEntry(".json"),
    entryName: (id) => `${id}.json`,
    wholeId: true,
    belongs(head, context) {
      try {
        const meta: unknown = JSON.parse(head.split("\n", 1)[0] ?? "");
        return typeof meta === "object" && meta !== null && (meta as Record<string, unknown>)["cwd"] === context.cwd;
      } catch {
        return false;
      }
    },
  },

  invocation(args) {
    const { tokens, input } = parseArgs(args);
    return { message: input.length > 0 ? input.join(" ") : undefined, oneShot: hasOption(tokens, ["--no-interactive"]) };
  },
  // The TUI gets the prompt typed in; headless `--no-interactive` takes it as INPUT in argv.
  coldArgs(args, prompt) {
    const { tokens, input } = parseArgs(args);
    if (input.length > 0) return { args: [...args], promptVia: "none" };
    if (prompt !== undefined && hasOption(tokens, ["--no-interactive"])) return { args: [...args, prompt], promptVia: "argv" };
    return { args: [...args], promptVia: "pty" };
  },

  // `kiro-cli chat [options] --resume-id <id>`: no INPUT and no other session choice. A headless
  // `--no-interactive` run stays headless; coldArgs adds the INPUT it delivers (Kiro's CLI docs,
  // unverified here).
  warmArgs(args, id) {
    const rest = withoutPositionals(withoutOptions(parseArgs(args).tokens, SESSION));
    return ["chat", ...render(rest), "--resume-id", id];
  },
  // Not carried: its docs say sessions are stored per folder in a local database under ~/.kiro;
  // its own `/save FILE` and `/load FILE` move a conversation by hand. Kiro does not install here.
  carry: { kind: "none", says: "not carried: its sessions are kept per folder in its database under ~/.kiro (per its docs; its own /save and /load move one by hand); Kiro CLI does not install here" },
};
