/**
 * Auggie (`@augmentcode/auggie` 0.36.0) offline: a fake Augment API on 127.0.0.1, the env and
 * settings that point the real CLI at it, and agentapi's typing as Auggie's TUI needs it.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { PtyDriver } from "../../src/pty/driver.js";
import type { Sandbox } from "../helpers/sandbox.js";
import { settled } from "./support.js";
import { answerFor, textOf, type ApiMessage } from "./fake-anthropic.js";
import { LocalServer, readRequest, sendJson } from "./local-server.js";

/** One `POST /chat-stream` as the fake received it. */
export interface AugmentChat {
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
  /** `conversation_id`: 0.36.0 sends the session ID (the `<uuid>` of ~/.augment/sessions/<uuid>.json). */
  readonly conversationId: string | undefined;
  /** The earlier turns (`chat_history`) then this request's text, as user/assistant messages. */
  readonly messages: readonly ApiMessage[];
  /**
   * A side call, not a turn: after the first turn the TUI asks for a session title with a
   * `message` ("Please provide a clear and concise title for this message. … Message: <text>").
   */
  readonly side: boolean;
  readonly answer: string | undefined;
}

interface Exchange {
  readonly request_message?: string;
  readonly response_text?: string;
  readonly request_nodes?: ReadonlyArray<{ type?: number; text_node?: { content?: string } }>;
  readonly response_nodes?: ReadonlyArray<{ type?: number; content?: string }>;
}

/** The text nodes (type 0) of a request, else its `message`. */
const requestText = (message: string | undefined, nodes: Exchange["request_nodes"]): string => {
  const texts = (nodes ?? []).filter((n) => n.type === 0 && typeof n.text_node?.content === "string").map((n) => n.text_node?.content ?? "");
  return texts.length > 0 ? texts.join("\n") : message ?? "";
};

/**
 * The conversation a `/chat-stream` body carries, as ApiMessages for answerFor. 0.36.0 sends the
 * new text as a text node (`nodes: [{type: 0, text_node: {content}}]`, `message: ""`) and every
 * earlier exchange in `chat_history` (`request_nodes` with the user's text node, `response_nodes`
 * / `response_text` with the answer), also after a restart with `--resume <id>`.
 */
export function augmentMessages(body: Record<string, unknown>): ApiMessage[] {
  const history = Array.isArray(body["chat_history"]) ? (body["chat_history"] as Exchange[]) : [];
  const messages: ApiMessage[] = [];
  for (const exchange of history) {
    messages.push({ role: "user", content: requestText(exchange.request_message, exchange.request_nodes) });
    const answer = (exchange.response_nodes ?? []).filter((n) => n.type === 0).map((n) => n.content ?? "").join("") || exchange.response_text || "";
    messages.push({ role: "assistant", content: answer });
  }
  const nodes = Array.isArray(body["nodes"]) ? (body["nodes"] as Exchange["request_nodes"]) : [];
  messages.push({ role: "user", content: requestText(typeof body["message"] === "string" ? body["message"] : undefined, nodes) });
  return messages;
}

/**
 * The Augment API as far as 0.36.0 needs it offline: `POST /get-models` (a default model; with
 * `{}` 0.36.0 reports "converting get-models response failed" and sends no user text at all),
 * `/agents/list-remote-tools` (`{"tools":[]}`), `/chat-stream` (NDJSON: the answer as a text
 * node, then `stop_reason`), and `{}` for the rest (MCP settings, error reports, indexing).
 */
export class FakeAugment {
  readonly chats: AugmentChat[] = [];
  readonly paths: string[] = [];
  /** When set, every request is refused with this status (0.36.0 then says "Authentication failed"). */
  refuseWith: number | undefined;
  readonly #server: LocalServer;

  private constructor(server: LocalServer) {
    this.#server = server;
  }

  static async start(): Promise<FakeAugment> {
    let fake: FakeAugment | undefined;
    const server = await LocalServer.start((req, res) => void fake?.handle(req, res));
    fake = new FakeAugment(server);
    return fake;
  }

  /** Auggie's tenant URL. */
  get url(): string {
    return `${this.#server.origin}/`;
  }

  /** The turns (no title calls) whose last user text contains `text` (Auggie may prefix agentapi's `x`). */
  turns(text: string): AugmentChat[] {
    return this.chats.filter((c) => !c.side && textOf(c.messages.at(-1)?.content).includes(text));
  }

  close(): Promise<void> {
    return this.#server.close();
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const { path, body } = await readRequest(req);
    this.paths.push(path);
    if (this.refuseWith !== undefined) return sendJson(res, this.refuseWith, { error: "fake augment: refused" });
    if (path === "/get-models") {
      return sendJson(res, 200, { default_model: "fake-model", models: [{ name: "fake-model", suggested_prefix_char_count: 0, suggested_suffix_char_count: 0 }], feature_flags: {} });
    }
    if (path === "/agents/list-remote-tools") return sendJson(res, 200, { tools: [] });
    if (path !== "/chat-stream") return sendJson(res, 200, {});
    const messages = augmentMessages(body);
    const side = typeof body["message"] === "string" && body["message"] !== "";
    const answer = answerFor(messages);
    const conversationId = typeof body["conversation_id"] === "string" ? body["conversation_id"] : undefined;
    this.chats.push({ headers: { ...req.headers }, conversationId, messages, side, answer });
    res.writeHead(200, { "content-type": "application/json" });
    res.write(`${JSON.stringify({ text: answer, nodes: [{ id: 1, type: 0, content: answer }] })}\n`);
    res.end(`${JSON.stringify({ text: "", stop_reason: 1 })}\n`);
  }
}


/** The env that sends 0.36.0 to `tenantURL` with any token (no `auggie login`). */
export const auggieEnv = (tenantURL: string): NodeJS.ProcessEnv => ({
  AUGMENT_SESSION_AUTH: JSON.stringify({ accessToken: "interop-fake-token", tenantURL, scopes: ["read", "write"] }),
});

/** Settles the TUI's onboarding screen: without it 0.36.0 opens its welcome flow. */
export function settleAuggieOnboarding(sb: Sandbox): void {
  const dir = join(sb.home, ".augment");
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, ".auggie.json"), `${JSON.stringify({ onboardingVersion: "1.0.0" })}\n`);
}

/**
 * A message typed the agentapi way, at agentapi's pace: `x\b` and the bracketed paste, then `\r`
 * once the screen is still (agentapi waits for the screen to settle before the carriage return).
 * PtyDriver.sendMessage writes all three at once: 0.36.0's input then drops the whole paste and
 * submits just "x". 0.36.0 also does not take `\b` as a backspace, so the text arrives as
 * "x<text>" ("xremember the word zebra").
 */
export async function typeMessage(driver: PtyDriver, text: string): Promise<void> {
  driver.write("x\b");
  driver.write(`\x1b[200~${text}\x1b[201~`);
  await driver.waitFor(new RegExp(text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")), 15_000);
  await settled(driver, 1_000);
  driver.write("\r");
}
