/**
 * OpenCode's offline settings for the interop tests: a config whose only provider is the shared
 * fake Chat Completions API (fake-chat.ts), and the env that keeps 1.18.33 from reaching any other
 * host. Measured here with opencode-ai 1.18.33 and a temp HOME.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Sandbox } from "../helpers/sandbox.js";
import { textOf, userTexts, type ApiMessage } from "./fake-anthropic.js";
import type { RecordedChatRequest } from "./fake-chat.js";

/** The provider and model names the config gives the fake API. */
export const OPENCODE_MODEL = "fake/fake-model";

/**
 * Env for every OpenCode run. Without these, 1.18.33 fetches models.opencode.ai/api.json at start
 * (`Failed to fetch models.dev` in its log) and installs `@opencode-ai/plugin` into
 * ~/.config/opencode from the npm registry on every start (its ~/.npm cache fills). npm's own
 * settings point that install at a closed port on 127.0.0.1 and forbid network use: the install
 * then fails at once (`background dependency install failed`, a WARN in its log) and nothing
 * else changes.
 */
export function opencodeEnv(closedPort: number): NodeJS.ProcessEnv {
  return {
    OPENCODE_DISABLE_MODELS_FETCH: "1",
    OPENCODE_DISABLE_AUTOUPDATE: "1",
    OPENCODE_DISABLE_SHARE: "1",
    OPENCODE_DISABLE_LSP_DOWNLOAD: "1",
    npm_config_registry: `http://127.0.0.1:${closedPort}/`,
    npm_config_offline: "true",
  };
}

/** `~/.config/opencode/opencode.json` with the fake API (at `baseUrl`, ending in /v1) as its only provider. */
export function writeOpencodeConfig(sb: Sandbox, baseUrl: string): void {
  const dir = join(sb.home, ".config", "opencode");
  mkdirSync(dir, { recursive: true });
  const config = {
    $schema: "https://opencode.ai/config.json",
    provider: {
      fake: {
        npm: "@ai-sdk/openai-compatible",
        name: "Fake",
        options: { baseURL: baseUrl, apiKey: "x" },
        models: { "fake-model": { name: "Fake Model" } },
      },
    },
    model: OPENCODE_MODEL,
    small_model: OPENCODE_MODEL,
    autoupdate: false,
    share: "disabled",
  };
  writeFileSync(join(dir, "opencode.json"), `${JSON.stringify(config, null, 2)}\n`);
}

/** OpenCode's one log file, shared by every OpenCode process of this HOME (1.18.33 appends). */
export const opencodeLog = (sb: Sandbox): string => join(sb.home, ".local", "share", "opencode", "log", "opencode.log");

/**
 * The sessions OpenCode's log says it created, with their folders: 1.18.33 logs
 * `message=created id=ses_… slug=… version=1.18.33 projectID=global directory=<cwd> …` the moment
 * it stores a new session (before the first model request).
 */
export function createdInLog(sb: Sandbox): Array<{ id: string; directory: string }> {
  const file = opencodeLog(sb);
  if (!existsSync(file)) return [];
  return [...readFileSync(file, "utf8").matchAll(/ message=created id=(ses_\w+) .*? directory=(\S+) /g)].map((m) => ({ id: m[1] ?? "", directory: m[2] ?? "" }));
}

/**
 * The user texts of a request without OpenCode's quoting: `opencode run` joins its message words
 * and quotes a word that holds a space (`"remember the word zebra"`), the TUI sends text as typed.
 */
export const userTurns = (r: RecordedChatRequest): string[] => userTexts(r.messages).map((t) => t.replace(/^"(.*)"$/s, "$1"));

/** The assistant turns a request carried (earlier answers of the same session). */
export const assistantTurns = (r: RecordedChatRequest): string[] =>
  r.messages.filter((m: ApiMessage) => m.role === "assistant").map((m) => textOf(m.content).trim());

/**
 * The main-agent requests (not the title generator's side call, whose system prompt says
 * "You are a title generator") whose last user turn is `text`.
 */
export function turnsAsking(requests: readonly RecordedChatRequest[], text: string): RecordedChatRequest[] {
  return requests.filter((r) => !isTitleCall(r) && userTurns(r).at(-1) === text);
}

const isTitleCall = (r: RecordedChatRequest): boolean =>
  r.messages.some((m: ApiMessage) => m.role === "system" && typeof m.content === "string" && m.content.includes("title generator"));
