import { createHash } from "node:crypto";
import { join } from "node:path";
import { positionals, render, tokenize, withoutOptions, withoutPositionals, type ArgvSpec } from "./argv.js";
import { definePlugin } from "./declarative.js";
import type { AgentPlugin } from "./types.js";

/**
 * Cursor CLI (`cursor-agent`, newer builds install it as `agent`). Facts from ../shared/agents.md
 * and Cursor's CLI docs (parameters, output format, authentication).
 */

const UUID = "[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}";

const ARGV: ArgvSpec = {
  values: ["--model", "--api-key", "-H", "--header", "--output-format", "--mode", "--sandbox", "--workspace"],
  // `--resume [chatId]`: without an ID it resumes something of Cursor's choosing.
  optionalValues: ["--resume"],
};
const RESUMING = ["--resume", "--continue"];
// Commands that start no conversation of their own (`agent ls` and `agent resume` pick one in a
// picker or take the latest): run them as they are.
const SUBCOMMANDS = new Set(["about", "create-chat", "login", "logout", "ls", "mcp", "models", "resume", "status", "update", "whoami"]);

const data = definePlugin({
  name: "cursor",
  names: ["cursor-agent", "agent"],
  grammar: UUID,
  // `-p --output-format stream-json`: `system`/`init` and every later line carry `session_id`
  // (look-alikes: `request_id`, tool `call_id`). Nothing is kept before a turn completed: Cursor
  // opens a new, empty chat for an ID it does not know instead of failing, so resuming an unsaved
  // ID would lose the task without any fallback. Only `result` (or the chat on disk) pins.
  json: [{ name: "result", field: "session_id", when: { type: ["result"], subtype: ["success"] }, state: "confirmed" }],
  // The interactive TUI prints no chat ID that is documented: its chat folder captures it.
  text: [],
  resume: ["{args}", "--resume={id}"],
  // No rejection text is documented (an unknown ID opens a new chat, which the pointer follows);
  // a non-zero exit early in a warm start still counts as a rejection.
  rejected: [],
  transient: ["Authentication required\\. Please run 'agent login'"],
});

export const cursor: AgentPlugin = {
  ...data,
  passthrough(args) {
    const first = positionals(tokenize(args, ARGV))[0];
    return first !== undefined && SUBCOMMANDS.has(first) ? `\`${first}\` is a Cursor command, not a new conversation` : undefined;
  },
  // `agent [prompt...]`, interactive or with -p/--print: the prompt is positional.
  coldArgs(args, prompt) {
    if (prompt === undefined) return { args: [...args], promptVia: "pty" };
    if (positionals(tokenize(args, ARGV)).length > 0) return { args: [...args], promptVia: "none" };
    return { args: prompt.startsWith("-") && !args.includes("--") ? [...args, "--", prompt] : [...args, prompt], promptVia: "argv" };
  },
  // `--resume=<id>`: the `=` form, so the ID can never be read as a prompt or lost to a picker.
  warmArgs(args, id) {
    return [...render(withoutPositionals(withoutOptions(tokenize(args, ARGV), RESUMING))), `--resume=${id}`];
  },
  // ~/.cursor/chats/<md5(cwd)>/<chat id>/store.db, written once the first turn completed.
  store: {
    rule: "chat-folder",
    where: (context) => [{ dir: join(context.home, ".cursor", "chats", createHash("md5").update(context.cwd).digest("hex")), depth: 0 }],
    name: new RegExp(`^(?<id>${UUID})$`),
    wholeId: true,
  },
};
