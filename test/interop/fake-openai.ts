/**
 * A fake OpenAI Responses API on 127.0.0.1 for the real Codex CLI, configured as a custom model
 * provider in `$CODEX_HOME/config.toml` (see codexConfig in support.ts). Without a model server
 * Codex 0.169 starts a turn and then waits for the network forever; with this one a turn
 * completes in milliseconds, so its rollout is written and `codex exec resume` has a thread to
 * load. It answers `POST /v1/responses` with an SSE stream (`response.created`, one assistant
 * message, `response.completed`), anything else with a 404, and records every request: its
 * headers and the `input` items it carried (a resumed thread sends the earlier turns again).
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { LocalServer, readRequest, sendJson } from "./local-server.js";
import { answerFor, type ApiMessage } from "./fake-anthropic.js";

export interface RecordedResponsesRequest {
  readonly method: string;
  readonly path: string;
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
  /** The `input` items of the body (messages, tool calls, …). */
  readonly input: readonly Record<string, unknown>[];
  readonly answer: string | undefined;
}

/** The input items as chat messages with plain text (`input_text`/`output_text` parts joined). */
export function messagesOf(input: readonly Record<string, unknown>[]): ApiMessage[] {
  return input
    .filter((item) => item["type"] === "message" && typeof item["role"] === "string")
    .map((item) => {
      const content = Array.isArray(item["content"]) ? (item["content"] as Array<Record<string, unknown>>) : [];
      const text = content.map((part) => (typeof part["text"] === "string" ? part["text"] : "")).join("\n");
      return { role: String(item["role"]), content: text };
    });
}

export class FakeOpenAI {
  readonly requests: RecordedResponsesRequest[] = [];
  /** While set, every `/v1/responses` request is refused with this status (a revoked key, an outage). */
  failWith: number | undefined;
  /** How long each `/v1/responses` answer waits: runs in flight at once overlap (a busy model). */
  delayMs = 0;
  readonly #server: LocalServer;
  #count = 0;

  private constructor(server: LocalServer) {
    this.#server = server;
  }

  /** Listens on 127.0.0.1 at a free port. */
  static async start(): Promise<FakeOpenAI> {
    let fake: FakeOpenAI | undefined;
    const server = await LocalServer.start((req, res) => void fake?.handle(req, res));
    fake = new FakeOpenAI(server);
    return fake;
  }

  /** The provider's base URL (Codex appends `/responses`). */
  get url(): string {
    return `${this.#server.origin}/v1`;
  }

  /**
   * `/v1/responses` requests with a user message that is exactly `text`: the conversation's own
   * turns (Codex's side request for a thread title quotes the prompt inside a longer message).
   */
  conversation(text: string): RecordedResponsesRequest[] {
    return this.requests.filter((r) => r.path === "/v1/responses" && messagesOf(r.input).some((m) => m.role === "user" && String(m.content).trim() === text));
  }

  close(): Promise<void> {
    return this.#server.close();
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const { path, body } = await readRequest(req);
    const input = Array.isArray(body["input"]) ? (body["input"] as Array<Record<string, unknown>>) : [];
    const isResponses = req.method === "POST" && path === "/v1/responses";
    const answer = isResponses ? answerFor(messagesOf(input)) : undefined;
    this.requests.push({ method: req.method ?? "", path, headers: { ...req.headers }, input, answer });
    if (isResponses && this.failWith !== undefined) {
      sendJson(res, this.failWith, { error: { message: `fake OpenAI API: refused with ${this.failWith}`, type: this.failWith === 401 ? "invalid_api_key" : "server_error" } });
      return;
    }
    if (!isResponses || answer === undefined) {
      sendJson(res, 404, { error: { message: `fake OpenAI API: no ${req.method} ${path}`, type: "invalid_request_error" } });
      return;
    }
    if (this.delayMs > 0) await new Promise((resolve) => setTimeout(resolve, this.delayMs));
    this.#count += 1;
    const id = `resp_fake${this.#count}`;
    res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
    const event = (data: Record<string, unknown>): void => {
      res.write(`event: ${String(data["type"])}\ndata: ${JSON.stringify(data)}\n\n`);
    };
    event({ type: "response.created", response: { id } });
    event({ type: "response.output_item.done", item: { type: "message", role: "assistant", id: `msg_fake${this.#count}`, content: [{ type: "output_text", text: answer }] } });
    const usage = { input_tokens: 12, input_tokens_details: null, output_tokens: 6, output_tokens_details: null, total_tokens: 18 };
    event({ type: "response.completed", response: { id, usage } });
    res.end();
  }
}
