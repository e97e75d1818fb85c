import { join } from "node:path";
import { callerPick, hasOption, optionValue, positionals, render, tokenize, withoutOptions, type ArgvSpec, type Token } from "./argv.js";
import { defineRules } from "./declarative.js";
import type { AgentPlugin, RunContext } from "./types.js";
import { filesBelow } from "../state/carry-files.js";
import { UUID, UUID_ONLY, uuidEntry } from "./grammar.js";

/**
 * GitHub Copilot CLI. Facts seen from the real `@github/copilot` 1.0.102 (test/interop/copilot.interop.ts,
 * fixtures/copilot/README.md), the rest from GitHub's "Copilot CLI command reference" and
 * github/copilot-cli issues #3377, #3406 and #829.
 */


// The task prompt: `-p` runs it and exits, `-i` opens the TUI and runs it.
const PROMPT = ["-p", "--prompt", "-i", "--interactive"];
// `-p` alone: the one-shot mode, which a warm start keeps (see warmArgs).
const ONE_SHOT = ["-p", "--prompt"];
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
    "--auto-tier", "--mcp-github-auth", "--usage-output-file", "--environment-host", "--environment-compute-id",
    "--dynamic-retrieval",
  ],
  optionalValues: ["-r", "--resume", "--connect", "-w", "--worktree", "--mouse", "--share", "--bash-env"],
};

/** `$COPILOT_HOME/session-state` (default ~/.copilot): one folder per session, for every working folder. */
const sessionState = (context: RunContext): string => join(context.env["COPILOT_HOME"] ?? join(context.home, ".copilot"), "session-state");

// An empty `-p ""` on a warm start of a one-shot run: the slot coldArgs fills with the run's new
// message or `--resume-prompt` (sessionpin does not start a one-shot run with neither).
// Copilot 1.0.102 treats an empty -p as no -p (in a terminal it opens the TUI on the session).
const isEmptyPrompt = (token: Token): boolean => token.kind === "option" && ONE_SHOT.includes(token.name) && token.value === "";

export const copilot: AgentPlugin = {
  ...defineRules({
    name: "copilot",
    names: ["copilot"],
    // Names are accepted by `--resume` too, but only a UUID is pinned.
    grammar: UUID,
    json: [
      // `copilot -p … --output-format json` (1.0.102) prints no `session.start` on stdout (that
      // event is only the first line of session-state/<uuid>/events.jsonl): the stream starts with
      // `session.skills_loaded`, and only its last line, {"type":"result","sessionId":…,"exitCode":…},
      // names the session. Copilot prints it after a failed turn too (exitCode 1, HTTP 401), and the
      // session is on disk by then: confirmed.
      { name: "result", field: "sessionId", when: { type: ["result"] }, state: "confirmed" },
      // session-state/<uuid>/events.jsonl given to `sessionpin replay`: its first line (1.0.102)
      //   {"type":"session.start","data":{"sessionId":…,"copilotVersion":"1.0.102",…,"context":{"cwd":…}},…}
      // is the stored session itself: confirmed. Never printed on stdout; a `subagent.started`
      // `data.sessionId` is another session's.
      { name: "session-start", field: "data.sessionId", when: { type: ["session.start"] }, state: "confirmed" },
    ],
    text: [
      // The usage table Copilot 1.0.102 prints on exit: the TUI after SIGINT or /exit (the logo
      // beside it), and `-p` in text mode (no logo). At agentapi's 67 columns the TUI wraps the
      // command after `copilot`; the core joins the two rows with a space:
      //     ╭─╮╭─╮   Changes    +0 -0
      //     ╰─╯╰─╯   Duration   4s
      //     █ ▘▝ █   Tokens     ↑ 12 • ↓ 6
      //      ▔▔▔▔    Resume     copilot
      //              --resume=29059275-d263-48ba-babc-19d0a8d14e76
      // Anchored on the row's layout: nothing before the `Resume` label but the logo (its glyphs
      // change with the row: without a Tokens row, Resume is beside `█ ▘▝ █`), the padding of the
      // label column, and the ID ending the row. Chat text that quotes `copilot --resume=<uuid>` is
      // not taken, nor is a user's message shaped like the row (the TUI shows it after `❯ `).
      { name: "exit-hint", pattern: `^[\\s╭╮╰╯─█▘▝▔]*Resume {2,}copilot --resume=(?<id>${UUID})\\s*$`, state: "provisional" },
      // Before the table (0.0.405, github/copilot-cli#1342), the usage summary ended with one line,
      // at column 0 or indented with the summary above it:
      //   Resume this session with copilot --resume=<uuid>
      // At 67 columns it is wider than the row and breaks between words, the command on the next
      // row (indented or not; the core joins the rows with a space). The line must hold nothing
      // after the ID: a sentence quoting it (`You'll see: Resume this session with …`) is not taken.
      { name: "exit-hint", pattern: `^\\s*Resume this session with copilot --resume=(?<id>${UUID})\\s*$`, state: "provisional" },
    ],
    // Copilot >= 1.0.49 refuses an unknown ID instead of opening a new session (issue #3377);
    // 1.0.102, in the TUI and with -p: `Error: No session, task, or name matched '<id>'.`, exit 1.
    rejected: ["No session, task, or name matched"],
    saysRejected: true,
    transient: [
      // 1.0.102 without a provider or a GitHub login: `Error: No authentication information found.`, exit 1.
      "No authentication information found",
      // 1.0.102 with COPILOT_OFFLINE=true and no COPILOT_PROVIDER_BASE_URL, after `Resuming session…`
      // (TUI and -p): `Offline mode requires a local model provider. Set COPILOT_PROVIDER_BASE_URL …`, exit 1.
      "Offline mode requires a local model provider",
      // 1.0.102, provider at a closed port (-p, after ~23 s of "Response was interrupted due to a
      // server error. Retrying..."): `Could not connect to local model provider at <url>.`, exit 1.
      "Could not connect to (?:local )?model provider",
      // 1.0.102, provider answering 401: `Authentication failed with provider at <url> (HTTP 401).`, exit 1.
      "Authentication failed with provider",
      // An expired or missing GitHub login says nothing about the session (issue #829; not seen offline).
      "you may need to run /login",
    ],
  }),

  // Copilot takes no positional prompt (`copilot [OPTIONS] [COMMAND]`): every word is a command.
  // `-h, --help` and `-v, --version` (1.0.102 `--help`).
  noConversation(args) {
    const tokens = tokenize(args, ARGV);
    const command = positionals(tokens);
    if (command.length > 0) return `\`copilot ${command.join(" ")}\` is a subcommand, not a conversation`;
    return hasOption(tokens, ["-h", "--help", "-v", "--version"]) ? "`copilot --help/--version` opens no conversation" : undefined;
  },
  unpinned(args) {
    const tokens = tokenize(args, ARGV);
    if (hasOption(tokens, ["--acp"])) return "`copilot --acp` serves an Agent Client Protocol client, which owns its sessions";
    if (hasOption(tokens, ["--connect"])) return "`copilot --connect` attaches to a remote session, which has no local ID to pin";
    return undefined;
  },
  // `-r, --resume [<value>]` takes a session ID, a task ID, an ID prefix or a name (1.0.102
  // `--help`): only a whole UUID names the session. `--continue` resumes the most recent one.
  callerSession(args) {
    return callerPick(tokenize(args, ARGV), { named: ["-r", "--resume"], other: ["--continue"] }, UUID_ONLY);
  },

  // `--session-id <uuid>` creates a new session with that exact ID; 1.0.102 takes it in the TUI
  // and with -p alike (and the JSON `result` and session-state/<uuid>/ then carry it). Builds
  // before 1.0.51 lack the option; COPILOT_AUTO_UPDATE=false / --no-auto-update pin a build.
  chooseId(args, fresh) {
    const tokens = tokenize(args, ARGV);
    const own = optionValue(tokens, ["--session-id"]);
    if (own !== undefined) return UUID_ONLY.test(own) ? { id: own, args: [...args] } : undefined;
    // The command already picks its session (or names a new one): leave the choice to it.
    if (hasOption(tokens, SESSION)) return undefined;
    return { id: fresh, args: [...args, `--session-id=${fresh}`] };
  },

  store: {
    rule: "session-state",
    where: (context) => [{ dir: join(context.env["COPILOT_HOME"] ?? join(context.home, ".copilot"), "session-state"), depth: 0 }],
    movedBy: ["--config-dir"],
    name: uuidEntry(),
    entryName: (id) => id,
    wholeId: true,
    inner: "events.jsonl",
    // One store for every folder. 1.0.102 makes `<uuid>/` when the session starts (the TUI before
    // any message; also after /clear) and writes `events.jsonl` into it soon after (not always by
    // the first poll; `belongs` is asked again), whose first line is
    //   {"type":"session.start","data":{"sessionId":…,"context":{"cwd":"/the/cwd"},…},…}
    // so a session that appears while Copilot runs is this cwd's when that cwd is ours.
    belongs(head, context) {
      const end = head.indexOf("\n");
      const first = end < 0 ? head : head.slice(0, end);
      let event: unknown;
      try {
        event = JSON.parse(first);
      } catch {
        return false; // cut short, or not Copilot's
      }
      if (typeof event !== "object" || event === null) return false;
      const { type, data } = event as { type?: unknown; data?: { context?: { cwd?: unknown } } };
      return type === "session.start" && data?.context?.cwd === context.cwd;
    },
  },
  // 1.0.102 resumes a session-state/<id>/ folder whatever folder its session.start names, and
  // logs a `session.resume` event naming the folder it now runs in (test/interop/carry.interop.ts).
  // The whole folder travels (events.jsonl, workspace.yaml, checkpoints, files), its lock files
  // not; `"cwd":"/old"` in events.jsonl becomes the new folder (workspace.yaml's YAML is left as
  // it is: 1.0.102 leaves it too, after a resume elsewhere).
  carry: {
    kind: "files",
    says: "its session-state/<id>/ folder (events.jsonl, workspace.yaml, checkpoints), lock files left out; the folder's path in events.jsonl rewritten",
    root: (context) => sessionState(context),
    files: (id, root, _entry, look) => filesBelow(look, root, id, (path) => !path.endsWith(".lock")).map((path) => (path === `${id}/events.jsonl` ? { path, transcript: true } : { path })),
    owns: (path, id) => path.startsWith(`${id}/`) && !path.endsWith(".lock"),
    folderNames: (cwd) => [cwd],
  },

  invocation(args) {
    const tokens = tokenize(args, ARGV);
    return { message: optionValue(tokens, PROMPT) || undefined, oneShot: hasOption(tokens, ONE_SHOT) };
  },
  coldArgs(args, prompt) {
    const tokens = tokenize(args, ARGV);
    // A warm start of a one-shot run left an empty `-p ""` for the message it delivers (warmArgs).
    if (prompt !== undefined && tokens.some(isEmptyPrompt)) {
      return { args: render(tokens.map((t) => (isEmptyPrompt(t) ? { kind: "option", name: "-p", value: prompt, words: ["-p", prompt] } : t))), promptVia: "argv" };
    }
    // The command's own -p/-i prompt wins; otherwise the prompt is typed into the TUI.
    return { args: [...args], promptVia: hasOption(tokens, PROMPT) ? "none" : "pty" };
  },

  // `copilot [options] --resume=<id>`: without its prompt, and without `--attachment`, which
  // belongs to that prompt. The `=` form keeps the ID from being read as anything else. A
  // one-shot run (`-p MSG`) keeps `-p ""`: the run's new message (or `--resume-prompt`) goes
  // there, so the warm start is `copilot -p MSG --resume=<id>` (headless resume, 1.0.102,
  // test/interop/copilot.interop.ts). Left empty, 1.0.102 would take it as none and open the TUI.
  warmArgs(args, id) {
    const tokens = tokenize(args, ARGV);
    const rest = withoutOptions(tokens, [...PROMPT, ...SESSION, "--attachment"]);
    return [...render(rest), `--resume=${id}`, ...(hasOption(tokens, ONE_SHOT) ? ["-p", ""] : [])];
  },
};
