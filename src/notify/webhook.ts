import { setMaxListeners } from "node:events";
import { setTimeout as delay } from "node:timers/promises";
import { messageOf, SessionpinError } from "../errors.js";
import type { Post, PostOutcome } from "./post.js";
import { postOnThread } from "./post-thread.js";
import type { Logger } from "../log/logger.js";

/** What happened to the pinned ID. */
export type NotifyKind = "captured" | "confirmed" | "resumed" | "rejected" | "changed";

/** The JSON body POSTed to every URL. */
export interface NotifyEvent {
  readonly kind: NotifyKind;
  readonly agent: string;
  readonly id: string;
  readonly cwd: string;
  /** The pointer file's path. */
  readonly pointer: string;
  /** `--key`: the external conversation (chat thread, PR) the session serves, when named. */
  readonly key?: string;
  /** When it happened, ISO 8601. */
  readonly time: string;
  /** `changed`: the ID followed before; `rejected`: the same as `id`. */
  readonly previous?: string;
  /** `rejected`: what the agent said. */
  readonly reason?: string;
  /** `resumed`: what the start delivers to the session (a new message, the resume prompt), or null. */
  readonly delivers?: "task" | "follow-up" | "resume-prompt" | null;
}

export interface NotifierOptions {
  /** One attempt, connect to end of the response body (default 5000). */
  readonly timeoutMs?: number;
  /** Attempts per URL and event, the first included (default 3). */
  readonly attempts?: number;
  /** Wait before the second attempt; doubled for each later one (default 500). */
  readonly backoffMs?: number;
  /**
   * What settled() waits at most, in total, before it abandons what is still in flight (default
   * 3000: agentapi sends SIGKILL 5 s after its SIGINT, and the agent needs some of that to exit).
   */
  readonly settleMs?: number;
  /** Events waiting per URL behind the one being sent, at most (default 16); see Notifier. */
  readonly queueLimit?: number;
  /** How a request is sent (default: from a thread of its own, post-thread.ts). */
  readonly post?: Post;
}

const DEFAULTS = { timeoutMs: 5_000, attempts: 3, backoffMs: 500, settleMs: 3_000, queueLimit: 16 } as const;
/** How long settled() waits, after its deadline, for the deliveries it abandoned to end. */
const ABANDON_GRACE_MS = 500;

/** Events that only say which ID is pinned now: a later one says it again, so an earlier may give way. */
const PIN_STATE: ReadonlySet<NotifyKind> = new Set(["captured", "confirmed", "changed"]);

interface Queued {
  readonly event: NotifyEvent;
  readonly body: string;
}

/** One URL's deliveries: one at a time, in order, the rest waiting in a bounded queue. */
interface Lane {
  readonly url: URL;
  readonly index: number;
  readonly queue: Queued[];
  /** Set and cleared by drain() itself, synchronously: a new event finds out whether to start one. */
  draining: boolean;
  running: Promise<void> | undefined;
  /** Events that gave way to later ones since the last line the log got about it. */
  coalesced: number;
}

/**
 * POSTs pin events to webhooks. `notify()` returns at once and never throws: the PTY must never
 * wait for a slow or dead receiver, so deliveries run on their own and report only to the log.
 * Each URL gets its events one at a time, in order, the next waiting in a queue of at most
 * `queueLimit`: an ID that changed every few ms and a receiver that never answered once opened a
 * socket per event, ran out of file descriptors in seconds (`ulimit -n 256`), and the pointer
 * writes failed with them. When the queue is full, the oldest event that only says which ID is
 * pinned gives way to the later ones (a `changed` after it takes over its `previous`), and the
 * log says so; a receiver slower than the pin changes still gets the latest. At exit,
 * `settled()` gives what is still running a bounded time to finish.
 */
export class Notifier {
  readonly #lanes: readonly Lane[];
  readonly #log: Logger;
  readonly #o: Required<Omit<NotifierOptions, "post">>;
  readonly #post: Post;
  /** Aborted by settled() at its deadline: ends requests and backoff waits alike. */
  readonly #abandon = new AbortController();

  constructor(urls: readonly string[], log: Logger, options: NotifierOptions = {}) {
    this.#lanes = urls.map((url, i) => ({ url: parseUrl(url), index: i + 1, queue: [], draining: false, running: undefined, coalesced: 0 }));
    this.#log = log;
    const { post, ...rest } = options;
    this.#o = { ...DEFAULTS, ...rest };
    this.#post = post ?? postOnThread();
    // Every attempt and backoff wait in flight listens to it: Node's warning past 10 would land on the agent's screen.
    setMaxListeners(0, this.#abandon.signal);
    if (!(Number.isInteger(this.#o.attempts) && this.#o.attempts >= 1)) throw new RangeError(`attempts must be a whole number >= 1, got ${this.#o.attempts}`);
    if (!(Number.isInteger(this.#o.queueLimit) && this.#o.queueLimit >= 1)) throw new RangeError(`queueLimit must be a whole number >= 1, got ${this.#o.queueLimit}`);
  }

  /** Whether there is anywhere to send events. */
  get enabled(): boolean {
    return this.#lanes.length > 0;
  }

  /** Queues the event for every URL and returns at once. */
  notify(event: NotifyEvent): void {
    if (this.#lanes.length === 0 || this.#abandon.signal.aborted) return;
    let body: string;
    try {
      body = JSON.stringify(event);
    } catch (error) {
      this.#log.warn(`notify: cannot encode the ${event.kind} event: ${messageOf(error)}`);
      return;
    }
    for (const lane of this.#lanes) {
      this.#enqueue(lane, { event, body });
      if (lane.draining) continue;
      // drain() catches everything; the catch here only keeps a bug from becoming an unhandled rejection.
      lane.running = this.#drain(lane).catch((error: unknown) => this.#log.warn(`notify: ${messageOf(error)}`));
    }
  }

  /**
   * Resolves once every delivery has ended, or after `settleMs` (or `deadlineMs`), whichever is
   * first; deliveries still running or waiting then are abandoned and logged. Never rejects.
   * Meant for exit: once it abandoned something, later events are dropped.
   */
  async settled(deadlineMs = this.#o.settleMs): Promise<void> {
    if (this.#running().length === 0) return;
    const timer = new AbortController();
    const deadline = delay(deadlineMs, "deadline", { signal: timer.signal }).catch(() => "done");
    try {
      for (let running = this.#running(); running.length > 0; running = this.#running()) {
        const first = await Promise.race([Promise.allSettled(running).then(() => "done"), deadline]);
        if (first === "deadline") {
          const left = this.#lanes.reduce((n, lane) => n + lane.queue.length + (lane.draining ? 1 : 0), 0);
          this.#log.warn(`notify: ${left} delivery(ies) still running after ${deadlineMs} ms at exit: abandoned`);
          this.#abandon.abort();
          for (const lane of this.#lanes) lane.queue.length = 0;
          // Abandoned requests end at once; one whose answer does not come cannot hold the exit.
          const grace = delay(ABANDON_GRACE_MS, undefined, { signal: timer.signal }).catch(() => undefined);
          await Promise.race([Promise.allSettled(this.#running()), grace]);
          return;
        }
      }
    } finally {
      timer.abort();
    }
  }

  #running(): Array<Promise<void>> {
    return this.#lanes.flatMap((lane) => (lane.draining && lane.running !== undefined ? [lane.running] : []));
  }

  #enqueue(lane: Lane, queued: Queued): void {
    const { queue } = lane;
    queue.push(queued);
    if (queue.length <= this.#o.queueLimit) return;
    const at = Math.max(0, queue.findIndex((q) => PIN_STATE.has(q.event.kind)));
    const [gone] = queue.splice(at, 1);
    if (gone === undefined) return;
    // The next change now follows on from where the one that gave way started.
    const next = queue.findIndex((q, i) => i >= at && q.event.kind === "changed" && q.event.previous === gone.event.id);
    const following = queue[next];
    if (gone.event.kind === "changed" && following !== undefined) {
      const event: NotifyEvent = { ...following.event, ...(gone.event.previous === undefined ? {} : { previous: gone.event.previous }) };
      queue[next] = { event, body: JSON.stringify(event) };
    }
    if (lane.coalesced++ === 0) this.#log.warn(`notify: webhook ${lane.index} (${redact(lane.url)}) is slower than the pin changes: events waiting for it give way to later ones`);
  }

  async #drain(lane: Lane): Promise<void> {
    lane.draining = true;
    try {
      for (let next = lane.queue.shift(); next !== undefined; next = lane.queue.shift()) {
        if (this.#abandon.signal.aborted) return;
        await this.#deliver(lane, next);
      }
    } finally {
      lane.draining = false;
      if (lane.coalesced > 0) this.#log.warn(`notify: ${lane.coalesced} event(s) for webhook ${lane.index} gave way to later ones`);
      lane.coalesced = 0;
    }
  }

  async #deliver(lane: Lane, { event, body }: Queued): Promise<void> {
    const what = `${event.kind} ${event.id} to webhook ${lane.index} (${redact(lane.url)})`;
    const { attempts, backoffMs } = this.#o;
    for (let attempt = 1; ; attempt++) {
      if (this.#abandon.signal.aborted) return;
      const outcome = await this.#attempt(lane.url, body);
      if (outcome.ok) {
        this.#log.info(`notify: sent ${what}: HTTP ${outcome.status}${attempt > 1 ? ` (attempt ${attempt})` : ""}`);
        return;
      }
      if (this.#abandon.signal.aborted) return;
      // A later event that says which ID is pinned makes retrying this one pointless.
      const superseded = PIN_STATE.has(event.kind) && lane.queue.some((q) => PIN_STATE.has(q.event.kind));
      if (!outcome.retry || attempt >= attempts || superseded) {
        this.#log.warn(`notify: gave up sending ${what} after ${attempt} attempt(s): ${outcome.error}${superseded && outcome.retry && attempt < attempts ? "; a later event says what it said" : ""}`);
        return;
      }
      const wait = backoffMs * 2 ** (attempt - 1);
      this.#log.warn(`notify: attempt ${attempt} of ${attempts} sending ${what} failed: ${outcome.error}; retrying in ${wait} ms`);
      try {
        await delay(wait, undefined, { signal: this.#abandon.signal, ref: false });
      } catch {
        return;
      }
    }
  }

  #attempt(url: URL, body: string): Promise<PostOutcome> {
    const { target, headers } = withCredentialsApart(url);
    return this.#post({
      url: target.href,
      headers: { "content-type": "application/json", "user-agent": "sessionpin", ...headers },
      body,
      timeoutMs: this.#o.timeoutMs,
    }, this.#abandon.signal);
  }
}

/**
 * The webhook URLs: every `--notify URL`, else SESSIONPIN_NOTIFY (space-separated, as agentapi
 * reads its list variables).
 */
export function notifyUrls(flags: readonly string[] | undefined, env: NodeJS.ProcessEnv): string[] {
  const urls = flags !== undefined && flags.length > 0 ? [...flags] : (env["SESSIONPIN_NOTIFY"] ?? "").split(/\s+/).filter(Boolean);
  // Checked here, where run checks its other values, before it opens any file.
  for (const url of urls) parseUrl(url);
  return urls;
}

function parseUrl(text: string): URL {
  let url: URL | undefined;
  try {
    url = new URL(text);
  } catch {
    url = undefined;
  }
  if (url === undefined || (url.protocol !== "http:" && url.protocol !== "https:")) {
    throw new SessionpinError("usage", `sessionpin: --notify ${shown(text)}: expected an http:// or https:// URL`);
  }
  return url;
}

/**
 * A refused --notify value as the error line shows it: scheme and host, never the credentials,
 * path or query, where webhook secrets live (`ftp://user:secret@host/x` → `ftp://host/…`). CI
 * logs keep stderr.
 */
function shown(text: string): string {
  const [, scheme = "", slashes = "", authority = "", rest = ""] = /^([a-z][a-z0-9+.-]*:)?(\/\/)?([^/?#]*)(.*)$/is.exec(text) ?? [];
  return `${scheme}${slashes}${authority.replace(/^.*@/s, "")}${rest === "" ? "" : rest.startsWith("/") ? "/…" : "…"}`;
}

/**
 * `https://user:secret@host/hook`: the URL to request, and the credentials as an Authorization
 * header, as curl and browsers send them; a request to the URL as written would drop them
 * without a word.
 */
function withCredentialsApart(url: URL): { target: URL; headers: { authorization?: string } } {
  if (url.username === "" && url.password === "") return { target: url, headers: {} };
  const pair = `${decodeURIComponent(url.username)}:${decodeURIComponent(url.password)}`;
  const target = new URL(url);
  target.username = "";
  target.password = "";
  return { target, headers: { authorization: `Basic ${Buffer.from(pair, "utf8").toString("base64")}` } };
}

/** Webhook URLs often hold their secret in the path or query (Slack, Discord): the log shows only the host. */
function redact(url: URL): string {
  return `${url.protocol}//${url.host}/…`;
}
