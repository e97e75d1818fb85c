/**
 * A fake Anthropic Messages API on 127.0.0.1 for the real Claude Code CLI
 * (`ANTHROPIC_BASE_URL=<url>`). It answers `POST /v1/messages` in both forms (streaming SSE
 * `message_start` … `message_stop`, or one JSON message) and `POST /v1/messages/count_tokens`,
 * answers anything else with a 404 error body, and records every request: the
 * `x-claude-code-session-id` header and the `messages` it carried. That record is the proof that
 * a resumed session really is the same conversation: the same session header, the earlier turns
 * sent again.
 *
 * The answer is a pure function of the conversation: "which word?" is answered with the word of
 * the last "remember the word <w>" the user said, so a resumed conversation can be told from a
 * fresh one by what the model "remembers".
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { LocalServer, readRequest, sendJson } from "./local-server.js";

export interface ApiMessage {
  readonly role: string;
  readonly content: unknown;
}

export interface RecordedRequest {
  readonly method: string;
  /** The path without the query (Claude Code adds `?beta=true`). */
  readonly path: string;
  readonly sessionId: string | undefined;
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
  readonly stream: boolean;
  readonly model: string | undefined;
  readonly messages: readonly ApiMessage[];
  /** What the fake answered (for /v1/messages), else undefined. */
  readonly answer: string | undefined;
}

/** The plain text of a message's content (a string, or the `text` of its text blocks). */
export function textOf(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content
    .map((block: unknown) => (typeof block === "object" && block !== null && (block as { type?: unknown }).type === "text" ? String((block as { text?: unknown }).text ?? "") : ""))
    .join("\n");
}

/** The texts of the user's messages, in order, with Claude Code's `<system-reminder>` blocks left out. */
export function userTexts(messages: readonly ApiMessage[]): string[] {
  return messages.filter((m) => m.role === "user").map((m) => textOf(m.content).replace(/<system-reminder>[\s\S]*?<\/system-reminder>/g, "").trim());
}

/** The default answer: remembers words, otherwise acknowledges. */
export function answerFor(messages: readonly ApiMessage[]): string {
  const texts = userTexts(messages);
  const last = texts.at(-1) ?? "";
  if (/which word/i.test(last)) {
    const words = texts.flatMap((text) => [...text.matchAll(/remember the word (\w+)/gi)].map((m) => m[1]));
    const word = words.at(-1);
    return word === undefined ? "FAKE-API: no word was given in this conversation." : `FAKE-API: the word is ${word}.`;
  }
  const remembered = /remember the word (\w+)/i.exec(last);
  if (remembered) return `FAKE-API: noted the word ${remembered[1]}.`;
  return `FAKE-API: ok (${texts.length} user messages).`;
}

export class FakeAnthropic {
  readonly requests: RecordedRequest[] = [];
  readonly #server: LocalServer;
  #messageCount = 0;

  private constructor(server: LocalServer) {
    this.#server = server;
  }

  /** Listens on 127.0.0.1 at a free port. */
  static async start(): Promise<FakeAnthropic> {
    let fake: FakeAnthropic | undefined;
    const server = await LocalServer.start((req, res) => void fake?.handle(req, res));
    fake = new FakeAnthropic(server);
    return fake;
  }

  get url(): string {
    return this.#server.origin;
  }

  /**
   * Requests that carried the conversation, i.e. whose user messages contain `text` (Claude Code
   * also sends side requests, e.g. for a title, with other messages).
   */
  conversation(text: string): RecordedRequest[] {
    return this.requests.filter((r) => r.path === "/v1/messages" && userTexts(r.messages).some((t) => t.includes(text)));
  }

  close(): Promise<void> {
    return this.#server.close();
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const { path, body } = await readRequest(req);
    const header = req.headers["x-claude-code-session-id"];
    const messages = Array.isArray(body["messages"]) ? (body["messages"] as ApiMessage[]) : [];
    const stream = body["stream"] === true;
    const model = typeof body["model"] === "string" ? body["model"] : undefined;
    const isMessages = req.method === "POST" && path === "/v1/messages";
    const answer = isMessages ? answerFor(messages) : undefined;
    this.requests.push({ method: req.method ?? "", path, sessionId: Array.isArray(header) ? header[0] : header, headers: { ...req.headers }, stream, model, messages, answer });

    if (isMessages && answer !== undefined) {
      this.#messageCount += 1;
      const id = `msg_fake${String(this.#messageCount).padStart(6, "0")}`;
      if (stream) sendStream(res, id, model ?? "claude-fake", answer);
      else sendJson(res, 200, messageObject(id, model ?? "claude-fake", answer), REQUEST_ID);
      return;
    }
    if (req.method === "POST" && path === "/v1/messages/count_tokens") {
      sendJson(res, 200, { input_tokens: Math.ceil(JSON.stringify(body).length / 4) }, REQUEST_ID);
      return;
    }
    sendJson(res, 404, { type: "error", error: { type: "not_found_error", message: `fake Anthropic API: no ${req.method} ${path}` } }, REQUEST_ID);
  }
}

const usage = (output: number) => ({ input_tokens: 12, output_tokens: output, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 });

function messageObject(id: string, model: string, text: string): Record<string, unknown> {
  return { id, type: "message", role: "assistant", model, content: [{ type: "text", text }], stop_reason: "end_turn", stop_sequence: null, usage: usage(text.split(" ").length) };
}

const REQUEST_ID = { "request-id": "req_fake" };

function sendStream(res: ServerResponse, id: string, model: string, text: string): void {
  res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache", "request-id": "req_fake" });
  const event = (type: string, data: Record<string, unknown>): void => {
    res.write(`event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`);
  };
  event("message_start", { message: { ...messageObject(id, model, ""), content: [], stop_reason: null, usage: usage(1) } });
  event("content_block_start", { index: 0, content_block: { type: "text", text: "" } });
  event("ping", {});
  // Two deltas, so a client that joins them is exercised.
  const cut = Math.ceil(text.length / 2);
  event("content_block_delta", { index: 0, delta: { type: "text_delta", text: text.slice(0, cut) } });
  event("content_block_delta", { index: 0, delta: { type: "text_delta", text: text.slice(cut) } });
  event("content_block_stop", { index: 0 });
  event("message_delta", { delta: { stop_reason: "end_turn", stop_sequence: null }, usage: { output_tokens: text.split(" ").length } });
  event("message_stop", {});
  res.end();
}
