/**
 * Offline settings for omp (@oh-my-pi/pi-coding-agent, on Bun) and pi (@mariozechner/pi-coding-agent,
 * on Node), both against the fake Chat Completions API (fake-chat.ts): a provider named `fake`
 * with one model, chosen with `--model fake/fake-model`.
 */
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { PtyDriver } from "../../src/pty/driver.js";
import { exitOf, WAIT_MS } from "../e2e/support.js";
import type { Sandbox } from "../helpers/sandbox.js";
import type { RecordedChatRequest } from "./fake-chat.js";
import { userTexts } from "./fake-anthropic.js";

export const MODEL = ["--model", "fake/fake-model"];
export const REMEMBER = "remember the word zebra";
export const ASK = "which word?";
export const NOTED = "FAKE-API: noted the word zebra.";
export const KNOWN = "FAKE-API: the word is zebra.";
/** A chat thread's three messages, one one-shot call each, and what the fake API answers a session that had them all. */
export const THREAD = ["remember the word zebra", "remember the word yak", "which word?"];
export const THREAD_ANSWERS = ["FAKE-API: noted the word zebra.", "FAKE-API: noted the word yak.", "FAKE-API: the word is yak."];

/**
 * `~/.omp/agent/models.yml` with the fake as an OpenAI-compatible provider, and `config.yml`:
 * without `startup.setupWizard: false` the first TUI start opens a sign-in wizard. With
 * `retry.enabled: false`, a provider at a closed port fails after one attempt (about 31 s in
 * 18.2.3), not after minutes of automatic retries.
 */
export function writeOmpConfig(sb: Sandbox, baseUrl: string, options: { retry?: boolean } = {}): void {
  const dir = join(sb.home, ".omp", "agent");
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    join(dir, "models.yml"),
    [
      "providers:",
      "  fake:",
      `    baseUrl: ${baseUrl}`,
      "    apiKey: interop-fake-key",
      "    api: openai-completions",
      "    models:",
      "      - id: fake-model",
      "        contextWindow: 128000",
      "        maxTokens: 4096",
      "",
    ].join("\n"),
  );
  writeFileSync(
    join(dir, "config.yml"),
    ["startup:", "  setupWizard: false", "  checkUpdate: false", ...(options.retry === false ? ["retry:", "  enabled: false"] : []), ""].join("\n"),
  );
}

/** `~/.pi/agent/models.json` with the fake as an OpenAI-compatible provider (no `developer` role). */
export function writePiConfig(sb: Sandbox, baseUrl: string): void {
  const dir = join(sb.home, ".pi", "agent");
  mkdirSync(dir, { recursive: true });
  const models = {
    providers: {
      fake: {
        baseUrl,
        api: "openai-completions",
        apiKey: "interop-fake-key",
        compat: { supportsDeveloperRole: false },
        models: [{ id: "fake-model", contextWindow: 128000, maxTokens: 4096 }],
      },
    },
  };
  writeFileSync(join(dir, "models.json"), `${JSON.stringify(models, null, 2)}\n`);
}

/** pi without its startup network calls (version check, package updates). */
export const piEnv: NodeJS.ProcessEnv = { PI_OFFLINE: "1" };

/** The user texts of a request, in order (the system prompt is not a user turn). */
export const asked = (request: RecordedChatRequest | undefined): string[] => userTexts(request?.messages ?? []).filter((t) => t !== "");

/** The assistant texts of a request, in order: the earlier answers a resumed session sends again. */
export function answers(request: RecordedChatRequest | undefined): string[] {
  return (request?.messages ?? []).flatMap((m) => {
    const message = m as { role?: string; content?: unknown };
    if (message.role !== "assistant") return [];
    if (typeof message.content === "string") return [message.content];
    return Array.isArray(message.content) ? message.content.flatMap((c: { text?: unknown }) => (typeof c.text === "string" ? [c.text] : [])) : [];
  });
}

/** The session files in a folder (`<time>_<id>.jsonl`). */
export function sessionFiles(dir: string): string[] {
  try {
    return readdirSync(dir).filter((name) => name.endsWith(".jsonl"));
  } catch {
    return [];
  }
}

/** The first lines of a session file, parsed. */
export function headLines(path: string, count: number): Array<Record<string, unknown>> {
  return readFileSync(path, "utf8").split("\n").slice(0, count).map((line) => JSON.parse(line) as Record<string, unknown>);
}

/** agentapi's shutdown: SIGINT to sessionpin, which forwards it to the agent's process group. */
export async function stop(driver: PtyDriver): Promise<{ exitCode: number; signal: number }> {
  driver.kill("SIGINT");
  return exitOf(driver, WAIT_MS * 2);
}
