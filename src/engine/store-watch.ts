import { closeSync, fstatSync, openSync, readSync, statSync } from "node:fs";
import { join } from "node:path";
import type { Clock, Timer } from "../clock.js";
import { readJsonObject, valueAt } from "../json.js";
import type { Candidate, IdSource } from "./source.js";
import { listEntries, namesSession } from "./store-lookup.js";
import type { Pinned } from "./tracker.js";
import type { AgentPlugin, IdState, RunContext } from "../agents/types.js";

const POLL_MS = 500;
const HEAD_BYTES = 64 * 1024;
const LOG_BYTES_PER_POLL = 1024 * 1024;

/**
 * Watches where the agent keeps its sessions while it runs: its pid file (Claude's
 * sessions/<pid>.json) and its session store. An entry for the pinned ID confirms it (there is
 * now something to resume). An entry that was not there when the agent started is the session
 * it is in now: it captures the ID, or moves the pin after a fork or `/clear`. Two agents of one
 * kind in one folder share a store; that is what `belongs` and the pointer lock narrow down.
 */
export class StoreWatch {
  #timer: Timer | undefined;
  #baseline = new Set<string>();
  readonly #reported = new Set<string>();
  /** How far the session log was read, and a line not yet ended. */
  #logOffset = 0;
  #logRest = "";

  constructor(
    private readonly plugin: AgentPlugin,
    private readonly context: RunContext,
    private readonly clock: Clock,
    private readonly current: () => Pinned | undefined,
    /** Where every ID found goes, unjudged: the intake holds it against the grammar. */
    private readonly offer: (candidate: Candidate) => void,
    /**
     * The agent answers once and exits: its session cannot change while it runs (no `/clear`), so
     * a new entry names it only while nothing else has. Once the run has its ID (chosen up front,
     * resumed, or printed), a new entry is another run's in the same folder (a second chat
     * thread's `--key`), and taking it would merge the two conversations.
     */
    private readonly oneShot = false,
  ) {}

  get needed(): boolean {
    return this.plugin.store !== undefined || this.plugin.pidFile !== undefined || this.plugin.sessionLog !== undefined;
  }

  /**
   * Call before the spawn: what the store holds then belongs to earlier runs. Taken after it, an
   * agent that writes its session file as it starts could beat the look, and its session would
   * count as an earlier run's.
   */
  before(): void {
    this.#baseline = new Set(this.#entries().map((entry) => entry.path));
    const log = this.plugin.sessionLog;
    if (log !== undefined) this.#logOffset = sizeOf(log.path(this.context));
  }

  /** Polls the running agent's pid file and the store until `stop`. */
  start(pid: number): void {
    const tick = (): void => {
      this.poll(pid);
      this.#timer = this.clock.setTimeout(tick, POLL_MS);
    };
    this.#timer = this.clock.setTimeout(tick, POLL_MS);
  }

  /** Stops polling after one last look (agents write their transcript as they exit). */
  stop(pid: number): void {
    if (this.#timer !== undefined) this.clock.clearTimeout(this.#timer);
    this.poll(pid);
  }

  poll(pid: number): void {
    const { pidFile } = this.plugin;
    if (pidFile !== undefined) {
      const id = valueAt(readJsonObject(pidFile.path(pid, this.context)) ?? {}, pidFile.field);
      if (typeof id === "string") this.#offer("pid-file", pidFile.rule, "provisional", id);
    }
    for (const entry of this.#entries()) this.#judgeEntry(entry);
    this.#readLog();
  }

  #readLog(): void {
    const log = this.plugin.sessionLog;
    if (log === undefined) return;
    const { bytes, size } = readSpan(log.path(this.context), this.#logOffset, LOG_BYTES_PER_POLL);
    // Truncated or replaced: start again from its beginning.
    if (size < this.#logOffset) {
      this.#logOffset = 0;
      this.#logRest = "";
      return;
    }
    this.#logOffset += bytes.length;
    const lines = (this.#logRest + bytes.toString("utf8")).split("\n");
    this.#logRest = lines.pop() ?? "";
    for (const line of lines) {
      const id = log.created(line, this.context);
      if (id !== undefined) this.#offer("session-log", log.rule, "confirmed", id);
    }
  }

  #entries(): Array<{ path: string; name: string }> {
    const store = this.plugin.store;
    if (store === undefined) return [];
    return store.where(this.context, new Date(this.clock.now())).flatMap(({ dir, depth }) => listEntries(dir, depth));
  }

  #judgeEntry(entry: { path: string; name: string }): void {
    const store = this.plugin.store;
    const id = store?.name.exec(entry.name)?.groups?.["id"];
    if (store === undefined || id === undefined) return;
    const pinned = this.current();
    if (pinned?.state === "provisional" && namesSession(store, id, pinned.id)) {
      this.#offer("store", store.rule, "confirmed", pinned.id);
    }
    if (!store.wholeId || this.#baseline.has(entry.path) || this.#reported.has(entry.path)) return;
    if (this.oneShot && pinned !== undefined) return;
    const head = headOf(store.inner === undefined ? entry.path : join(entry.path, store.inner), store.headBytes ?? HEAD_BYTES);
    // Not (yet) this folder's session: looked at again on the next poll, once it has content.
    if (store.belongs !== undefined && !store.belongs(head, this.context)) return;
    this.#reported.add(entry.path);
    this.#offer("store", store.rule, "confirmed", id);
  }

  #offer(source: IdSource, rule: string, state: IdState, value: string): void {
    this.offer({ source, rule, state, value });
  }
}

/** The file's start, up to `bytes`, as text ("" when it cannot be read). */
function headOf(path: string, bytes: number): string {
  return readSpan(path, 0, bytes).bytes.toString("utf8");
}

function sizeOf(path: string): number {
  try {
    return statSync(path).size;
  } catch {
    return 0;
  }
}

/** What a file holds past `offset`, `max` bytes at most, and its size; nothing when it cannot be read. */
function readSpan(path: string, offset: number, max: number): { bytes: Buffer; size: number } {
  try {
    const fd = openSync(path, "r");
    try {
      const size = fstatSync(fd).size;
      if (size <= offset) return { bytes: Buffer.alloc(0), size };
      const buffer = Buffer.alloc(Math.min(size - offset, max));
      const read = readSync(fd, buffer, 0, buffer.length, offset);
      return { bytes: buffer.subarray(0, read), size };
    } finally {
      closeSync(fd);
    }
  } catch {
    return { bytes: Buffer.alloc(0), size: offset };
  }
}
