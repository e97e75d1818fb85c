/** A start question on real files: a project folder in a temp HOME, its pointer in the temp folder. */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { AgentPlugin } from "../../src/agents/types.js";
import { writePointer } from "../../src/pointer/store.js";
import type { StartQuestion } from "../../src/run/options.js";

export const ID = "0f3c2a9e-5b7d-4e21-9c4a-8d6f1e2b3a40";
export const NOW = new Date("2026-11-25T12:00:00Z");

/** What the next start of `plugin` (or no plugin, as `command`) in `dir/project` asks, its pointer `dir/state/pointer.json`. */
export function question(
  dir: string,
  plugin: AgentPlugin | undefined,
  args: readonly string[] = [],
  o: { command?: string; explicit?: boolean; prompt?: string; restoreHistory?: boolean } = {},
): StartQuestion {
  const home = join(dir, "home");
  const cwd = join(dir, "project");
  mkdirSync(cwd, { recursive: true });
  return {
    agent: { command: o.command ?? plugin?.name ?? "", args, plugin, cwd, env: { HOME: home }, restoreHistory: o.restoreHistory ?? false },
    message: { prompt: o.prompt, resumePrompt: "go on", messageId: "m-1" },
    pointer: { path: join(dir, "state", "pointer.json"), explicit: o.explicit ?? false },
  };
}

/** A confirmed pointer to Claude session ID, as a run in `cwd` wrote it. */
export async function pinClaude(q: StartQuestion, cwd = q.agent.cwd): Promise<void> {
  await writePointer(q.pointer.path, { version: 1, agent: "claude", id: ID, state: "confirmed", cwd, capturedAt: NOW.toISOString(), source: { rule: "result" }, history: [] });
}

/** Claude Code's transcript of session `id`, where it keeps the project folder's sessions. */
export function claudeTranscript(q: StartQuestion, id: string): void {
  const folder = join(q.agent.env["HOME"] ?? "", ".claude", "projects", q.agent.cwd.replace(/[^A-Za-z0-9]/g, "-"));
  mkdirSync(folder, { recursive: true });
  writeFileSync(join(folder, `${id}.jsonl`), "{}\n");
}
