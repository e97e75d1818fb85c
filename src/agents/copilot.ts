import { join } from "node:path";
import { hasOption, optionValue, positionals, render, tokenize, withoutOptions, type ArgvSpec } from "./argv.js";
import { definePlugin } from "./declarative.js";
import type { AgentPlugin } from "./types.js";

/**
 * GitHub Copilot CLI. Facts from ../shared/agents.md, GitHub's "Copilot CLI command reference"
 * (docs.github.com) and github/copilot-cli issues #3377, #3406, #4107 and #829.
 */

const UUID = "[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}";

// The task prompt: `-p` runs it and exits, `-i` opens the TUI and runs it.
const PROMPT = ["-p", "--prompt", "-i", "--interactive"];
// Options that pick or start a session; a warm start replaces them with `--resume=<id>`.
// `--name` and `--worktree` conflict with `--resume` (issue #3406, command reference).
const SESSION = ["-r", "--resume", "--continue", "--session-id", "--name", "-n", "-w", "--worktree"];
const ARGV: ArgvSpec = {
  values: [
    ...PROMPT, "--session-id", "-n", "--name", "-C", "--add-dir", "--additional-mcp-config", "--agent",
    "--allow-tool", "--allow-url", "--attachment", "--available-tools", "--config-dir", "--context",
    "--deny-tool", "--deny-url", "--disable-mcp-server", "--effort", "--reasoning-effort",
    "--enable-mcp-server", "--excluded-tools", "--extension-sdk-path", "--log-dir", "--log-level",
    "--max-ai-credits", "--max-autopilot-continues", "--mode", "--model", "--output-format",
    "--plugin-dir", "--secret-env-vars", "--stream", "--add-github-mcp-tool", "--add-github-mcp-toolset",
  ],
  optionalValues: ["-r", "--resume", "--connect", "-w", "--worktree", "--mouse", "--share"],
};

export const copilot: AgentPlugin = {
  ...definePlugin({
    name: "copilot",
    names: ["copilot"],
    // Names are accepted by `--resume` too, but only a UUID is pinned.
    grammar: UUID,
    json: [
      // `copilot -p … --output-format json`: the first line is {"type":"session.start","data":{"sessionId":…}}.
      { name: "session-start", field: "data.sessionId", when: { type: ["session.start"] }, state: "provisional" },
      // The terminal `result` event (issue #4107) ends a completed run; its `sessionId` field is
      // (unverified): if it is named otherwise this rule never fires and the store confirms instead.
      { name: "result", field: "sessionId", when: { type: ["result"] }, state: "confirmed" },
    ],
    text: [
      // The TUI on exit (the -p text summary carries the same command; its label is unverified):
      //   Resume this session with:
      //     copilot --resume=4fe844d2-7ac7-4fb8-98fa-f2efd092a0c7
      // Anchored on the label: chat text quoting a `copilot --resume=…` command is not taken. The
      // two rows are matched as one (blank rows between them are skipped), as is a row wrapped at 67.
      { name: "exit-hint", pattern: `Resume this session with:\\s*copilot --resume=(?<id>${UUID})`, state: "provisional" },
    ],
    resume: ["{args}", "--resume={id}"],
    // Copilot >= 1.0.49 refuses an unknown ID instead of opening a new session (issue #3377).
    rejected: ["No session, task, or name matched"],
    // An expired or missing login says nothing about the session (issue #829).
    transient: ["you may need to run /login"],
  }),

  passthrough(args) {
    const tokens = tokenize(args, ARGV);
    const command = positionals(tokens);
    if (command.length > 0) return `\`copilot ${command.join(" ")}\` is a subcommand, not a conversation`;
    if (hasOption(tokens, ["--acp", "-h", "--help", "-v", "--version"])) return "copilot is not starting a conversation here";
    if (hasOption(tokens, ["--connect"])) return "`copilot --connect` attaches to a remote session, which has no local ID to pin";
    return undefined;
  },

  // `--session-id <uuid>` (Copilot >= 1.0.51, command reference) creates a new session with that
  // exact ID, so no parsing is needed. Builds before 1.0.51 lack the option (they would reject
  // it as unknown); Copilot updates itself by default (`--no-auto-update` opts out).
  chooseId(args, fresh) {
    const tokens = tokenize(args, ARGV);
    const own = optionValue(tokens, ["--session-id"]);
    if (own !== undefined) return new RegExp(`^${UUID}$`).test(own) ? { id: own, args: [...args] } : undefined;
    // The command already picks its session (or names a new one): leave the choice to it.
    if (hasOption(tokens, SESSION)) return undefined;
    return { id: fresh, args: [...args, `--session-id=${fresh}`] };
  },

  store: {
    rule: "session-state",
    where: (context) => [{ dir: join(context.env["COPILOT_HOME"] ?? join(context.home, ".copilot"), "session-state"), depth: 0 }],
    name: new RegExp(`^(?<id>${UUID})$`),
    wholeId: true,
    // The store is shared by every folder and each entry is a folder (`<uuid>/events.jsonl`),
    // so the entry's own first line says nothing about its cwd: this store only confirms.
    belongs: () => false,
  },

  coldArgs(args) {
    // The command's own -p/-i prompt wins; otherwise the prompt is typed into the TUI.
    return { args: [...args], promptVia: hasOption(tokenize(args, ARGV), PROMPT) ? "none" : "pty" };
  },

  // `copilot [options] --resume=<id>`: without its prompt, and without `--attachment`, which
  // belongs to that prompt. The `=` form keeps the ID from being read as anything else.
  warmArgs(args, id) {
    const rest = withoutOptions(tokenize(args, ARGV), [...PROMPT, ...SESSION, "--attachment"]);
    return [...render(rest), `--resume=${id}`];
  },
};
