import type { Worker } from "node:worker_threads";
import { messageOf } from "../errors.js";
import type { Post, PostOutcome, PostRequest } from "./post.js";

/** What the main thread tells the webhook thread (post-worker.ts). */
export type PostMessage =
  | { readonly kind: "post"; readonly id: number; readonly request: PostRequest }
  | { readonly kind: "abandon"; readonly id: number };

/** What the webhook thread answers: the outcome of request `id`. */
export interface PostReply {
  readonly id: number;
  readonly outcome: PostOutcome;
}

/**
 * Sends webhooks from a worker thread. Loading undici takes ~70 ms of compiling, and on the
 * thread that relays the agent's bytes it held the screen and the keyboard that long at the
 * first pin, the moment a user watches; creating the thread costs the relay ~2 ms. The thread
 * starts with the first request and never keeps the process alive, as a backoff wait does not:
 * at exit, `Notifier.settled` holds it while it waits, within its bound.
 */
export function postOnThread(worker = new URL("./post-worker.js", import.meta.url)): Post {
  let thread: Promise<Started> | undefined;
  let current: Started | undefined;
  let next = 0;
  const start = async (): Promise<Started> => {
    // Imported here: the CLI is one bundle, and most runs send no webhook.
    const { Worker: Thread } = await import("node:worker_threads");
    // None of the parent's Node flags: the thread needs none, and some (--input-type, --eval) stop it.
    const started: Started = { worker: new Thread(worker, { execArgv: [] }), waiting: new Map() };
    const stopped = (error: string): void => {
      // What it was sending failed; the next request starts a new thread.
      started.stopped ??= error;
      if (current === started) thread = current = undefined;
      for (const settle of started.waiting.values()) settle({ ok: false, retry: true, error });
      started.waiting.clear();
    };
    started.worker.on("message", ({ id, outcome }: PostReply) => {
      started.waiting.get(id)?.(outcome);
      started.waiting.delete(id);
    });
    started.worker.on("error", (error) => stopped(`the webhook thread failed: ${messageOf(error)}`));
    started.worker.on("exit", (code) => stopped(`the webhook thread stopped (exit code ${code})`));
    // After the listeners: adding one refs the thread's port again.
    started.worker.unref();
    current = started;
    return started;
  };
  return async (request, abandon) => {
    let started: Started;
    try {
      started = await (thread ??= start());
    } catch (error) {
      // A thread the system would not create (a process or memory limit): the next attempt tries again.
      thread = undefined;
      return { ok: false, retry: true, error: `the webhook thread cannot start: ${messageOf(error)}` };
    }
    if (started.stopped !== undefined) return { ok: false, retry: true, error: started.stopped };
    // Abandoned while the thread started: an abort now would find no listener.
    if (abandon.aborted) return { ok: false, retry: false, error: "abandoned" };
    const { worker: to, waiting } = started;
    const id = next++;
    const outcome = new Promise<PostOutcome>((resolve) => waiting.set(id, resolve));
    const onAbandon = (): void => to.postMessage({ kind: "abandon", id } satisfies PostMessage);
    abandon.addEventListener("abort", onAbandon, { once: true });
    to.postMessage({ kind: "post", id, request } satisfies PostMessage);
    try {
      return await outcome;
    } finally {
      abandon.removeEventListener("abort", onAbandon);
    }
  };
}

/** A webhook thread, and the requests sent to it that await their outcome, by id. */
interface Started {
  readonly worker: Worker;
  readonly waiting: Map<number, (outcome: PostOutcome) => void>;
  /** Why it stopped, once it did. */
  stopped?: string;
}
