import { join } from "node:path";
import { md5Hex } from "../digest.js";
import { callerPick, hasOption, positionals, render, tokenize, withoutOptions, withoutPositionals, type ArgvSpec } from "./argv.js";
import { defineRules } from "./declarative.js";
import type { AgentPlugin } from "./types.js";
import { QUOTED_UUID, STREAM_INIT, STREAM_MESSAGE, STREAM_RESULT, UUID, uuidEntry } from "./grammar.js";

/**
 * Cursor CLI (`cursor-agent`, newer builds install it as `agent`). Facts from ../shared/agents.md
 * and Cursor's CLI docs (parameters, output format, authentication).
 */


const ARGV: ArgvSpec = {
  values: ["--model", "--api-key", "-H", "--header", "--output-format", "--mode", "--sandbox", "--workspace"],
  // `--resume [chatId]`: without an ID it resumes something of Cursor's choosing.
  optionalValues: ["--resume"],
};
const RESUMING = ["--resume", "--continue"];
// Commands that open no conversation (Cursor's CLI reference); `create-chat` makes an empty chat
// and prints its ID. `agent ls` (pick a previous chat) and `agent resume` (the latest) open one
// the caller chose: see callerSession.
const SUBCOMMANDS = new Set(["about", "create-chat", "help", "login", "logout", "mcp", "models", "status", "update", "whoami"]);
const RESUME_COMMANDS = ["ls", "resume"];

const data = defineRules({
  name: "cursor",
  names: ["cursor-agent", "agent"],
  grammar: UUID,
  // `-p --output-format stream-json` (Cursor's "Output format" reference, its example sequence):
  //   {"type":"system","subtype":"init","apiKeySource":"login","cwd":"…","session_id":"<uuid>",…}
  //   {"type":"user","message":{…},"session_id":"<uuid>"}
  //   {"type":"assistant","message":{…},"session_id":"<uuid>"}
  //   {"type":"tool_call","subtype":"started","call_id":"…","tool_call":{…},"session_id":"<uuid>"}
  //   {"type":"result","subtype":"success",…,"session_id":"<uuid>","request_id":"…"}
  // Every line carries the chat's own top-level `session_id`, so each is evidence: a run killed
  // before `result` still names its chat (tiann/hapi#744: Cursor has written the chat's transcript
  // folder within 2 s of start, so the ID resumes). Only `result` confirms; a failed `result`, a
  // line of another type, and `request_id`, `call_id` or IDs nested in messages are not read.
  json: [
    STREAM_INIT,
    STREAM_MESSAGE,
    { name: "event", field: "session_id", when: { type: ["tool_call"] }, state: "provisional" },
    STREAM_RESULT,
  ],
  // The TUI on exit names the chat with the command that resumes it (Cursor Agent 2026.09, seen
  // in public harness notes: "agent --resume=<id>", `cursor-agent` for older installs), at column 0:
  //   agent --resume=0fb6d1a2-5c3e-4b7f-9a81-2d4e6c8b0f13
  //   cursor-agent --resume="0fb6d1a2-5c3e-4b7f-9a81-2d4e6c8b0f13"     the docs quote the ID
  // Chat text and the prompt box are indented (`  Run cursor-agent --resume=…`, `│ > …`): not taken.
  // Older cursor-agent builds (2025; a public TaskMaster guide, stephanschielke/cursor-task-master
  // docs/CURSOR_AGENT_WITH_TASK_MASTER/USER_GUIDE.md) print the command after a label, which a
  // pasted copy shows indented too; the label makes it the agent's own line, so indentation is
  // allowed there only. At agentapi's 67 columns the UUID breaks across two rows (the core joins them):
  //   To resume this session: cursor-agent --resume=5d2e8a41-7c3b-4f96-a0
  //   e2-9b1c4d7f3a68
  text: [
    {
      name: "exit-hint",
      pattern: `^(?:\\s*To resume this session: )?(?:cursor-)?agent --resume=${QUOTED_UUID}`,
      state: "provisional",
    },
  ],
  // No rejection text is documented (an unknown ID opens a new chat, which the pointer follows);
  // a non-zero exit early in a warm start still counts as a rejection.
  rejected: [],
  transient: ["Authentication required\\. Please run 'agent login'"],
});

export const cursor: AgentPlugin = {
  ...data,
  // `-v, --version` and `-h, --help` (Cursor's CLI parameters reference).
  noConversation(args) {
    const tokens = tokenize(args, ARGV);
    if (hasOption(tokens, ["-v", "--version", "-h", "--help"])) return "`agent --help/--version` opens no conversation";
    const first = positionals(tokens)[0];
    return first !== undefined && SUBCOMMANDS.has(first) ? `\`${first}\` is a Cursor command, not a conversation` : undefined;
  },
  // `--resume [chatId]` (none: the latest), `--continue` ("alias for --resume=-1"), and the
  // `ls`/`resume` commands (Cursor's CLI reference); only a chat's UUID names the session.
  callerSession(args) {
    const tokens = tokenize(args, ARGV);
    const first = positionals(tokens)[0];
    if (first !== undefined && RESUME_COMMANDS.includes(first)) return { via: first };
    return callerPick(tokens, { named: ["--resume"], other: ["--continue"] }, data.grammar);
  },
  invocation(args) {
    const tokens = tokenize(args, ARGV);
    const words = positionals(tokens);
    return { message: words.length > 0 ? words.join(" ") : undefined, oneShot: hasOption(tokens, ["-p", "--print"]) };
  },
  // `agent [prompt...]`, interactive or with -p/--print: the prompt is positional. A warm print
  // run is `agent -p --resume=<id> MSG` (Cursor's CLI docs, unverified here).
  coldArgs(args, prompt) {
    if (prompt === undefined) return { args: [...args], promptVia: "pty" };
    if (positionals(tokenize(args, ARGV)).length > 0) return { args: [...args], promptVia: "none" };
    return { args: prompt.startsWith("-") && !args.includes("--") ? [...args, "--", prompt] : [...args, prompt], promptVia: "argv" };
  },
  // `--resume=<id>`: the `=` form, so the ID can never be read as a prompt or lost to a picker.
  warmArgs(args, id) {
    return [...render(withoutPositionals(withoutOptions(tokenize(args, ARGV), RESUMING))), `--resume=${id}`];
  },
  // Two layouts, both named by the chat ID: ~/.cursor/chats/<md5(cwd)>/<chat id>/store.db (the
  // stream-json chats; tiann/hapi#841), and ~/.cursor/projects/<cwd>/agent-transcripts/<chat id>/
  // <chat id>.jsonl (newer builds; mattpocock/sandcastle#673, tiann/hapi#744), where <cwd> is the
  // path without its leading `/` and `/` turned into `-` (`Users-janine-Documents-TbF-Projects-
  // NextSeason` in public paths). Whether other characters are replaced too is not known, so the
  // Claude-style spelling is searched as well; a folder that does not exist finds nothing.
  store: {
    rule: "chat-folder",
    where: (context) => {
      const bare = context.cwd.replace(/^\/+/, "");
      const projects = [...new Set([bare.replace(/\//g, "-"), bare.replace(/[^A-Za-z0-9]/g, "-")])];
      return [
        { dir: join(context.home, ".cursor", "chats", md5Hex(context.cwd)), depth: 0 },
        ...projects.map((name) => ({ dir: join(context.home, ".cursor", "projects", name, "agent-transcripts"), depth: 0 })),
      ];
    },
    name: uuidEntry(),
    entryName: (id) => id,
    wholeId: true,
  },
  // Not carried: the chat folder is named by the MD5 of the folder and holds a SQLite store.db
  // (the layouts above, from public readers); Cursor CLI does not install here to prove a move.
  carry: { kind: "none", says: "not carried: its chats are SQLite files in ~/.cursor/chats/<md5 of the folder>/<id>/, not proven movable here (Cursor CLI does not install here)" },
};
