import { homedir } from "node:os";
import { join } from "node:path";
import { hasOption, optionValue, positionals, render, tokenize, withoutOptions, type ArgvSpec, type Token } from "./argv.js";
import { definePlugin } from "./declarative.js";
import type { AgentPlugin, RunContext } from "./types.js";

/**
 * omp (oh-my-pi). Facts from ../shared/agents.md and the source of @oh-my-pi/pi-coding-agent
 * 18.3.4 (its argv tables, session manager and `--mode json` writer).
 *
 * Chosen up front by folder: sessionpin gives omp a session folder of its own, so the only
 * sessions that appear there are ones sessionpin started, and resumes with `--session <id>`
 * (never `-c`, which takes whichever session is newest: two writers on one file).
 */

// 18.3.4 mints UUIDv7 session IDs; older builds minted 21-character nanoids. A leading `-` is
// refused: omp would read `--session -abc…` as a bare `--session` and open its picker.
const SESSION_ID = "(?:[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}|[A-Za-z0-9_][A-Za-z0-9_-]{20})";

// 18.3.4's flag tables: options with a value, and `--resume`/`-r`/`--session` whose value is optional.
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
// What omp itself drops when it relaunches into a session (its `/restart`): the session pickers.
const SESSION_PICKS = ["--resume", "-r", "--session", "--continue", "-c", "--fork", "--from-claude", "--from-codex"];
const PROTOCOL_MODES = ["rpc", "rpc-ui", "acp"];
// 18.3.4's top-level commands (and aliases): a first word among them is no prompt.
const SUBCOMMANDS = new Set([
  "acp", "auth-broker", "auth-gateway", "agents", "bench", "browser-relay", "cleanse", "collab", "commit", "completions",
  "__complete", "compress", "config", "dry-balance", "find", "gc", "grep", "gallery", "git", "grievances", "images", "img",
  "if-bench", "install", "join", "login", "models", "plugin", "plugins", "predict", "ps", "say", "clip", "play", "share",
  "setup", "shell", "read", "render", "skill", "skills", "ssh", "stats", "stream", "update", "usage", "tiny-models",
  "token", "toks", "ttsr", "worktree", "wt", "search", "q", "web-search", "help",
]);

/**
 * The session folder sessionpin gives omp for this working folder. The pointer's own location is
 * not known to plugins; the home folder and the working folder are, and the pointer is already
 * kept per working folder. Outside omp's `sessions/` root, so omp's own pickers and moves never
 * mix these sessions with the user's.
 */
export function ompSessionDir(context: Pick<RunContext, "home" | "cwd">): string {
  const encoded = context.cwd.replace(/^[/\\]+/, "").replace(/[/\\:]/g, "-");
  return join(context.home, ".omp", "agent", "sessionpin", `--${encoded}--`);
}

// argv rewriting gets no RunContext (a core gap): the same home and cwd the core builds it from.
const here = (): Pick<RunContext, "home" | "cwd"> => ({ home: process.env["HOME"] ?? homedir(), cwd: process.cwd() });

function parse(args: readonly string[]) {
  const tokens = tokenize(args, ARGV);
  const words = positionals(tokens);
  // `omp launch …` is the explicit form of a plain start; `@file` words attach files to the prompt.
  const command = words[0] === "launch" ? undefined : words[0];
  const messages = words.slice(words[0] === "launch" ? 1 : 0).filter((word) => !word.startsWith("@"));
  return { tokens, command, messages };
}

/** The user's own `--session-dir`, else the one sessionpin gives omp. */
function sessionDir(tokens: readonly Token[]): string {
  return optionValue(tokens, ["--session-dir"]) ?? ompSessionDir(here());
}

const data = definePlugin({
  name: "omp",
  names: ["omp"],
  grammar: SESSION_ID,
  // `omp --mode json`, line 1 is the session header `{"type":"session","version":3,"id":…,"cwd":…}`;
  // its `parentSession` and every entry's 8-character `id`/`parentId` are never read. Provisional:
  // omp writes the session file only once the first assistant message exists.
  json: [{ name: "session-header", field: "id", when: { type: ["session"] }, state: "provisional" }],
  // The TUI shows no session ID that is documented; the session folder captures it.
  text: [],
  resume: ["--session", "{id}"],
  // `Session "<arg>" not found.` for --resume/--session/--fork.
  rejected: ['Session "[^"\\n]*" not found\\.'],
  transient: [],
});

export const omp: AgentPlugin = {
  ...data,
  passthrough(args) {
    const { tokens, command } = parse(args);
    if (hasOption(tokens, ["-h", "--help", "-v", "--version"])) return "`omp --help/--version` starts no conversation";
    if (command !== undefined && SUBCOMMANDS.has(command)) return `\`omp ${command}\` is a subcommand, not a conversation`;
    if (hasOption(tokens, ["--no-session"])) return "`omp --no-session` keeps no session to resume";
    const mode = optionValue(tokens, ["--mode"]);
    if (mode !== undefined && PROTOCOL_MODES.includes(mode)) return `\`omp --mode ${mode}\` is driven by its client, which owns the session`;
    if (hasOption(tokens, ["--resume", "-r", "--session", "--fork"])) return "the command already names the omp session to open";
    return undefined;
  },
  // `omp --session-dir <dir> [args…] [prompt]`: first, so a `--` in the user's args cannot swallow it.
  // `-c` goes: in a shared folder it would continue whichever session is newest, maybe one another
  // sessionpin run is writing.
  coldArgs(args, prompt) {
    const { tokens, messages } = parse(args);
    const rest = render(withoutOptions(tokens, ["-c", "--continue"]));
    const own = hasOption(tokens, ["--session-dir"]) ? rest : ["--session-dir", sessionDir(tokens), ...rest];
    if (prompt === undefined) return { args: own, promptVia: "pty" };
    if (messages.length > 0) return { args: own, promptVia: "none" };
    // omp sends its positional messages as the first prompt, in the TUI and in print/json modes.
    const separated = tokens.some((t) => t.kind === "separator") || !prompt.startsWith("-");
    return { args: [...own, ...(separated ? [] : ["--"]), prompt], promptVia: "argv" };
  },
  // `omp [options] --session-dir <dir> --session <id>`: no prompt, no `@file`, no other session pick.
  warmArgs(args, id) {
    const { tokens } = parse(args);
    const options = render(withoutOptions(tokens, [...SESSION_PICKS, "--session-dir"]).filter((t) => t.kind === "option"));
    return [...options, "--session-dir", sessionDir(tokens), "--session", id];
  },
  store: {
    rule: "session-file",
    where: (context) => [{ dir: ompSessionDir(context), depth: 0 }],
    // `<ISO timestamp with : and . as ->_<id>.jsonl`, written after the first assistant message.
    name: new RegExp(`^\\d{4}-\\d{2}-\\d{2}T\\d{2}-\\d{2}-\\d{2}-\\d{3}Z_(?<id>${SESSION_ID})\\.jsonl$`),
    wholeId: true,
    belongs(head, context) {
      try {
        const header = JSON.parse(head.split("\n", 1)[0] ?? "") as Record<string, unknown>;
        return header["type"] === "session" && header["cwd"] === context.cwd;
      } catch {
        return false;
      }
    },
  },
};
