import { definePlugin } from "./declarative.js";
import type { AgentPlugin } from "./types.js";

/**
 * Aider keeps no session IDs: there is nothing to capture or resume. Its only continuity is its
 * chat history file, which `--restore-chat-history` reloads (sessionpin adds it with
 * `--aider-restore-history` when the file exists).
 */
export const aider: AgentPlugin = {
  ...definePlugin({ name: "aider", names: ["aider"], grammar: "(?!)", resume: ["{id}"] }),
  history: { file: ".aider.chat.history.md", flag: "--restore-chat-history" },
  passthrough: () => "Aider has no resumable session (no session IDs): running it transparently, nothing is pinned",
};
