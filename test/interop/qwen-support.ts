/**
 * Qwen Code 0.24.4 offline: its OpenAI provider pointed at the shared fake Chat Completions API
 * (fake-chat.ts), and settings that keep it from reaching for other hosts.
 */
import { existsSync, mkdirSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Sandbox } from "../helpers/sandbox.js";

/** Env for Qwen Code against a Chat Completions API at `baseUrl` (ending in /v1): no auth dialog, no config needed. */
export function qwenEnv(baseUrl: string): NodeJS.ProcessEnv {
  return { OPENAI_API_KEY: "sk-interop-fake", OPENAI_BASE_URL: baseUrl, OPENAI_MODEL: "fake-model" };
}

/**
 * `$HOME/.qwen/settings.json`: no update check (npm registry), no usage statistics (sent to its
 * vendor by default), no telemetry. Keys as 0.24.4's settings schema names them.
 */
export function writeQwenSettings(sb: Sandbox): void {
  const dir = join(sb.home, ".qwen");
  mkdirSync(dir, { recursive: true });
  const settings = { general: { enableAutoUpdate: false }, privacy: { usageStatisticsEnabled: false }, telemetry: { enabled: false } };
  writeFileSync(join(dir, "settings.json"), `${JSON.stringify(settings, null, 2)}\n`);
}

/** Where 0.24.4 keeps the sessions of `cwd`: ~/.qwen/projects/<cwd, non-alphanumerics as ->/chats. */
export function qwenChats(sb: Sandbox, cwd: string): string {
  return join(sb.home, ".qwen", "projects", cwd.replace(/[^a-zA-Z0-9]/g, "-"), "chats");
}

/** The session IDs with a transcript (`<uuid>.jsonl`) in that folder. */
export function qwenSessions(sb: Sandbox, cwd: string): string[] {
  const dir = qwenChats(sb, cwd);
  if (!existsSync(dir)) return [];
  return readdirSync(dir).flatMap((name) => /^([0-9a-f-]{36})\.jsonl$/.exec(name)?.[1] ?? []).sort();
}

/**
 * A model API nothing listens on that 0.24.4 gives up on at once. On a refused connection to an
 * ordinary closed port (support.ts's closedPort) it retries with backoff (5 s, 11 s, … seen in
 * its --debug log), past sessionpin's 15 s fallback window and a test's time. Port 1 is one of
 * fetch's "bad ports": Node's fetch refuses it without connecting, and Qwen prints the same
 * `[API Error: Connection error. (cause: fetch failed)]` at once and exits 1.
 */
export const UNREACHABLE = "http://127.0.0.1:1/v1";
