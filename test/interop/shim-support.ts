/**
 * The real Claude Code, Codex and Gemini CLIs called by name through sessionpin's PATH shims:
 * a sandbox with the shims first on PATH and the real CLIs in a folder after them, a caller that
 * runs a command by name as a CI step does, and one table of what differs per agent (its fake
 * model API, its offline settings, its one-shot command line, its TUI's input box).
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, symlinkSync } from "node:fs";
import { delimiter, join } from "node:path";
import { expect } from "vitest";
import type { Cleanup } from "../e2e/support.js";
import { CLI, type Sandbox } from "../helpers/sandbox.js";
import { FakeAnthropic, userTexts } from "./fake-anthropic.js";
import { FakeOpenAI, messagesOf } from "./fake-openai.js";
import { FakeGemini, geminiEnv, writeGeminiSettings } from "./gemini-support.js";
import { headlessCall, type OneShotResult } from "./headless.js";
import { claudeEnv, codexEnv, pinned, REAL_BIN, realSandbox, settleClaudeOnboarding, writeCodexConfig } from "./support.js";

export const AGENT_NAMES = ["claude", "codex", "gemini"] as const;
export type AgentName = (typeof AGENT_NAMES)[number];

/** One request of the conversation, as the fake model API received it. */
export interface Turn {
  /** The user's own turns it carried, in order (the CLI's context preambles left out). */
  readonly asked: readonly string[];
  readonly answer: string | undefined;
  /** The session the CLI named in a header (Claude's `x-claude-code-session-id`, Codex's `session-id`); Gemini names none. */
  readonly session: unknown;
}

/** A fake model API, read the same way for every agent. */
export interface Fake {
  readonly url: string;
  close(): Promise<void>;
  /** The conversation's requests whose newest user turn is exactly `message` (side calls quote it inside longer texts, or ask for JSON). */
  turnsEndingWith(message: string): Turn[];
  /** How many requests of any kind it received. */
  count(): number;
}

export interface ShimmedAgent {
  readonly name: AgentName;
  readonly label: string;
  readonly version: string;
  start(): Promise<Fake>;
  /** The env and settings files for runs against `fake`; `tui` for the interactive ones. */
  prepare(sb: Sandbox, fake: Fake, tui: boolean): void;
  /** A one-shot call as a CI script writes it, the agent's name first. */
  oneShot(message: string): string[];
  /** The TUI's input box is drawn. */
  readonly ready: RegExp;
  /** sessionpin's exit code after agentapi's SIGINT (Codex 0.169 dies of it: 130). */
  readonly sigintExit: number;
}

const turnsOf = (all: readonly Turn[], message: string): Turn[] => all.filter((t) => t.asked.at(-1) === message);

export const AGENTS: readonly ShimmedAgent[] = [
  {
    name: "claude",
    label: "Claude Code",
    version: pinned("@anthropic-ai/claude-code"),
    async start() {
      const api = await FakeAnthropic.start();
      const all = (): Turn[] => api.requests.filter((r) => r.path === "/v1/messages").map((r) => ({ asked: userTexts(r.messages).filter((t) => t !== ""), answer: r.answer, session: r.sessionId }));
      return { url: api.url, close: () => api.close(), turnsEndingWith: (m) => turnsOf(all(), m), count: () => api.requests.length };
    },
    prepare(sb, fake, tui) {
      // Print mode takes an API key; the TUI asks whether to trust one, so it gets a token (support.ts).
      Object.assign(sb.env, claudeEnv(fake.url, tui ? "auth-token" : "api-key"));
      if (tui) settleClaudeOnboarding(sb, pinned("@anthropic-ai/claude-code"));
    },
    oneShot: (message) => ["claude", "-p", message, "--output-format", "stream-json", "--verbose"],
    ready: /^\s*[>❯]\s/m,
    sigintExit: 0,
  },
  {
    name: "codex",
    label: "Codex",
    version: pinned("@openai/codex"),
    async start() {
      const api = await FakeOpenAI.start();
      const all = (): Turn[] =>
        api.requests.filter((r) => r.path === "/v1/responses").map((r) => ({
          asked: userTexts(messagesOf(r.input)).filter((t) => !t.startsWith("<environment_context>")),
          answer: r.answer,
          session: r.headers["session-id"],
        }));
      return { url: api.url, close: () => api.close(), turnsEndingWith: (m) => turnsOf(all(), m), count: () => api.requests.length };
    },
    prepare(sb, fake) {
      Object.assign(sb.env, codexEnv);
      writeCodexConfig(sb, fake.url);
    },
    // The sandbox is no git repository: without the flag `codex exec` refuses to start.
    oneShot: (message) => ["codex", "exec", "--json", "--skip-git-repo-check", message],
    ready: /›/,
    sigintExit: 130,
  },
  {
    name: "gemini",
    label: "Gemini CLI",
    version: pinned("@google/gemini-cli"),
    async start() {
      const api = await FakeGemini.start();
      const all = (): Turn[] => api.turns().map((r) => ({ asked: userTexts(r.messages).filter((t) => !t.startsWith("<session_context>")), answer: r.answer, session: undefined }));
      return { url: api.url, close: () => api.close(), turnsEndingWith: (m) => turnsOf(all(), m), count: () => api.requests.length };
    },
    prepare(sb, fake) {
      Object.assign(sb.env, geminiEnv(fake.url));
      // 0.61 writes its API error reports to os.tmpdir(): keep them in the sandbox.
      const tmp = join(sb.dir, "tmp");
      mkdirSync(tmp, { recursive: true });
      sb.env["TMPDIR"] = tmp;
      writeGeminiSettings(sb);
    },
    oneShot: (message) => ["gemini", "-p", message, "--output-format", "stream-json"],
    ready: /Type your message/,
    sigintExit: 0,
  },
];

export interface Shimmed {
  readonly sb: Sandbox;
  /** The folder `sessionpin shim install` wrote to, first on PATH. */
  readonly shims: string;
  /** The folder of the real CLIs (links into interop/node_modules/.bin), right after it. */
  readonly real: string;
}

/**
 * A sandbox as a user sets it up: the real CLIs in a folder of their own on PATH (links named
 * `claude`, `codex`, `gemini`, as an npm global install makes them), `sessionpin shim install
 * claude codex gemini --dir <shims>` by the built CLI, and the shim folder put before it.
 * interop/node_modules/.bin itself is taken off PATH, so the real agent is found only as the
 * next one after the shims.
 */
export function shimmedSandbox(cleanup: Cleanup): Shimmed {
  const sb = realSandbox(cleanup);
  const real = join(sb.dir, "agents-bin");
  mkdirSync(real);
  for (const name of AGENT_NAMES) symlinkSync(join(REAL_BIN, name), join(real, name));
  const shims = join(sb.dir, "shims");
  const installed = spawnSync(process.execPath, [CLI, "shim", "install", ...AGENT_NAMES, "--dir", shims], { cwd: sb.dir, env: sb.env, encoding: "utf8", timeout: 15_000 });
  expect(installed.stderr).toBe("");
  expect(installed.status).toBe(0);
  sb.env["PATH"] = [shims, real, ...(sb.env["PATH"] ?? "").split(delimiter).filter((dir) => dir !== REAL_BIN)].join(delimiter);
  return { sb, shims, real };
}

/** The sandbox's env without the shim folder on PATH: the bare agent, everything else the same. */
export function bareEnv({ sb, shims }: Shimmed): NodeJS.ProcessEnv {
  return { ...sb.env, PATH: (sb.env["PATH"] ?? "").split(delimiter).filter((dir) => dir !== shims).join(delimiter) };
}

/** Where sessionpin keeps default pointers in the sandbox ($XDG_STATE_HOME/sessionpin). */
export const stateDir = (sb: Sandbox): string => join(sb.dir, "xdg-state", "sessionpin");

/** The default pointers of `agent` in the sandbox (one per folder and key), as paths. */
export function pointersOf(sb: Sandbox, agent: AgentName): string[] {
  const dir = join(stateDir(sb), agent);
  return existsSync(dir) ? readdirSync(dir).filter((name) => name.endsWith(".json")).map((name) => join(dir, name)) : [];
}

/** The one pointer of `agent` in the sandbox, once it is confirmed; undefined before. */
export function confirmedPointer(sb: Sandbox, agent: AgentName): Record<string, unknown> | undefined {
  const [path, ...more] = pointersOf(sb, agent);
  if (path === undefined) return undefined;
  expect(more).toEqual([]);
  const pointer = JSON.parse(readFileSync(path, "utf8")) as Record<string, unknown>;
  return pointer["state"] === "confirmed" ? pointer : undefined;
}

/** sessionpin's logs in the sandbox (beside each pointer), for a failed test's report. */
export function logsOf(sb: Sandbox): string {
  return AGENT_NAMES.flatMap((agent) => pointersOf(sb, agent).map((path) => path.replace(/\.json$/, ".log")))
    .filter((path) => existsSync(path))
    .map((path) => `${path}:\n${readFileSync(path, "utf8")}`)
    .join("\n");
}

export type CallResult = OneShotResult;

/** `argv` run by name in the sandbox's folder, as a CI step runs it (headlessCall). */
export function callByName(sb: Sandbox, argv: readonly string[], boundMs: number): Promise<CallResult> {
  return headlessCall(sb, argv, { boundMs });
}
