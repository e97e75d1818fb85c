/**
 * The nine real CLIs whose conversation `sessionpin export`/`import` carry, each as one row: its
 * fake model API (read the same way for all: which user turns a request carried, and the answer),
 * its offline settings for a sandbox, and its one-shot command. Built from each agent's own
 * support file (offline settings) and the shared fakes.
 */
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { WAIT_MS } from "../e2e/support.js";
import type { Sandbox } from "../helpers/sandbox.js";
import { auggieEnv, FakeAugment } from "./auggie-support.js";
import { copilotEnv, trustCwd, typedTexts } from "./copilot-support.js";
import { FakeAnthropic, userTexts } from "./fake-anthropic.js";
import { FakeChat, type RecordedChatRequest } from "./fake-chat.js";
import { FakeOpenAI, messagesOf } from "./fake-openai.js";
import { FakeGemini, geminiEnv, writeGeminiSettings } from "./gemini-support.js";
import { opencodeEnv, userTurns, writeOpencodeConfig } from "./opencode-support.js";
import { MODEL, piEnv, writeOmpConfig, writePiConfig } from "./pi-family-support.js";
import { qwenEnv, writeQwenSettings } from "./qwen-support.js";
import { claudeEnv, closedPort, codexEnv, pinned, writeCodexConfig } from "./support.js";

/** One request of the conversation: the user turns it carried (the CLI's preambles left out), and the answer. */
export interface Turn {
  readonly asked: readonly string[];
  readonly answer: string | undefined;
}

export interface CarryFake {
  readonly url: string;
  close(): Promise<void>;
  /** The conversation's requests, in order, side calls (titles, memory, routing) left out. */
  turns(): Turn[];
}

export interface CarriedAgent {
  /** The executable, and sessionpin's plugin. */
  readonly name: string;
  readonly label: string;
  readonly version: string;
  start(): Promise<CarryFake>;
  /** The env and settings files of sandbox `sb` (its HOME, its folder) against `fake`. */
  prepare(sb: Sandbox, fake: CarryFake): Promise<void>;
  oneShot(message: string): string[];
}

/** One real CLI call's bound: 1-20 s cold on this loaded 2-core machine. */
export const CALL_MS = WAIT_MS * 4;

/** The conversation's own requests: side calls end with other texts. */
const CONVERSATION = /^(remember the word \w+|which word\?)$/;
const own = (turns: readonly Turn[]): Turn[] => turns.filter((t) => CONVERSATION.test(t.asked.at(-1) ?? ""));
const chat = (api: FakeChat, asked: (r: RecordedChatRequest) => string[]): CarryFake => ({
  url: api.url,
  close: () => api.close(),
  turns: () => own(api.completions().map((r) => ({ asked: asked(r), answer: r.answer }))),
});
const FAMILY = { pi: "@mariozechner/pi-coding-agent", omp: "@oh-my-pi/pi-coding-agent" } as const;

export const CARRIED_AGENTS: readonly CarriedAgent[] = [
  {
    name: "claude",
    label: "Claude Code",
    version: pinned("@anthropic-ai/claude-code"),
    async start() {
      const api = await FakeAnthropic.start();
      return { url: api.url, close: () => api.close(), turns: () => own(api.requests.filter((r) => r.path === "/v1/messages").map((r) => ({ asked: userTexts(r.messages).filter((t) => t !== ""), answer: r.answer }))) };
    },
    prepare: async (sb, fake) => void Object.assign(sb.env, claudeEnv(fake.url, "api-key")),
    oneShot: (message) => ["claude", "-p", message, "--output-format", "stream-json", "--verbose"],
  },
  {
    name: "codex",
    label: "Codex",
    version: pinned("@openai/codex"),
    async start() {
      const api = await FakeOpenAI.start();
      const asked = (input: readonly Record<string, unknown>[]): string[] => userTexts(messagesOf(input)).filter((t) => !t.startsWith("<environment_context>"));
      return { url: api.url, close: () => api.close(), turns: () => own(api.requests.filter((r) => r.path === "/v1/responses").map((r) => ({ asked: asked(r.input), answer: r.answer }))) };
    },
    async prepare(sb, fake) {
      Object.assign(sb.env, codexEnv);
      writeCodexConfig(sb, fake.url);
    },
    // The sandbox is no git repository: without the flag `codex exec` refuses to start.
    oneShot: (message) => ["codex", "exec", "--json", "--skip-git-repo-check", message],
  },
  {
    name: "gemini",
    label: "Gemini CLI",
    version: pinned("@google/gemini-cli"),
    async start() {
      const api = await FakeGemini.start();
      return { url: api.url, close: () => api.close(), turns: () => own(api.turns().map((r) => ({ asked: userTexts(r.messages).filter((t) => !t.startsWith("<session_context>")), answer: r.answer }))) };
    },
    async prepare(sb, fake) {
      Object.assign(sb.env, geminiEnv(fake.url));
      // 0.61 writes its API error reports to os.tmpdir(): kept in the sandbox.
      sb.env["TMPDIR"] = join(sb.dir, "tmp");
      mkdirSync(sb.env["TMPDIR"], { recursive: true });
      writeGeminiSettings(sb);
    },
    oneShot: (message) => ["gemini", "-p", message, "--output-format", "json"],
  },
  {
    name: "copilot",
    label: "Copilot CLI",
    version: pinned("@github/copilot"),
    start: async () => chat(await FakeChat.start(), (r) => typedTexts(r.messages)),
    async prepare(sb, fake) {
      Object.assign(sb.env, copilotEnv(fake.url));
      trustCwd(sb);
    },
    oneShot: (message) => ["copilot", "-p", message, "--output-format", "json", "--allow-all-tools"],
  },
  {
    name: "opencode",
    label: "OpenCode",
    version: pinned("opencode-ai"),
    // Its title call's last user turn is the message too: told apart by its system prompt.
    start: async () => chat(await FakeChat.start(), (r) => (r.messages.some((m) => m.role === "system" && typeof m.content === "string" && m.content.includes("title generator")) ? [] : userTurns(r))),
    async prepare(sb, fake) {
      Object.assign(sb.env, opencodeEnv(await closedPort()));
      writeOpencodeConfig(sb, fake.url);
    },
    oneShot: (message) => ["opencode", "run", "--format", "json", message],
  },
  {
    name: "qwen",
    label: "Qwen Code",
    version: pinned("@qwen-code/qwen-code"),
    start: async () => chat(await FakeChat.start(), (r) => userTexts(r.messages)),
    async prepare(sb, fake) {
      Object.assign(sb.env, qwenEnv(fake.url));
      writeQwenSettings(sb);
    },
    oneShot: (message) => ["qwen", "-p", message, "--output-format", "stream-json"],
  },
  ...(["pi", "omp"] as const).map((name): CarriedAgent => ({
    name,
    label: name,
    version: pinned(FAMILY[name]),
    start: async () => chat(await FakeChat.start(), (r) => userTexts(r.messages).filter((t) => t !== "")),
    async prepare(sb, fake) {
      if (name === "pi") Object.assign(sb.env, piEnv);
      (name === "pi" ? writePiConfig : writeOmpConfig)(sb, fake.url);
    },
    oneShot: (message) => [name, ...MODEL, "--mode", "json", "-p", message],
  })),
  {
    name: "auggie",
    label: "Auggie",
    version: pinned("@augmentcode/auggie"),
    async start() {
      const api = await FakeAugment.start();
      return { url: api.url, close: () => api.close(), turns: () => own(api.chats.filter((c) => !c.side).map((c) => ({ asked: userTexts(c.messages), answer: c.answer }))) };
    },
    prepare: async (sb, fake) => void Object.assign(sb.env, auggieEnv(fake.url)),
    oneShot: (message) => ["auggie", "--print", "--output-format", "json", message],
  },
];
