import { messageOf } from "../errors.js";

/** One POST of one event to one webhook. */
export interface PostRequest {
  /** Without credentials: they are in `headers`. */
  readonly url: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
  /** Connect to the end of the response body. */
  readonly timeoutMs: number;
}

export type PostOutcome = { readonly ok: true; readonly status: number } | { readonly ok: false; readonly retry: boolean; readonly error: string };

/** Sends one request; `abandon` ends it early (sessionpin is exiting). Never rejects. */
export type Post = (request: PostRequest, abandon: AbortSignal) => Promise<PostOutcome>;

/** One attempt with undici, in the thread that calls it (post-thread.ts runs it off the PTY's). */
export const postHere: Post = async (request, abandon) => {
  // A timer of our own, not AbortSignal.timeout: held only weakly through AbortSignal.any, that
  // signal was collected with the garbage on Node 20 and never fired, and a receiver that never
  // answered held its request (and a file descriptor) for good.
  const timeout = new AbortController();
  const timer = setTimeout(() => timeout.abort(), request.timeoutMs);
  timer.unref();
  const signal = AbortSignal.any([timeout.signal, abandon]);
  try {
    const { request: send } = await import("undici");
    const response = await send(request.url, { method: "POST", headers: request.headers, body: request.body, signal });
    // Read the answer (up to 64 KiB; a bigger one just closes the connection), so the
    // connection can be reused, and a stalled body times out too.
    await response.body.dump({ limit: 64 * 1024, signal });
    const status = response.statusCode;
    if (status >= 200 && status < 300) return { ok: true, status };
    // A server error, a timeout or rate limit on its side may pass; any other answer will not.
    return { ok: false, retry: status >= 500 || status === 408 || status === 429, error: `HTTP ${status}` };
  } catch (error) {
    const timedOut = signal.aborted && !abandon.aborted;
    return { ok: false, retry: true, error: timedOut ? `no answer within ${request.timeoutMs} ms` : describe(error) };
  } finally {
    clearTimeout(timer);
  }
};

function describe(error: unknown): string {
  const e = error as { code?: unknown; message?: unknown; cause?: { code?: unknown; message?: unknown } } | undefined;
  const code = typeof e?.code === "string" ? e.code : typeof e?.cause?.code === "string" ? e.cause.code : undefined;
  const message = messageOf(error);
  return code !== undefined && !message.includes(code) ? `${code}: ${message}` : message;
}
