/**
 * The one-shot modes of the real CLIs on pipes (issue 41): one table of what differs per agent
 * (its fake model API read the same way, its offline settings, its one-shot command with the
 * message in argv and without one, how it treats a stdin left open), a call with pipes all round
 * as a CI step or a bridge makes it, and one normaliser that makes two runs' output comparable.
 */
import { mkdirSync, rmSync } from "node:fs";
import { basename, join } from "node:path";
import { cwdOf, WAIT_MS } from "../e2e/support.js";
import type { Sandbox } from "../helpers/sandbox.js";
import { auggieEnv, FakeAugment } from "./auggie-support.js";
import { copilotEnv, trustCwd, typedTexts } from "./copilot-support.js";
import { FakeAnthropic, userTexts } from "./fake-anthropic.js";
import { FakeChat, type RecordedChatRequest } from "./fake-chat.js";
import { FakeOpenAI, messagesOf } from "./fake-openai.js";
import { FakeGemini, geminiEnv, writeGeminiSettings } from "./gemini-support.js";
import { opencodeEnv, userTurns, writeOpencodeConfig } from "./opencode-support.js";
import { MODEL, piEnv, writeOmpConfig, writePiConfig } from "./pi-family-support.js";
import { qwenChats, qwenEnv, writeQwenSettings } from "./qwen-support.js";
import { claudeEnv, closedPort, codexEnv, pinned, writeCodexConfig } from "./support.js";

/** One turn of the conversation as the fake model API received it. */
export interface Turn {
  /** The user's own turns it carried, in order (the CLI's preambles left out). */
  readonly asked: readonly string[];
  readonly answer: string | undefined;
}

/** A fake model API, read the same way for every agent. */
export interface PipeFake {
  readonly url: string;
  close(): Promise<void>;
  /** The conversation's turns, in order: no side calls (titles, memory, routing). */
  turns(): Turn[];
  /** How many requests of any kind it received. */
  count(): number;
}

/**
 * What an agent's one-shot mode does when its stdin is a pipe nobody closes (a bridge that spawns
 * it with stdin open), its message in argv: `waits` for the end of stdin before it asks the model
 * anything; `ignores` it. Seen against the real CLIs here: /work/research/pipes-interop.md.
 */
export type OpenStdin = "waits" | "ignores";

export interface PipedAgent {
  /** The executable and sessionpin's plugin. */
  readonly name: string;
  readonly label: string;
  readonly version: string;
  start(): Promise<PipeFake>;
  /** The env and settings files for one-shot runs against `fake`. */
  prepare(sb: Sandbox, fake: PipeFake): Promise<void>;
  /** The one-shot command with its message in argv. */
  oneShot(message: string): string[];
  /**
   * The same one-shot command without a message, in the forms `echo MSG | sessionpin run --key K
   * -- <form>` is proven with: sessionpin reads stdin as the message and hands it over in argv.
   */
  readonly noMessage: ReadonlyArray<readonly string[]>;
  /** The bare agent reading a piped message itself, for comparison (`echo MSG | claude -p …`). */
  readonly bareFromStdin: readonly string[];
  readonly openStdin: OpenStdin;
  /** What it writes on stderr about a stdin left open, when it does not wait for it. */
  readonly openStdinNote?: RegExp;
  /** An ID of its grammar that no session has (the store check calls it gone, or the agent refuses it). */
  readonly stale: string;
  /**
   * Takes its store of sessions away, so that sessionpin cannot tell a pinned ID is gone and the
   * agent itself refuses it; undefined for an agent whose refusal is proven elsewhere, or that has
   * no store sessionpin reads (OpenCode: its refusal is the one path).
   */
  readonly forget?: (sb: Sandbox) => void;
  /** What the agent prints when it refuses `stale` (forget, or no store). */
  readonly refusal?: RegExp;
  /**
   * What its refusal prints on stdout, which sessionpin moves to stderr (stdout carries only the
   * session that answers). Claude 2.1.330 alone prints there: its `result` line. The others refuse
   * on stderr only.
   */
  readonly refusedStdout?: RegExp;
}

const chatFake = (api: FakeChat, turns: () => Turn[]): PipeFake => ({ url: api.url, close: () => api.close(), turns, count: () => api.requests.length });

/** The conversation's own turns: side calls (titles, memory, suggestions) end with other texts. */
const CONVERSATION = /^(remember the word \w+|which word\?)$/;
const own = (turns: readonly Turn[]): Turn[] => turns.filter((t) => CONVERSATION.test(t.asked.at(-1) ?? ""));
const chatTurns = (api: FakeChat, asked: (r: RecordedChatRequest) => string[], side: (r: RecordedChatRequest) => boolean = () => false): Turn[] =>
  own(api.completions().filter((r) => !side(r)).map((r) => ({ asked: asked(r), answer: r.answer })));
/** OpenCode 1.18.33's title call: its system prompt says "title generator", its last user turn is the message. */
const opencodeTitle = (r: RecordedChatRequest): boolean => r.messages.some((m) => m.role === "system" && typeof m.content === "string" && m.content.includes("title generator"));

const FAMILY = { pi: "@mariozechner/pi-coding-agent", omp: "@oh-my-pi/pi-coding-agent" } as const;

export const PIPED_AGENTS: readonly PipedAgent[] = [
  {
    name: "claude",
    label: "Claude Code",
    version: pinned("@anthropic-ai/claude-code"),
    async start() {
      const api = await FakeAnthropic.start();
      const turns = (): Turn[] => own(api.requests.filter((r) => r.path === "/v1/messages").map((r) => ({ asked: userTexts(r.messages).filter((t) => t !== ""), answer: r.answer })));
      return { url: api.url, close: () => api.close(), turns, count: () => api.requests.length };
    },
    async prepare(sb, fake) {
      Object.assign(sb.env, claudeEnv(fake.url, "api-key"));
    },
    oneShot: (message) => ["claude", "-p", message, "--output-format", "stream-json", "--verbose"],
    noMessage: [["claude", "-p", "--output-format", "stream-json", "--verbose"]],
    bareFromStdin: ["claude", "-p", "--output-format", "stream-json", "--verbose"],
    // 2.1.330 waits 3 s for stdin, then goes on with the argv message and says so on stderr.
    openStdin: "ignores",
    openStdinNote: /^Warning: no stdin data received in 3s, proceeding without it\./m,
    stale: "0b5e8d1c-2f3a-4b6c-8d9e-0f1a2b3c4d5e",
    forget: (sb) => rmSync(join(sb.home, ".claude", "projects", cwdOf(sb).replace(/[^A-Za-z0-9]/g, "-")), { recursive: true, force: true }),
    refusal: /No conversation found with session ID: 0b5e8d1c-2f3a-4b6c-8d9e-0f1a2b3c4d5e/,
    refusedStdout: /^\{"type":"result","subtype":"error_during_execution",.*"is_error":true,.*"session_id":"0b5e8d1c-2f3a-4b6c-8d9e-0f1a2b3c4d5e"/m,
  },
  {
    name: "codex",
    label: "Codex",
    version: pinned("@openai/codex"),
    async start() {
      const api = await FakeOpenAI.start();
      const turns = (): Turn[] =>
        own(api.requests.filter((r) => r.path === "/v1/responses").map((r) => ({
          asked: userTexts(messagesOf(r.input)).filter((t) => !t.startsWith("<environment_context>")),
          answer: r.answer,
        })));
      return { url: api.url, close: () => api.close(), turns, count: () => api.requests.length };
    },
    async prepare(sb, fake) {
      Object.assign(sb.env, codexEnv);
      writeCodexConfig(sb, fake.url);
    },
    // The sandbox is no git repository: without the flag `codex exec` refuses to start.
    oneShot: (message) => ["codex", "exec", "--json", "--skip-git-repo-check", message],
    // `-`: 0.169 reads the prompt from stdin, as it does with none.
    noMessage: [["codex", "exec", "--json", "--skip-git-repo-check"], ["codex", "exec", "--json", "--skip-git-repo-check", "-"]],
    bareFromStdin: ["codex", "exec", "--json", "--skip-git-repo-check"],
    // 0.169 `exec MSG` prints `Reading additional input from stdin...` and waits for its end
    // (`exec resume <id> MSG` does not read stdin).
    openStdin: "waits",
    stale: "01a20562-0000-7181-8578-2b6ce586163b",
    forget: (sb) => rmSync(join(sb.home, ".codex", "sessions"), { recursive: true, force: true }),
    refusal: /no rollout found for thread id 01a20562-0000-7181-8578-2b6ce586163b/,
  },
  {
    name: "gemini",
    label: "Gemini CLI",
    version: pinned("@google/gemini-cli"),
    async start() {
      const api = await FakeGemini.start();
      const turns = (): Turn[] => own(api.turns().map((r) => ({ asked: userTexts(r.messages).filter((t) => !t.startsWith("<session_context>")), answer: r.answer })));
      return { url: api.url, close: () => api.close(), turns, count: () => api.requests.length };
    },
    async prepare(sb, fake) {
      Object.assign(sb.env, geminiEnv(fake.url));
      // 0.61 writes its API error reports to os.tmpdir(): keep them in the sandbox.
      const tmp = join(sb.dir, "tmp");
      mkdirSync(tmp, { recursive: true });
      sb.env["TMPDIR"] = tmp;
      writeGeminiSettings(sb);
    },
    oneShot: (message) => ["gemini", "-p", message, "--output-format", "json"],
    // 0.61's `-p` needs a value (`Not enough arguments following: p`, exit 1); `-p ""` with stdin
    // no terminal reads the message there.
    noMessage: [["gemini", "-p", "", "--output-format", "json"]],
    bareFromStdin: ["gemini", "-p", "", "--output-format", "json"],
    openStdin: "ignores",
    stale: "0badc0de-5e55-4f1d-9a1e-000000000000",
  },
  {
    name: "copilot",
    label: "Copilot CLI",
    version: pinned("@github/copilot"),
    async start() {
      const api = await FakeChat.start();
      return chatFake(api, () => chatTurns(api, (r) => typedTexts(r.messages)));
    },
    async prepare(sb, fake) {
      Object.assign(sb.env, copilotEnv(fake.url));
      trustCwd(sb);
    },
    oneShot: (message) => ["copilot", "-p", message, "--output-format", "json", "--allow-all-tools"],
    // 1.0.102's `-p` needs a value (`a value is required for '--prompt <text>'`, exit 1); `-p ""`
    // with stdin no terminal reads the message there.
    noMessage: [["copilot", "-p", "", "--output-format", "json", "--allow-all-tools"]],
    bareFromStdin: ["copilot", "-p", "", "--output-format", "json", "--allow-all-tools"],
    openStdin: "ignores",
    stale: "0badc0de-0000-4000-8000-00000000c0de",
    forget: (sb) => rmSync(join(sb.home, ".copilot", "session-state"), { recursive: true, force: true }),
    refusal: /No session, task, or name matched '0badc0de-0000-4000-8000-00000000c0de'/,
  },
  {
    name: "opencode",
    label: "OpenCode",
    version: pinned("opencode-ai"),
    async start() {
      const api = await FakeChat.start();
      return chatFake(api, () => chatTurns(api, userTurns, opencodeTitle));
    },
    async prepare(sb, fake) {
      Object.assign(sb.env, opencodeEnv(await closedPort()));
      writeOpencodeConfig(sb, fake.url);
    },
    oneShot: (message) => ["opencode", "run", "--format", "json", message],
    noMessage: [["opencode", "run", "--format", "json"]],
    bareFromStdin: ["opencode", "run", "--format", "json"],
    openStdin: "waits",
    stale: "ses_494719016ffe85dkDMj0FPRbHK",
    refusal: /Session not found/,
  },
  {
    name: "qwen",
    label: "Qwen Code",
    version: pinned("@qwen-code/qwen-code"),
    async start() {
      const api = await FakeChat.start();
      return chatFake(api, () => chatTurns(api, (r) => userTexts(r.messages)));
    },
    async prepare(sb, fake) {
      Object.assign(sb.env, qwenEnv(fake.url));
      writeQwenSettings(sb);
    },
    oneShot: (message) => ["qwen", "-p", message, "--output-format", "stream-json"],
    noMessage: [["qwen", "--output-format", "stream-json", "-p"]],
    bareFromStdin: ["qwen", "--output-format", "stream-json", "-p"],
    openStdin: "ignores",
    stale: "0badc0de-0000-4000-8000-000000000000",
    forget: (sb) => rmSync(qwenChats(sb, cwdOf(sb)), { recursive: true, force: true }),
    refusal: /No saved session found with ID 0badc0de-0000-4000-8000-000000000000/,
  },
  ...(["pi", "omp"] as const).map((name): PipedAgent => ({
    name,
    label: name,
    version: pinned(FAMILY[name]),
    async start() {
      const api = await FakeChat.start();
      return chatFake(api, () => chatTurns(api, (r) => userTexts(r.messages).filter((t) => t !== "")));
    },
    async prepare(sb, fake) {
      if (name === "pi") Object.assign(sb.env, piEnv);
      (name === "pi" ? writePiConfig : writeOmpConfig)(sb, fake.url);
    },
    oneShot: (message) => [name, ...MODEL, "--mode", "json", "-p", message],
    noMessage: [[name, ...MODEL, "--mode", "json", "-p"]],
    bareFromStdin: [name, ...MODEL, "--mode", "json", "-p"],
    // pi 0.73.1 waits without a word; omp 18.2.3 says `Reading prompt from piped stdin (waiting
    // for EOF; ctrl+c to abort)…` on stderr.
    openStdin: "waits",
    stale: name === "pi" ? "01a2145e-bf00-73cb-b3e6-ed06bac459d9" : "01a2145a-d031-74f3-9c4e-73ade84157e7",
    forget: (sb) => rmSync(join(sb.home, `.${name}`, "agent", "sessionpin"), { recursive: true, force: true }),
    refusal: name === "pi" ? /No session found matching '01a2145e-bf00-73cb-b3e6-ed06bac459d9'/ : /Session "01a2145a-d031-74f3-9c4e-73ade84157e7" not found\./,
  })),
  {
    name: "auggie",
    label: "Auggie",
    version: pinned("@augmentcode/auggie"),
    async start() {
      const api = await FakeAugment.start();
      const turns = (): Turn[] => own(api.chats.filter((c) => !c.side).map((c) => ({ asked: userTexts(c.messages), answer: c.answer })));
      return { url: api.url, close: () => api.close(), turns, count: () => api.paths.length };
    },
    async prepare(sb, fake) {
      Object.assign(sb.env, auggieEnv(fake.url));
    },
    oneShot: (message) => ["auggie", "--print", "--output-format", "json", message],
    noMessage: [["auggie", "--print", "--output-format", "json"]],
    bareFromStdin: ["auggie", "--print", "--output-format", "json"],
    openStdin: "ignores",
    stale: "0badc0de-0000-4000-8000-0000000a0610",
    forget: (sb) => rmSync(join(sb.home, ".augment", "sessions"), { recursive: true, force: true }),
    refusal: /No session found matching '0badc0de-0000-4000-8000-0000000a0610'/,
  },
];

/** The agents of `names`, in that order. */
export function pipedAgents(...names: readonly string[]): PipedAgent[] {
  return names.map((name) => {
    const agent = PIPED_AGENTS.find((a) => a.name === name);
    if (agent === undefined) throw new Error(`no piped agent ${name}`);
    return agent;
  });
}

/** One call's bound: a cold real CLI takes 1–20 s on this loaded 2-core machine. */
export const CALL_MS = WAIT_MS * 4;

/**
 * Output made comparable across two runs of the same call in two sandboxes: what is bound to
 * differ becomes a placeholder, everything else stays byte for byte.
 * - the sandbox's folder name (`sessionpin-test-XXXXXX`), in every form an agent prints it (the
 *   path; Claude's and pi's folder names made of it);
 * - UUIDs (session IDs, message IDs, request IDs) and the agents' own IDs (`ses_…`, `msg_…`, `prt_…`),
 *   and the fake APIs' numbered answer IDs (`chatcmpl-fake3`, `resp_fake2`);
 * - ISO times, and the numbers of time-like JSON fields (durations, latencies, timestamps, `…At`,
 *   omp's `ttft`, the time to its first token);
 * - Claude 2.1.330's `messaging_socket_path` (`/tmp/cc-socks/<pid>.sock`);
 * - the order of a `"tools":[…]` list of names (Qwen 0.24.4 lists them in another order each run).
 */
export function normalise(text: string, sb: Sandbox): string {
  return text
    .split(basename(sb.dir)).join("<sandbox>")
    .replace(/\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:Z|[+-]\d{2}:\d{2})?/g, "<time>")
    .replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi, "<uuid>")
    .replace(/\b(ses|msg|prt|call|toolu|req)_[0-9A-Za-z]{8,}/g, "$1_<id>")
    .replace(/\b(chatcmpl-fake|resp_fake|msg_fake)\d+/g, "$1<n>")
    .replace(/"(\w*(?:[dD]uration|[tT]ime|[tT]imestamp|_ms|Ms|[cC]reated|[uU]pdated|[sS]tart|[eE]nd|[eE]lapsed|[lL]atency)\w*|\w+At|ttft)":(\s*)\d+(?:\.\d+)?/g, '"$1":$2<n>')
    .replace(/\/cc-socks\/\d+\.sock/g, "/cc-socks/<pid>.sock")
    .replace(/"tools":\[((?:"[^"\\]*",?)*)\]/g, (_all, names: string) => `"tools":[${names.split(",").sort().join(",")}]`);
}

/** The session a one-shot run's output names first (`session_id`, `sessionId`, `sessionID`, `thread_id`, pi's header `id`). */
export function sessionIn(stdout: string): string | undefined {
  return /"(?:session_id|sessionId|sessionID|thread_id)"\s*:\s*"([^"]+)"/.exec(stdout)?.[1] ?? /\{"type":"session",[^\n]*?"id":"([^"]+)"/.exec(stdout)?.[1];
}

/**
 * An argv sessionpin started in sandbox `from`, for sandbox `to`: its folder name (in paths such as
 * pi's `--session-dir`) and its session `ids` (from → to) swapped.
 */
export function carried(argv: readonly string[], from: Sandbox, to: Sandbox, ids: readonly [string, string] | undefined): string[] {
  return argv.map((word) => {
    const moved = word.split(basename(from.dir)).join(basename(to.dir));
    return ids === undefined ? moved : moved.split(ids[0]).join(ids[1]);
  });
}
