/**
 * A fake OpenAI Chat Completions API on 127.0.0.1, shared by every real CLI that speaks it
 * (Qwen Code, Copilot's bring-your-own-key provider, OpenCode's openai-compatible provider, omp,
 * pi). It answers `POST /v1/chat/completions` streamed (SSE chunks, a usage chunk when
 * `stream_options.include_usage`, then `[DONE]`) or as one JSON object, `GET /v1/models`, and
 * anything else with a 404 error body. It records every request with the messages it carried:
 * a resumed session sends its earlier turns again, and the answer (see answerFor) is a pure
 * function of those turns, so what the "model" remembers shows which conversation was continued.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { LocalServer, readRequest, sendJson } from "./local-server.js";
import { answerFor, userTexts, type ApiMessage } from "./fake-anthropic.js";

export interface RecordedChatRequest {
  readonly method: string;
  readonly path: string;
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
  readonly model: string | undefined;
  readonly stream: boolean;
  readonly messages: readonly ApiMessage[];
  /** What the fake answered (chat completions only), else undefined. */
  readonly answer: string | undefined;
}

const MODELS = ["fake-model", "gpt-4.1"];

export class FakeChat {
  readonly requests: RecordedChatRequest[] = [];
  /** When set, every chat completion is refused with this status (an auth or server failure). */
  refuseWith: number | undefined;
  readonly #server: LocalServer;
  #count = 0;

  private constructor(server: LocalServer) {
    this.#server = server;
  }

  /** Listens on 127.0.0.1 at a free port. */
  static async start(): Promise<FakeChat> {
    let fake: FakeChat | undefined;
    const server = await LocalServer.start((req, res) => void fake?.handle(req, res));
    fake = new FakeChat(server);
    return fake;
  }

  /** The OpenAI-style base URL (clients append `/chat/completions`). */
  get url(): string {
    return `${this.#server.origin}/v1`;
  }

  get origin(): string {
    return this.#server.origin;
  }

  /** Chat completions whose user turns include one that is exactly `text` (side calls quote it inside longer ones). */
  conversation(text: string): RecordedChatRequest[] {
    return this.completions().filter((r) => userTexts(r.messages).some((t) => t === text));
  }

  /** Every chat completion request, in order. */
  completions(): RecordedChatRequest[] {
    return this.requests.filter((r) => r.path.endsWith("/chat/completions"));
  }

  close(): Promise<void> {
    return this.#server.close();
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const { path, body } = await readRequest(req);
    const messages = Array.isArray(body["messages"]) ? (body["messages"] as ApiMessage[]) : [];
    const isChat = req.method === "POST" && path.endsWith("/chat/completions");
    const answer = isChat && this.refuseWith === undefined ? answerFor(messages) : undefined;
    const stream = body["stream"] === true;
    const model = typeof body["model"] === "string" ? body["model"] : undefined;
    this.requests.push({ method: req.method ?? "", path, headers: { ...req.headers }, model, stream, messages, answer });

    if (req.method === "GET" && path.endsWith("/models")) {
      sendJson(res, 200, { object: "list", data: MODELS.map((id) => ({ id, object: "model", created: 0, owned_by: "fake" })) });
      return;
    }
    if (!isChat) {
      sendJson(res, 404, { error: { message: `fake chat API: no ${req.method} ${path}`, type: "invalid_request_error" } });
      return;
    }
    if (answer === undefined) {
      sendJson(res, this.refuseWith ?? 500, { error: { message: "fake chat API: refused", type: "authentication_error", code: "invalid_api_key" } });
      return;
    }
    this.#count += 1;
    const id = `chatcmpl-fake${this.#count}`;
    const usage = { prompt_tokens: 12, completion_tokens: 6, total_tokens: 18 };
    const created = Math.floor(Date.now() / 1000);
    if (!stream) {
      sendJson(res, 200, {
        id, object: "chat.completion", created, model: model ?? MODELS[0],
        choices: [{ index: 0, message: { role: "assistant", content: answer }, finish_reason: "stop" }],
        usage,
      });
      return;
    }
    res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
    const chunk = (choices: unknown[], extra: Record<string, unknown> = {}): void => {
      res.write(`data: ${JSON.stringify({ id, object: "chat.completion.chunk", created, model: model ?? MODELS[0], choices, ...extra })}\n\n`);
    };
    chunk([{ index: 0, delta: { role: "assistant", content: "" }, finish_reason: null }]);
    chunk([{ index: 0, delta: { content: answer }, finish_reason: null }]);
    chunk([{ index: 0, delta: {}, finish_reason: "stop" }]);
    const options = body["stream_options"];
    if (typeof options === "object" && options !== null && (options as Record<string, unknown>)["include_usage"] === true) chunk([], { usage });
    res.write("data: [DONE]\n\n");
    res.end();
  }
}

