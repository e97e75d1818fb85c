import { join } from "node:path";
import { hasOption, positionals, render, tokenize, withoutOptions, type ArgvSpec, type Token } from "./argv.js";
import { defineRules } from "./declarative.js";
import type { AgentPlugin, RunContext } from "./types.js";
import { literal } from "../state/carry-files.js";
import { UUID } from "./grammar.js";

/**
 * OpenAI Codex CLI. Facts from ../shared/agents.md and Codex 0.169 run here: its `--help`, the
 * `exec --json` stream, the stderr banner, the rollout store and its error texts.
 */


// Options of `codex` and `codex exec` that take a value (0.169 `--help`), so their values are
// never read as the prompt or as a subcommand.
const ARGV: ArgvSpec = {
  values: [
    "-c", "--config", "--enable", "--disable", "--remote", "--remote-auth-token-env", "-i", "--image", "-m", "--model",
    "--local-provider", "-p", "--profile", "-s", "--sandbox", "-C", "--cd", "--add-dir", "-a", "--ask-for-approval",
    "--thread-source", "--cyber-access-program", "--output-schema", "--color", "-o", "--output-last-message",
  ],
};
// `-i/--image` attaches images to the initial prompt (0.169 `--help`): they go with it on a warm start.
const IMAGE = ["-i", "--image"];
const EXEC = ["exec", "e"];
// `codex resume|fork …` and `codex exec resume|fork …` open a saved session.
const OWN_SESSION = ["resume", "fork"];
// 0.169's other commands (aliases too): none opens a conversation. `review` runs a review of its
// own and exits; `help` prints help.
const NO_CONVERSATION = new Set([
  "agents", "review", "login", "logout", "mcp", "mcp-server", "plugin", "app-server", "remote-control", "completion",
  "update", "doctor", "sandbox", "debug", "apply", "a", "queue", "archive", "delete", "migrate-rollouts",
  "migrate-nfs-db", "unarchive", "cloud", "exec-server", "features", "help",
]);
const COMMANDS = new Set([...EXEC, ...OWN_SESSION, ...NO_CONVERSATION]);
// `codex exec`'s commands (0.169 `codex exec --help`).
const EXEC_COMMANDS = new Set([...OWN_SESSION, "review", "help"]);

/** A command among positional words, with the words before and after it. */
interface Split {
  readonly before: string[];
  readonly command: string | undefined;
  readonly after: string[];
}

/**
 * Where clap finds a command among `words`, of which the first `free` come before any `--`:
 * first, or right after the one-word `[PROMPT]` (0.169 runs `codex "hi" login` as `login`, and
 * `codex exec "next step" resume --last` as a resume).
 */
function split(words: readonly string[], free: number, commands: ReadonlySet<string>): Split {
  for (const at of [0, 1]) {
    const word = words[at];
    if (at < free && word !== undefined && commands.has(word)) return { before: words.slice(0, at), command: word, after: words.slice(at + 1) };
  }
  return { before: [...words], command: undefined, after: [] };
}

interface CodexArgs {
  readonly tokens: Token[];
  readonly exec: boolean;
  /** `resume`, `fork`, or another command (`login`; `exec review`), else undefined. */
  readonly command: string | undefined;
  /** What `resume|fork` opens: the session ID or name, or undefined (`--last`, a picker). */
  readonly target: string | undefined;
  /** The prompt text itself, without a session's `resume <id>` (a warm start given a message). */
  readonly message: string[];
}

function parse(args: readonly string[]): CodexArgs {
  const tokens = tokenize(args, ARGV);
  const words = positionals(tokens);
  // After `--` every word is prompt text, even `exec`.
  const separator = tokens.findIndex((t) => t.kind === "separator");
  const free = separator < 0 ? words.length : positionals(tokens.slice(0, separator)).length;
  const top = split(words, free, COMMANDS);
  const exec = top.command !== undefined && EXEC.includes(top.command);
  const own = exec ? split(top.after, free - top.before.length - 1, EXEC_COMMANDS) : top;
  const lead = exec ? [...top.before, ...own.before] : own.before;
  if (own.command === undefined || !OWN_SESSION.includes(own.command)) {
    return { tokens, exec, command: own.command, target: undefined, message: own.command === undefined ? lead : [] };
  }
  // `[SESSION_ID] [PROMPT]`; with `--last` the first word is the prompt (Codex's own exec docs:
  // `codex exec resume --last "next prompt"`).
  const last = hasOption(tokens, ["--last"]);
  const target = last ? undefined : own.after[0];
  return { tokens, exec, command: own.command, target, message: [...lead, ...own.after.slice(last ? 0 : 1)] };
}

/** The prompt is `-`: Codex reads it from stdin. */
const fromStdin = (message: readonly string[]): boolean => message.length === 1 && message[0] === "-";

/** `$CODEX_HOME/sessions` (default ~/.codex), where Codex files its rollouts by local date. */
const sessionsRoot = (context: RunContext): string => join(context.env["CODEX_HOME"] || join(context.home, ".codex"), "sessions");
const dayFolder = (root: string, day: Date): string =>
  join(root, String(day.getFullYear()), String(day.getMonth() + 1).padStart(2, "0"), String(day.getDate()).padStart(2, "0"));
const DAY_MS = 86_400_000;
// Codex 0.169 mints its thread IDs as UUIDv7 (`01a20545-5996-7863-…`): the first 48 bits are the
// Unix milliseconds of the thread's start, when its rollout is filed.
const V7 = /^([0-9a-f]{8})-([0-9a-f]{4})-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

/** When a UUIDv7 was minted, in Unix milliseconds; undefined for other IDs. */
export function uuidV7Time(id: string): number | undefined {
  const match = V7.exec(id);
  return match === null ? undefined : Number.parseInt(`${match[1]}${match[2]}`, 16);
}

const data = defineRules({
  name: "codex",
  names: ["codex"],
  grammar: UUID,
  // `codex exec --json`, line 1. Provisional: Codex writes no rollout for a thread that ran no turn.
  // `turn.completed` carries no thread ID, so the rollout appearing on disk confirms instead.
  json: [{ name: "thread-started", field: "thread_id", when: { type: ["thread.started"] }, state: "provisional" }],
  text: [
    // `codex exec` without --json, its stderr banner (0.169):
    //   --------
    //   workdir: /home/coder/project
    //   session id: 01a20545-5996-7863-a8f4-d1c1428601d6
    //   --------
    { name: "session-banner", pattern: `^session id: (?<id>${UUID})`, state: "provisional" },
    // The TUI's goodbye, printed only once tokens were used (so a turn ran and its rollout exists).
    // 0.169 puts the command on a row of its own (seen with the real CLI, test/interop):
    //   To continue this session, run:
    //     codex resume 01a20545-5996-7863-a8f4-d1c1428601d6
    // and older builds on one row, which agentapi's 67 columns wrap. The Extractor joins the rows.
    // After `/rename` Codex prints the thread's name there: the grammar refuses it.
    { name: "exit-hint", pattern: `^To continue this session, run:?\\s+codex resume\\s+(?<id>${UUID})`, state: "confirmed" },
    // The `/status` card; its `Forked from:` row names the parent and is never taken:
    //   │  Session:                   01a20545-5996-7863-a8f4-d1c1428601d6     │
    { name: "status-session", pattern: `^[\\s│|]*Session:\\s+(?<id>${UUID})`, state: "provisional" },
  ],
  rejected: [
    "No saved session found with ID", // TUI: `ERROR: No saved session found with ID <id>.`, exit 1
    "no rollout found for thread id", // exec: `thread/resume failed: no rollout found for thread id <id>`
    "thread not loaded",
  ],
  saysRejected: true,
  // Codex 0.169 refuses `codex exec` without a prompt in a terminal (exit 1) before it looks at the
  // thread: that says nothing about the ID. sessionpin's own warm exec starts always carry a message
  // (a follow-up or the resume prompt; with neither the run is a repeat and Codex is not started).
  transient: ["No prompt provided\\. Either specify one as an argument or pipe the prompt into stdin"],
});

export const codex: AgentPlugin = {
  ...data,
  // `-h, --help` and `-V, --version` (0.169, every command).
  noConversation(args) {
    const { tokens, exec, command } = parse(args);
    if (hasOption(tokens, ["-h", "--help", "-V", "--version"])) return "`codex --help/--version` opens no conversation";
    if (command === undefined || OWN_SESSION.includes(command)) return undefined;
    return `\`codex ${exec ? "exec " : ""}${command}\` is a subcommand, not a conversation`;
  },
  // `exec --ephemeral`: "Run without persisting session files to disk" (0.169 `codex exec --help`).
  unpinned: (args) => (hasOption(parse(args).tokens, ["--ephemeral"]) ? "--ephemeral: Codex saves no session that could be resumed" : undefined),
  // `codex [exec] resume <SESSION_ID>` takes a UUID or a thread name ("UUIDs take precedence",
  // 0.169 `--help`): only a UUID names the session. A fork opens a new one.
  callerSession(args) {
    const { tokens, exec, command, target } = parse(args);
    if (command === undefined || !OWN_SESSION.includes(command)) return undefined;
    const via = [...(exec ? ["exec"] : []), command, ...(hasOption(tokens, ["--last"]) ? ["--last"] : target === undefined ? [] : [target])].join(" ");
    return command === "resume" && target !== undefined && data.grammar.test(target) ? { id: target, via } : { via };
  },
  // `codex exec … -` carries no message: 0.169 reads its prompt from stdin ("-" or none, `codex
  // exec --help`). Taken for the message, "-" made every later call a repeat (exit 4, the piped
  // message never delivered; test/interop/pipes-1.interop.ts).
  invocation(args) {
    const { exec, message } = parse(args);
    return { message: message.length > 0 && !fromStdin(message) ? message.join(" ") : undefined, oneShot: exec };
  },
  coldArgs(args, prompt) {
    const parsed = parse(args);
    if (prompt === undefined) return { args: [...args], promptVia: "pty" };
    // The message sessionpin read from stdin (no terminal) goes where Codex would have read it.
    const dash = fromStdin(parsed.message);
    if (parsed.message.length > 0 && !dash) return { args: [...args], promptVia: "none" };
    const rest = dash ? render(parsed.tokens.filter((t) => t.kind !== "positional" || t.value !== "-")) : [...args];
    // Codex takes the first prompt as its positional `[PROMPT]`, interactive or exec; one that starts
    // with `-` would be read as an option without the `--`.
    const separated = parsed.tokens.some((t) => t.kind === "separator") || !prompt.startsWith("-");
    return { args: [...rest, ...(separated ? [] : ["--"]), prompt], promptVia: "argv" };
  },
  // Interactive: `codex [opts] resume <id>`; exec: `codex exec [opts] resume <id>`, to which
  // coldArgs adds the message to deliver.
  warmArgs(args, id) {
    const { tokens, exec } = parse(args);
    const options = (part: readonly Token[]): string[] => render(withoutOptions(part, IMAGE).filter((t) => t.kind === "option"));
    if (!exec) return [...options(tokens), "resume", id];
    // Options before `exec` stay before it, the rest after it.
    const execAt = tokens.findIndex((t) => t.kind === "positional");
    return [...options(tokens.slice(0, execAt)), "exec", ...options(tokens.slice(execAt + 1)), "resume", id];
  },
  store: {
    rule: "rollout",
    // Today's and yesterday's folders (local time, as Codex files them): a run may cross midnight.
    where(context, now) {
      const root = sessionsRoot(context);
      return [now, new Date(now.getTime() - 86_400_000)].map((day) => ({ dir: dayFolder(root, day), depth: 0 }));
    },
    // A session of any age, before a warm start: every YYYY/MM/DD folder.
    everywhere: (context) => [{ dir: sessionsRoot(context), depth: 3 }],
    // The day folders of the thread's start, from its UUIDv7 and from when sessionpin captured it
    // (seconds after the start, or later for a session resumed by its ID): a day either side, as
    // Codex files by the local date of a machine whose time zone may not be this process's.
    likely(context, id, { capturedAt }) {
      const root = sessionsRoot(context);
      const days = new Set<string>();
      for (const at of [uuidV7Time(id), capturedAt?.getTime()]) {
        if (at === undefined || !Number.isFinite(at)) continue;
        for (const shift of [0, -1, 1]) days.add(dayFolder(root, new Date(at + shift * DAY_MS)));
      }
      return [...days].map((dir) => ({ dir, depth: 0 }));
    },
    name: new RegExp(`^rollout-\\d{4}-\\d{2}-\\d{2}T\\d{2}-\\d{2}-\\d{2}-(?<id>${UUID})\\.jsonl$`),
    wholeId: true,
    // Line 1 is `{"type":"session_meta","payload":{"id":…,"cwd":…,"source":"cli"|"exec"|…}}`; a
    // subagent's rollout has `source: {"subagent": …}` and `thread_source: "subagent"`. The line
    // carries the model's base instructions: 21.7 KB of line 1 in 0.169 (`codex exec`, this
    // machine), and a config may give its own instead. Cut at the default 64 KiB, it would not
    // parse and the session would never be taken.
    headBytes: 1024 * 1024,
    belongs(head, context) {
      try {
        const meta = JSON.parse(head.split("\n", 1)[0] ?? "") as { type?: unknown; payload?: Record<string, unknown> };
        const p = meta.payload;
        return meta.type === "session_meta" && p !== undefined && p["cwd"] === context.cwd &&
          typeof p["source"] === "string" && p["thread_source"] !== "subagent" && p["parent_thread_id"] === undefined;
      } catch {
        return false;
      }
    },
  },
  // 0.169 finds a rollout by its ID wherever it is filed under sessions/, whatever folder its
  // `session_meta` names, and runs the resumed thread in the folder it is started in (its
  // environment context names the new one: test/interop/carry.interop.ts). The rollout keeps its
  // day folder; `"cwd":"/old"` of its session_meta and turn contexts becomes the new folder.
  carry: {
    kind: "files",
    says: "its rollout sessions/YYYY/MM/DD/rollout-…-<id>.jsonl, under the same day; the folder's path in it rewritten",
    root: sessionsRoot,
    files: (_id, _root, entry) => [{ path: entry, transcript: true }],
    owns: (path, id) => new RegExp(`^\\d{4}/\\d{2}/\\d{2}/rollout-\\d{4}-\\d{2}-\\d{2}T\\d{2}-\\d{2}-\\d{2}-${literal(id)}\\.jsonl$`).test(path),
    folderNames: (cwd) => [cwd],
  },
};
