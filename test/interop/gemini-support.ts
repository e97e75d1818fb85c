/**
 * Gemini CLI against a fake Gemini API on 127.0.0.1: the env, the settings files that let it run
 * offline, and the fake API itself. Gemini CLI 0.61.0 talks to `GOOGLE_GEMINI_BASE_URL` with
 * `POST /v1beta/models/<model>:streamGenerateContent?alt=sse` (the turns), `:generateContent`
 * (side calls: the model router's classifier, the next-speaker check, both asking for JSON) and
 * `:countTokens`. The fake records each request's `contents` and answers with answerFor (see
 * fake-anthropic.ts), mapping Gemini's `contents` (role user/model, parts[].text) to messages: a
 * resumed session sends its earlier turns again, so what the "model" remembers shows which
 * conversation a request continued.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import type { IncomingMessage, ServerResponse } from "node:http";
import { join } from "node:path";
import type { PtyDriver } from "../../src/pty/driver.js";
import { cwdOf, sleep, WAIT_MS } from "../e2e/support.js";
import type { Sandbox } from "../helpers/sandbox.js";
import { answerFor, userTexts, type ApiMessage } from "./fake-anthropic.js";
import { LocalServer, readRequest, sendJson } from "./local-server.js";
import { settled } from "./support.js";

export interface RecordedGeminiRequest {
  readonly method: string;
  readonly path: string;
  /** `streamGenerateContent`, `generateContent`, `countTokens`, or "" for anything else. */
  readonly action: string;
  /** Whether the request asked for JSON output (a side call), not a turn of the conversation. */
  readonly wantsJson: boolean;
  readonly messages: readonly ApiMessage[];
  /** What the fake answered, else undefined. */
  readonly answer: string | undefined;
}

interface Content {
  readonly role?: string;
  readonly parts?: ReadonlyArray<{ readonly text?: unknown }>;
}

/**
 * Gemini `contents` as Anthropic-style messages, one per text part (role user/assistant): 0.61
 * sends its `<session_context>` and the first user message as two parts of one user content.
 */
function messagesOf(contents: unknown): ApiMessage[] {
  if (!Array.isArray(contents)) return [];
  return (contents as Content[]).flatMap((c) => (c.parts ?? []).flatMap((p) => (typeof p.text === "string" ? [{
    role: c.role === "model" ? "assistant" : (c.role ?? "user"),
    content: p.text,
  }] : [])));
}

/** The object a JSON side call gets: every field the router's classifier and the next-speaker check read. */
const SIDE_ANSWER = {
  reasoning: "fake",
  model_choice: "flash",
  complexity_reasoning: "fake",
  complexity_score: 1,
  next_speaker: "user",
};

export class FakeGemini {
  readonly requests: RecordedGeminiRequest[] = [];
  /** When set, every generate call is refused with this status (an auth or server failure). */
  refuseWith: number | undefined;
  readonly #server: LocalServer;

  private constructor(server: LocalServer) {
    this.#server = server;
  }

  static async start(): Promise<FakeGemini> {
    let fake: FakeGemini | undefined;
    const server = await LocalServer.start((req, res) => void fake?.handle(req, res));
    fake = new FakeGemini(server);
    return fake;
  }

  /** GOOGLE_GEMINI_BASE_URL (the client appends `/v1beta/models/…`). */
  get url(): string {
    return this.#server.origin;
  }

  /** The conversation turns (not side calls) whose user texts include one that is exactly `text`. */
  conversation(text: string): RecordedGeminiRequest[] {
    return this.turns().filter((r) => userTexts(r.messages).includes(text));
  }

  /** Every streamed turn request, in order. */
  turns(): RecordedGeminiRequest[] {
    return this.requests.filter((r) => r.action === "streamGenerateContent" && !r.wantsJson);
  }

  close(): Promise<void> {
    return this.#server.close();
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const { path, body } = await readRequest(req);
    const action = /:(streamGenerateContent|generateContent|countTokens)$/.exec(path)?.[1] ?? "";
    const config = (body["generationConfig"] ?? {}) as Record<string, unknown>;
    const wantsJson = config["responseMimeType"] === "application/json" || config["responseJsonSchema"] !== undefined || config["responseSchema"] !== undefined;
    const messages = messagesOf(body["contents"]);
    const generate = action === "streamGenerateContent" || action === "generateContent";
    const answer = generate && this.refuseWith === undefined ? (wantsJson ? JSON.stringify(SIDE_ANSWER) : answerFor(messages)) : undefined;
    this.requests.push({ method: req.method ?? "", path, action, wantsJson, messages, answer });

    if (action === "countTokens") {
      sendJson(res, 200, { totalTokens: 12 });
      return;
    }
    if (!generate) {
      sendJson(res, 404, { error: { code: 404, message: `fake Gemini API: no ${req.method} ${path}`, status: "NOT_FOUND" } });
      return;
    }
    if (answer === undefined) {
      const status = this.refuseWith ?? 500;
      sendJson(res, status, { error: { code: status, message: "fake Gemini API: refused (API key not valid)", status: status === 401 ? "UNAUTHENTICATED" : "INTERNAL" } });
      return;
    }
    const response = {
      candidates: [{ content: { role: "model", parts: [{ text: answer }] }, finishReason: "STOP", index: 0 }],
      usageMetadata: { promptTokenCount: 12, candidatesTokenCount: 6, totalTokenCount: 18 },
      modelVersion: "gemini-fake",
    };
    if (action === "generateContent") {
      sendJson(res, 200, response);
      return;
    }
    res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
    res.write(`data: ${JSON.stringify(response)}\r\n\r\n`);
    res.end();
  }
}


/** Env for Gemini CLI against the fake API (any API key does). */
export function geminiEnv(baseUrl: string): NodeJS.ProcessEnv {
  return { GEMINI_API_KEY: "x", GOOGLE_GEMINI_BASE_URL: baseUrl };
}

export interface GeminiSettings {
  /** `security.auth.selectedType`; without it 0.61.0 fails `Invalid auth method selected.` (exit 41). */
  readonly auth?: boolean;
  /** Whether the sandbox's cwd is in trustedFolders.json; untrusted headless runs exit 55. */
  readonly trusted?: boolean;
}

/**
 * `$HOME/.gemini/settings.json` (API-key auth, session retention off: with it on, the next other
 * session in the folder deletes every file of a resumed session) and trustedFolders.json.
 */
export function writeGeminiSettings(sb: Sandbox, { auth = true, trusted = true }: GeminiSettings = {}): void {
  const dir = join(sb.home, ".gemini");
  mkdirSync(dir, { recursive: true });
  const settings = {
    ...(auth ? { security: { auth: { selectedType: "gemini-api-key" } } } : {}),
    general: { sessionRetention: { enabled: false } },
  };
  writeFileSync(join(dir, "settings.json"), `${JSON.stringify(settings, null, 2)}\n`);
  if (trusted) writeFileSync(join(dir, "trustedFolders.json"), `${JSON.stringify({ [cwdOf(sb)]: "TRUST_FOLDER" }, null, 2)}\n`);
}

/**
 * Types a chat message the way agentapi's writeStabilize does: `x\b` and the text as a bracketed
 * paste, then, once the echo has changed the screen and it is still again, `\r` on its own.
 * PtyDriver.sendMessage writes all three at once, and 0.61 takes an Enter within 40 ms of a paste
 * for a newline inside the message (InputPrompt.tsx, `recentUnsafePasteTime`), so nothing is sent.
 */
export async function typeLikeAgentapi(driver: PtyDriver, text: string): Promise<void> {
  const before = driver.output.length;
  driver.write("x\b");
  driver.write(`\x1b[200~${text}\x1b[201~`);
  const deadline = Date.now() + WAIT_MS;
  while (driver.output.length === before && Date.now() < deadline) await sleep(25);
  await settled(driver, 500, WAIT_MS);
  driver.write("\r");
}
