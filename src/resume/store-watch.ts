import { closeSync, openSync, readFileSync, readSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import type { Clock, Timer } from "../clock.js";
import { valueAt } from "../capture/json.js";
import type { Verdict } from "../agents/match.js";
import type { Pinned } from "../agents/tracker.js";
import type { AgentPlugin, RunContext } from "../agents/types.js";

const POLL_MS = 500;
// An entry written this long before the agent started can still be this run's (clock skew, a
// file created by the agent's launcher a moment before).
const CLOCK_SLACK_MS = 2_000;
const FIRST_LINE_BYTES = 64 * 1024;

/**
 * Watches where the agent keeps its sessions while it runs: its pid file (Claude's
 * sessions/<pid>.json) and its session store. A store entry for the pinned ID confirms it (there
 * is now something to resume); while nothing is pinned yet, a new entry captures its ID.
 */
export class StoreWatch {
  #timer: Timer | undefined;
  readonly #seen = new Set<string>();

  constructor(
    private readonly plugin: AgentPlugin,
    private readonly context: RunContext,
    private readonly clock: Clock,
    private readonly startedAt: number,
    private readonly current: () => Pinned | undefined,
    private readonly report: (verdict: Verdict) => void,
  ) {}

  get needed(): boolean {
    return this.plugin.store !== undefined || this.plugin.pidFile !== undefined;
  }

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
    const { pidFile, store } = this.plugin;
    if (pidFile !== undefined) {
      const id = valueAt(readJson(pidFile.path(pid, this.context)) ?? {}, pidFile.field);
      if (typeof id === "string") this.#offer({ kind: "taken", rule: pidFile.rule, id, state: "provisional" });
    }
    if (store === undefined) return;
    for (const { dir, depth } of store.where(this.context, new Date(this.clock.now()))) {
      for (const entry of listEntries(dir, depth)) this.#judgeEntry(entry);
    }
  }

  #judgeEntry(entry: { path: string; name: string }): void {
    const store = this.plugin.store;
    const id = store?.name.exec(entry.name)?.groups?.["id"];
    if (store === undefined || id === undefined) return;
    const pinned = this.current();
    if (pinned !== undefined) {
      if (pinned.state === "provisional" && (store.wholeId ? pinned.id === id : pinned.id.startsWith(id))) {
        this.report({ kind: "taken", rule: store.rule, id: pinned.id, state: "confirmed" });
      }
      return;
    }
    if (!store.wholeId || this.#seen.has(entry.path)) return;
    this.#seen.add(entry.path);
    const fresh = mtime(entry.path) >= this.startedAt - CLOCK_SLACK_MS;
    if (fresh && (store.belongs === undefined || store.belongs(firstLine(entry.path), this.context))) {
      this.#offer({ kind: "taken", rule: store.rule, id, state: "confirmed" });
    }
  }

  #offer(verdict: Verdict & { kind: "taken" }): void {
    if (this.plugin.grammar.test(verdict.id)) this.report(verdict);
  }
}

function listEntries(dir: string, depth: number): Array<{ path: string; name: string }> {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return [];
  }
  return names.flatMap((name) => {
    const path = join(dir, name);
    return [{ path, name }, ...(depth > 0 ? listEntries(path, depth - 1) : [])];
  });
}

function readJson(path: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(readFileSync(path, "utf8"));
    return typeof value === "object" && value !== null ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

function mtime(path: string): number {
  try {
    return statSync(path).mtimeMs;
  } catch {
    return 0;
  }
}

function firstLine(path: string): string {
  try {
    const fd = openSync(path, "r");
    try {
      const buffer = Buffer.alloc(FIRST_LINE_BYTES);
      const read = readSync(fd, buffer, 0, FIRST_LINE_BYTES, 0);
      return buffer.subarray(0, read).toString("utf8").split("\n")[0] ?? "";
    } finally {
      closeSync(fd);
    }
  } catch {
    return "";
  }
}
