/**
 * GitHub Copilot CLI against the shared fake Chat Completions API (fake-chat.ts), offline: its
 * bring-your-own-key provider settings (`copilot help providers`), and the folder trust its TUI
 * asks for otherwise.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { cwdOf } from "../e2e/support.js";
import type { Sandbox } from "../helpers/sandbox.js";
import { userTexts, type ApiMessage } from "./fake-anthropic.js";
import type { FakeChat, RecordedChatRequest } from "./fake-chat.js";

/**
 * Env for Copilot 1.0.102 against an OpenAI-compatible provider at `baseUrl` (…/v1). COPILOT_OFFLINE
 * keeps it off GitHub's hosts (no login, no telemetry); COPILOT_AUTO_UPDATE=false keeps it on the
 * installed build.
 */
export function copilotEnv(baseUrl: string): NodeJS.ProcessEnv {
  return {
    COPILOT_OFFLINE: "true",
    COPILOT_PROVIDER_BASE_URL: baseUrl,
    // Copilot masks the key's value wherever it prints it: with "x", `exitCode` came out as
    // `e******itCode` in its JSON output.
    COPILOT_PROVIDER_API_KEY: "sk-interop-fake-key",
    COPILOT_MODEL: "gpt-4.1",
    COPILOT_AUTO_UPDATE: "false",
  };
}

/** `~/.copilot/config.json` trusting the sandbox's cwd: without it the TUI opens the folder-trust dialog. */
export function trustCwd(sb: Sandbox): void {
  const dir = join(sb.home, ".copilot");
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, "config.json"), `${JSON.stringify({ trustedFolders: [cwdOf(sb)] }, null, 2)}\n`);
}

/** Copilot's store, one folder a session: where sessionpin looks a pinned session up before a warm start. */
export const sessionState = (sb: Sandbox): string => join(sb.home, ".copilot", "session-state");

/** Where Copilot keeps a session: `~/.copilot/session-state/<uuid>/events.jsonl`. */
export const eventsFile = (sb: Sandbox, id: string): string => join(sessionState(sb), id, "events.jsonl");

/**
 * The user turns of a request, as typed: Copilot 1.0.102 sends each one as
 * `<current_datetime>…</current_datetime>\n\n<text>`.
 */
export function typedTexts(messages: readonly ApiMessage[]): string[] {
  return userTexts(messages).map((text) => text.replace(/^<current_datetime>[^<]*<\/current_datetime>\s*/, ""));
}

/** The assistant turns of a request, as text. */
export function assistantTexts(messages: readonly ApiMessage[]): string[] {
  return messages.filter((m) => m.role === "assistant").map((m) => (typeof m.content === "string" ? m.content : JSON.stringify(m.content)));
}

/** The chat completions whose last typed user turn is `text`. */
export function askedWith(api: FakeChat, text: string): RecordedChatRequest[] {
  return api.completions().filter((r) => typedTexts(r.messages).at(-1) === text);
}
