import { basename, dirname, join } from "node:path";
import { callerPick, hasOption, optionValue, positionals, render, tokenize, withoutOptions, withoutPositionals, type ArgvSpec, type Token } from "./argv.js";
import { valueAt } from "../json.js";
import { defineRules } from "./declarative.js";
import type { AgentPlugin, RunContext } from "./types.js";
import { sha256Hex } from "../digest.js";
import { filesBelow, firstJsonLine, literal } from "../state/carry-files.js";
import { UUID } from "./grammar.js";
import { carriedProject, projectOf, readConfig, registryOf } from "./gemini-projects.js";

// What the carry tests and the store read of Gemini's project folders.
export { carriedProject, projectOf } from "./gemini-projects.js";

/**
 * Gemini CLI. Proven against the real @google/gemini-cli 0.61.0 (test/interop/gemini.interop.ts),
 * besides its source and docs (docs/cli/cli-reference.md, sessionUtils.ts,
 * chatRecordingService.ts, projectRegistry.ts). A new session is named up front with
 * `--session-id <uuid>` (>= 0.41; 0.61 takes it in the TUI and with `-p`), and the chats file
 * written when the session starts confirms it: 0.61's TUI ends on SIGINT (agentapi's stop) with
 * exit 0 and no exit box, so no screen text names the ID under agentapi.
 */


const HEADLESS = ["-p", "--prompt"];
const INTERACTIVE = ["-i", "--prompt-interactive"];
const PROMPT = [...HEADLESS, ...INTERACTIVE];
// `--resume` and `--session-id` together are refused by Gemini; a warm start sets its own.
const SESSION = ["--session-id", "-r", "--resume"];
const ARGV: ArgvSpec = {
  values: [
    ...PROMPT, "--session-id", "-m", "--model", "-o", "--output-format", "--approval-mode", "-e", "--extensions",
    "--allowed-mcp-server-names", "--allowed-tools", "--include-directories", "--delete-session", "--session-file", "--proxy",
    "--sandbox-image", "--telemetry-target", "--telemetry-otlp-endpoint", "--telemetry-otlp-protocol", "--telemetry-outfile",
  ],
  // `-r` alone resumes the latest session; `-w` alone makes up a worktree name.
  optionalValues: ["-r", "--resume", "-w", "--worktree"],
};
// 0.61.0's commands and their aliases (`--help`); any other first word is the prompt.
const SUBCOMMANDS = ["mcp", "extensions", "extension", "skills", "skill", "hooks", "hook", "gemma"];
// Options that print or delete something and exit (0.61.0 `--help`: `-v` is --version).
const NO_CONVERSATION = ["--list-sessions", "--delete-session", "-l", "--list-extensions", "-v", "--version", "-h", "--help"];
// ACP: the client (an editor) drives the sessions; `--experimental-zed-integration` is an older name.
const PROTOCOL = ["--acp", "--experimental-acp", "--experimental-zed-integration"];

/** `-p MSG`, or a positional prompt without `-i`: 0.61 runs both headless, even in a PTY. */
const isOneShot = (tokens: readonly Token[]): boolean => hasOption(tokens, HEADLESS) || (positionals(tokens).length > 0 && !hasOption(tokens, INTERACTIVE));
const isEmptyHeadless = (t: Token): t is Token & { kind: "option" } => t.kind === "option" && HEADLESS.includes(t.name) && t.value === "";

/** `extra` goes before a `--`, so it is never read as part of the positional prompt. */
const beforeSeparator = (args: readonly string[], extra: readonly string[]): string[] => {
  const at = args.indexOf("--");
  return at < 0 ? [...args, ...extra] : [...args.slice(0, at), ...extra, ...args.slice(at)];
};

const base = defineRules({
  name: "gemini",
  names: ["gemini"],
  // Gemini's own IDs are random v4 UUIDs; `--session-id` would take more, but sessionpin only ever
  // chooses UUIDs, and a looser grammar would let other words through.
  grammar: UUID,
  // `--output-format stream-json`: only the first event names the session; later ones carry no ID,
  // and `result` has none to confirm with. 0.61.0 (its warnings go to stderr, before it):
  //   {"type":"init","timestamp":"…","session_id":"<uuid>","model":"auto"}
  json: [{ name: "init", field: "session_id", when: { type: ["init"] }, state: "provisional" }],
  text: [{
    // The exit box (and `/stats`), drawn by Ink at the PTY width. 0.61.0 draws it only after
    // `/quit`, not on SIGINT (agentapi's stop). At agentapi's 67 columns the UUID breaks after 35
    // characters inside the Session ID row and the hint's ID moves to the next row; a full row is
    // joined to the next without a space (hence `\s*`). 0.61.0, fixtures/gemini/tui-0.61-quit-box-67:
    //   │  Session ID:               aac5cd4c-90be-48b3-8da1-402f41c3493  │
    //   │                            3                                    │
    //   │  To resume this session: gemini --resume                        │
    //   │  aac5cd4c-90be-48b3-8da1-402f41c34933                           │
    // The older footer `Tip: Resume a previous session using gemini --resume or /resume` names no ID.
    // On Windows 0.61.0 quotes the ID (SessionSummaryDisplay.tsx): `gemini --resume "<uuid>"`.
    name: "exit-box",
    pattern: `(?:(?:^|[│|])\\s*Session ID:|gemini --resume)\\s*(?<q>"?)(?<id>${UUID})\\k<q>`,
    state: "provisional",
  }, {
    // `-p … --output-format json` (0.61.0, JsonFormatter): one object pretty-printed with two
    // spaces, `session_id` its first key, so the ID is on the row after a lone `{`:
    //   {
    //     "session_id": "0b4846f0-367f-4632-a9f5-85e057566ecf",
    //     "response": "…",
    // Matched across the two rows (the core joins them with a space): a `session_id` deeper in an
    // object, or after another key, is not taken.
    name: "json-output",
    pattern: `^\\{ "session_id": "(?<id>${UUID})",?$`,
    state: "provisional",
  }],
  rejected: [
    // 0.61.0, exit 42, also for a session that took no turn (0.61 deletes its file on exit):
    //   Error resuming session: Invalid session identifier "<id>".
    //     Searched for sessions in /home/u/.gemini/tmp/<project>/chats.
    "Error resuming session: Invalid session identifier",
    "No previous sessions found for this project",
  ],
  saysRejected: true,
  // Failures that say nothing about the session: the pointer stays.
  transient: [
    // 0.61.0 without `security.auth.selectedType`, exit 41, before any session exists.
    "Invalid auth method selected\\.",
    // Older builds and no auth env at all, exit 41.
    "Please set an Auth method",
    // 0.61.0 headless in an untrusted folder, exit 55 (one line, wrapped by the terminal only).
    "Gemini CLI is not running in a trusted directory",
    // 0.61.0 `-p ""` with stdin not a terminal (exit 42, the code of an unknown ID too). sessionpin
    // no longer starts the empty slot warmArgs leaves (a one-shot run with nothing new to deliver
    // is a repeat, not started); kept for a message that reaches 0.61 empty.
    "No input provided via stdin\\.",
    // 0.61.0 when the model API refuses the key (401/403), then exit 1:
    //   Error when talking to Gemini API Full report available at: /tmp/gemini-client-error-…
    //   [API Error: {"error":{"code":401,…,"status":"UNAUTHENTICATED"}}]
    "Error when talking to Gemini API",
    "Error generating content via API",
    // 0.61.0 when nothing listens at the API's address: it retries with backoff for minutes.
    //   Attempt 1 failed. Retrying with backoff... Error: exception TypeError: fetch failed sending request
    "fetch failed sending request",
  ],
});

export const gemini: AgentPlugin = {
  ...base,
  noConversation(args) {
    const tokens = tokenize(args, ARGV);
    const command = positionals(tokens)[0];
    if (command !== undefined && SUBCOMMANDS.includes(command)) return `\`gemini ${command}\` is a subcommand, not a conversation`;
    return hasOption(tokens, NO_CONVERSATION) ? "this gemini invocation lists or deletes sessions, or prints help or its version: it opens no conversation" : undefined;
  },
  unpinned: (args) => (hasOption(tokenize(args, ARGV), PROTOCOL) ? "`gemini --acp` serves a client over stdio, which owns its sessions" : undefined),
  // `-r/--resume` takes "latest", an index or (0.61.0) a session's UUID; only the UUID names it.
  // `--session-file` loads a session from a JSON file.
  callerSession(args) {
    const tokens = tokenize(args, ARGV);
    return callerPick(tokens, { named: ["-r", "--resume"], other: ["--session-file"] }, base.grammar);
  },
  invocation(args) {
    const tokens = tokenize(args, ARGV);
    const words = positionals(tokens);
    const message = optionValue(tokens, PROMPT) || (words.length > 0 ? words.join(" ") : undefined);
    return { message, oneShot: isOneShot(tokens) };
  },
  // A prompt of the command's own (`-p`, `-i`, positional) wins. Otherwise it goes in argv as
  // `--prompt-interactive=<prompt>` (the `=` form, so a prompt starting with `-` stays a value):
  // 0.61's TUI submits it itself. Typed in, it is lost half the time on a busy machine: 0.61 takes
  // an Enter that it reads within 40 ms of a paste for a newline inside the message
  // (InputPrompt.tsx, `recentUnsafePasteTime`), and sessionpin's Enter follows the paste by 100 ms
  // while 0.61 may not read for longer. The empty `-p ""` warmArgs leaves in a one-shot command
  // is filled with what the warm start delivers (the call's new message, else `--resume-prompt`):
  // 0.61 resumes headless as `--resume <id> -p MSG` (test/interop/gemini.interop.ts).
  coldArgs(args, prompt) {
    if (prompt === undefined) return { args: [...args], promptVia: "pty" };
    const tokens = tokenize(args, ARGV);
    if (optionValue(tokens, HEADLESS) === "") {
      // `-p MSG`, not `--prompt=MSG`: 0.61 checks the raw argv for `-p`/`--prompt` to tell a
      // headless run, and with `--prompt=MSG` ran the message in an untrusted folder, exit 0,
      // where `-p MSG` stops with exit 55.
      return { args: render(tokens.map((t) => (isEmptyHeadless(t) ? { ...t, value: prompt, words: ["-p", prompt] } : t))), promptVia: "argv" };
    }
    if (hasOption(tokens, PROMPT) || positionals(tokens).length > 0) return { args: [...args], promptVia: "none" };
    // A warm TUI start (--resume-prompt) types it once the resumed screen is still: with
    // `--resume`, 0.61 may send the `--prompt-interactive` message before it has loaded the
    // session's history (seen: the request carried none of the earlier turns).
    if (hasOption(tokens, ["-r", "--resume"])) return { args: [...args], promptVia: "pty" };
    return { args: beforeSeparator(args, [`--prompt-interactive=${prompt}`]), promptVia: "argv" };
  },
  // Gemini CLI < 0.41 has no `--session-id`: such a start then fails (see README).
  chooseId(args, fresh) {
    if (hasOption(tokenize(args, ARGV), SESSION)) return undefined;
    return { id: fresh, args: beforeSeparator(args, ["--session-id", fresh]) };
  },
  // A one-shot command (`-p MSG`, or a positional prompt without `-i`: 0.61 runs both headless,
  // even in a PTY) stays one-shot: `-p ""`, which coldArgs fills with the new message or
  // --resume-prompt. Never the TUI, where nobody types; with nothing to fill it, sessionpin does
  // not start 0.61 at all (a repeat).
  warmArgs(args, id) {
    const tokens = tokenize(args, ARGV);
    const rest = withoutPositionals(withoutOptions(tokens, [...PROMPT, ...SESSION]));
    return [...render(rest), "--resume", id, ...(isOneShot(tokens) ? ["-p", ""] : [])];
  },
  // 0.61.0: ~/.gemini/tmp/<project>/chats/session-<YYYY-MM-DDTHH-MM>-<first 8 of the ID>.jsonl,
  // written when the session starts (line 1 `{"sessionId":…,"projectHash":…,"kind":"main"}`), so it
  // confirms the chosen ID early; 0.61 deletes it on exit if the session took no turn, and a
  // later resume is then refused and sessionpin falls back. Only this cwd's own folder is looked
  // at: a resume in a later minute writes a 2-line stub with the same <id8>, and other folders'
  // sessions are not ours.
  store: {
    rule: "chats",
    where: ({ env, home, cwd }) => {
      const root = join(env["GEMINI_CLI_HOME"] || home, ".gemini");
      return [{ dir: join(root, "tmp", projectOf(root, cwd), "chats"), depth: 0 }];
    },
    name: /^session-.+-(?<id>[0-9a-f]{8})\.jsonl?$/,
    wholeId: false,
  },
  advice(context) {
    const root = join(context.env["GEMINI_CLI_HOME"] || context.home, ".gemini");
    const settings = readConfig(join(root, "settings.json")) ?? {};
    const retention = valueAt(settings, "general.sessionRetention.enabled");
    const auth = valueAt(settings, "security.auth.selectedType");
    const trusted = readConfig(join(root, "trustedFolders.json"))?.[context.cwd];
    return [
      // 0.61 deletes every file of a session id8 when another session in the folder starts
      // (its retention clean-up), the pinned conversation included.
      retention === false
        ? { name: "gemini-retention", status: "ok", detail: "general.sessionRetention.enabled is false: Gemini keeps the pinned session" }
        : { name: "gemini-retention", status: "warn", detail: `session retention is on in ${join(root, "settings.json")}: Gemini deletes a resumed session's files when another session starts in this folder; set general.sessionRetention.enabled to false` },
      typeof auth === "string"
        ? { name: "gemini-auth", status: "ok", detail: `security.auth.selectedType is ${auth}` }
        : { name: "gemini-auth", status: "warn", detail: "no security.auth.selectedType: headless runs exit 41 (Invalid auth method selected.)" },
      trusted === "TRUST_FOLDER" || context.env["GEMINI_CLI_TRUST_WORKSPACE"] === "true"
        ? { name: "gemini-trust", status: "ok", detail: `${context.cwd} is trusted` }
        : { name: "gemini-trust", status: "warn", detail: `${context.cwd} is not in ${join(root, "trustedFolders.json")}: headless runs exit 55 before any session exists` },
    ];
  },
  // 0.61.0 resumes a chats file put in the new folder's project (test/interop/carry.interop.ts):
  // it looks a session up in tmp/<project>/chats only, and does not compare the `projectHash`
  // (sha256 of the folder) of its line 1 with the folder's. Which <project> a folder has is
  // 0.61's projectRegistry.ts: projects.json, else a folder of tmp/ whose `.project_root` names it,
  // else a new slug; so the import registers it in both, as 0.61 would, and rewrites the hash too.
  carry: {
    kind: "files",
    says: "tmp/<project>/chats/session-…-<id8>.jsonl (and <id>/, its subagents) filed under the new folder's project, registered in projects.json; the folder's path and sha256 in them rewritten",
    root: (context, look) => {
      const root = geminiRoot(context);
      return join(root, "tmp", carriedProject(root, context.cwd, look), "chats");
    },
    files(id, root, _entry, look) {
      const mine = (look.list(root) ?? []).filter((e) => e.kind === "file" && chatsFileOf(id).test(e.name) && firstJsonLine(look.head(join(root, e.name), 64 * 1024))?.["sessionId"] === id);
      // Each resume in a later minute writes a 2-line stub with the same <id8>: the biggest file is the conversation.
      const sizes = mine.map((e) => look.size(join(root, e.name)) ?? 0);
      const biggest = mine[sizes.indexOf(Math.max(...sizes))]?.name;
      return [...mine.map((e) => ({ path: e.name, ...(e.name === biggest ? { transcript: true } : {}) })), ...filesBelow(look, root, id).map((path) => ({ path }))];
    },
    owns: (path, id) => chatsFileOf(id).test(path) || path.startsWith(`${id}/`),
    folderNames: (cwd) => [cwd, sha256Hex(cwd)],
    register(context, root, look) {
      const home = geminiRoot(context);
      const project = dirname(root);
      const slug = basename(project);
      const registry = registryOf(home, look);
      const writes: Array<{ path: string; text: string }> = [];
      if (registry !== undefined && registry[context.cwd] !== slug) {
        writes.push({ path: join(home, "projects.json"), text: JSON.stringify({ projects: { ...registry, [context.cwd]: slug } }, null, 2) });
      }
      if (look.head(join(project, ".project_root"), 64 * 1024)?.trim() !== context.cwd) writes.push({ path: join(project, ".project_root"), text: context.cwd });
      return writes;
    },
  },
};

const geminiRoot = (context: RunContext): string => join(context.env["GEMINI_CLI_HOME"] || context.home, ".gemini");
/** A main session's chats files: `session-<YYYY-MM-DDTHH-MM>-<first 8 of the ID>.jsonl` (`.json`, as the store's name rule takes too). */
const chatsFileOf = (id: string): RegExp => new RegExp(`^session-[0-9T-]+-${literal(id.slice(0, 8))}\\.jsonl?$`);
