import { parentPort } from "node:worker_threads";
import { postHere } from "./post.js";
import type { PostMessage, PostReply } from "./post-thread.js";

// The webhook thread: each request posted here is sent with undici, its outcome posted back.
const port = parentPort;
const running = new Map<number, AbortController>();
port?.on("message", (message: PostMessage) => {
  if (message.kind === "abandon") {
    running.get(message.id)?.abort();
    return;
  }
  const abandon = new AbortController();
  running.set(message.id, abandon);
  void postHere(message.request, abandon.signal).then((outcome) => {
    running.delete(message.id);
    port.postMessage({ id: message.id, outcome } satisfies PostReply);
  });
});
