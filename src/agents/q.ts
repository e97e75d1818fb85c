import { hasOption } from "./argv.js";
import { definePlugin } from "./declarative.js";
import { HELP_AND_VERSION, parseArgs } from "./kiro.js";
import type { AgentPlugin } from "./types.js";

/**
 * Amazon Q Developer CLI (`q`). Its only resume is `q chat --resume`, which continues the last
 * conversation of the working folder; Q shows no conversation ID and takes none
 * (../shared/agents.md). Decision: sessionpin runs it transparently and says so in the log.
 *
 * Why not resume with a bare `q chat --resume` on warm starts: the pointer would have to claim a
 * session sessionpin never saw, any other `q chat` in the same folder (the user's own terminal)
 * silently changes which conversation that is, and a wrong conversation cannot be told from a
 * right one, so a refusal could never fall back. Users who want Q's own behaviour pass
 * `--resume` themselves; it reaches Q unchanged. Kiro CLI, Q's successor, has real IDs
 * (`kiro-cli chat --resume-id`): see kiro.ts.
 */
export const q: AgentPlugin = {
  // No grammar matches anything, so no pointer can ever name a Q session.
  ...definePlugin({ name: "q", names: ["q"], grammar: "(?!)", resume: ["{id}"] }),
  // As for Kiro CLI, its successor (kiro.ts): every command but `chat`, help and version.
  noConversation(args) {
    const { tokens, command } = parseArgs(args);
    if (command !== "chat") return `\`q ${command}\` is a subcommand, not a conversation`;
    return hasOption(tokens, HELP_AND_VERSION) ? "`q --help/--version` opens no conversation" : undefined;
  },
  unpinned: () =>
    "Amazon Q cannot be pinned: `q chat` shows no conversation ID and `q chat --resume` only continues this folder's last conversation; running it transparently, nothing is pinned",
  carry: { kind: "none", says: "nothing to carry: Amazon Q shows no conversation ID, and sessionpin pins none" },
};
