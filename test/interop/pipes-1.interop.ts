/**
 * Claude Code, Codex, Gemini CLI, Copilot CLI and Auggie in their one-shot modes on pipes, as a CI
 * job or a chat bridge runs `sessionpin run` (issue 41): pipes-suite.ts, one table row each in
 * pipes-support.ts. The other agents are in pipes-2.interop.ts, so the two files run side by side.
 */
import { describePipes } from "./pipes-suite.js";
import { pipedAgents } from "./pipes-support.js";

describePipes(pipedAgents("claude", "codex", "gemini", "copilot", "auggie"));
