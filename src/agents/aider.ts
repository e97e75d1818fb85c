import { definePlugin } from "./declarative.js";
import type { AgentPlugin } from "./types.js";

/**
 * Aider keeps no session IDs: there is nothing to capture or resume. Its only continuity is its
 * chat history file, which `--restore-chat-history` reloads (sessionpin adds it with
 * `--aider-restore-history` when the file exists).
 */
export const aider: AgentPlugin = {
  ...definePlugin({
    name: "aider",
    names: ["aider"],
    grammar: "(?!)",
    resume: ["{id}"],
    // `-h, --help`, `--version`, and `--list-models`/`--models MODEL`, which list models and exit;
    // `--model`, `--message/--msg/-m` and `--message-file/-f` take a value, never read as one of
    // them (aider.chat's options reference).
    noConversation: { options: ["-h", "--help", "--version", "--list-models", "--models"] },
    valueOptions: ["--model", "--message", "--msg", "-m", "--message-file", "-f"],
  }),
  history: { file: ".aider.chat.history.md", flag: "--restore-chat-history" },
  unpinned: () => "Aider has no resumable session (no session IDs): running it transparently, nothing is pinned",
  carry: { kind: "none", says: "nothing to carry: no sessions; its chat history is a file in the working folder, which travels with the folder" },
};
