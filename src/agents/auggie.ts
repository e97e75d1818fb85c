import { hasOption, positionals, render, tokenize, withoutOptions, withoutPositionals, type ArgvSpec } from "./argv.js";
import { definePlugin } from "./declarative.js";
import type { AgentPlugin } from "./types.js";

/**
 * Augment's Auggie CLI. Facts from ../shared/agents.md, Auggie's CHANGELOG (0.4.0, 0.5.x, 0.10.0,
 * 0.13.0) and Coder's Auggie module (`auggie … --instruction "$PROMPT" --workspace-root DIR`).
 * Auggie keeps its sessions on its server and documents no local store and no ID in its JSON
 * output, so the only capture is the ID it shows when a session closes.
 */

// Auggie's ID grammar is (unverified): a UUID is assumed, so any other shape is never pinned.
const UUID = "[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}";

// The task: `--instruction` (Coder's module), 0.4.0's `-i/--input` and `-if/--input-file`, and a
// custom command run as the task (`--command`/`-cm`, 0.4.0).
const PROMPT = ["--instruction", "--instruction-file", "-i", "--input", "-if", "--input-file", "--command", "-cm"];
// Print modes run one instruction and exit; a resume without the instruction opens the TUI instead.
const PRINT = ["--print", "-p", "--quiet", "-q"];
const SESSION = ["--resume", "--continue", "-c"];
const ARGV: ArgvSpec = {
  values: [
    ...PROMPT, "-m", "--model", "--mcp-config", "--rules", "--workspace-root", "--permission", "--max-turns",
    "--output-format", "--image", "--disable-tool", "--shell", "--startup-script", "--log-file",
  ],
  // `--resume` alone opens a session picker (0.5.8).
  optionalValues: ["--resume"],
};
// Subcommands (CHANGELOG); any other positional word is the task (`auggie "fix the bug"`).
const COMMANDS = ["session", "mcp", "login", "logout", "rules", "model", "tokens", "upgrade", "help", "version"];

export const auggie: AgentPlugin = {
  ...definePlugin({
    name: "auggie",
    names: ["auggie"],
    grammar: UUID,
    text: [
      // Auggie >= 0.10.0 shows the session ID with a command to resume it when a session closes.
      // The exact text is (unverified); anchored on the command, in the spellings it may take:
      //   auggie --resume 0f3c2a9e-5b7d-4e21-9c4a-8d6f1e2b3a40
      //   auggie session resume 0f3c2a9e-5b7d-4e21-9c4a-8d6f1e2b3a40
      // A prefix or any non-UUID form is not pinned (no capture rather than a wrong ID).
      { name: "exit-resume-hint", pattern: `auggie (?:--resume[ =]|session resume )(?<id>${UUID})`, state: "provisional" },
    ],
    resume: ["{args}", "--resume", "{id}"],
    // No rejection text is documented: a failing exit within the fallback window still counts.
    rejected: [],
    // A missing login says nothing about the session.
    transient: ["You are not currently logged in to Augment"],
  }),

  passthrough(args) {
    const tokens = tokenize(args, ARGV);
    const first = positionals(tokens)[0];
    if (first !== undefined && COMMANDS.includes(first)) return `\`auggie ${first}\` is a subcommand, not a conversation`;
    if (hasOption(tokens, ["--acp", "--mcp", "-h", "--help", "-v", "--version"])) return "auggie is not starting a conversation here";
    return undefined;
  },

  // Coder's module passes the task as `--instruction`; the TUI runs it at once.
  coldArgs(args, prompt) {
    const tokens = tokenize(args, ARGV);
    if (hasOption(tokens, PROMPT) || positionals(tokens).length > 0) return { args: [...args], promptVia: "none" };
    if (prompt === undefined) return { args: [...args], promptVia: "pty" };
    return { args: [...args, "--instruction", prompt], promptVia: "argv" };
  },

  // `auggie [options] --resume <id>`, never with the task again: Coder's module re-sent
  // `--instruction` beside `--continue`, which appends the task to the resumed session.
  warmArgs(args, id) {
    const rest = withoutPositionals(withoutOptions(tokenize(args, ARGV), [...PROMPT, ...PRINT, ...SESSION]));
    return [...render(rest), "--resume", id];
  },
};
