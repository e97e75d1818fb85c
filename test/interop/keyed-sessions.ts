/**
 * What a chat bridge reads back after its one-shot calls (headless.ts): `sessionpin sessions
 * --json`, one row per key, and the agent starts each keyed pointer's log recorded.
 */
import { readFileSync } from "node:fs";
import { cli } from "../e2e/support.js";
import type { Sandbox } from "../helpers/sandbox.js";
import { startsIn } from "./support.js";

/** One row of `sessionpin sessions --json`. */
export interface SessionRow {
  readonly key: string | null;
  readonly agent: string;
  readonly cwd: string | null;
  readonly id: string | null;
  readonly state: string;
  readonly capturedAt: string | null;
  readonly lastRunAt: string | null;
  readonly messages: number;
  readonly pointer: string;
}

/** The sandbox's pinned sessions by key, as `sessionpin sessions --json` lists them. */
export function sessionsByKey(sb: Sandbox): Map<string | null, SessionRow> {
  const listed = cli(sb, ["sessions", "--json"]);
  if (listed.status !== 0) throw new Error(`sessionpin sessions --json exited ${listed.status}: ${listed.stderr}`);
  return new Map((JSON.parse(listed.stdout) as SessionRow[]).map((row) => [row.key, row]));
}

/** The argv of every agent start logged beside a keyed pointer (its `.log`), in order. */
export function startsOf(row: SessionRow | undefined): string[][] {
  if (row === undefined) return [];
  return startsIn(readFileSync(row.pointer.replace(/\.json$/, ".log"), "utf8"));
}
