/**
 * What a chat bridge reads back after its one-shot calls (headless.ts): `sessionpin sessions
 * --json`, one row per key, and the agent starts each keyed pointer's log recorded.
 */
import { readFileSync } from "node:fs";
import { expect } from "vitest";
import { cli } from "../e2e/support.js";
import type { SessionRow } from "../../src/state/sessions.js";
import type { Sandbox } from "../helpers/sandbox.js";
import { THREAD, type OneShotResult } from "./headless.js";
import { startsIn } from "./support.js";

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

/**
 * A first one-shot call and a follow-up on `key` (the thread's first and last message), both
 * answered: the key's row of `sessions --json` afterwards (for the starts its log recorded), and
 * the follow-up's result.
 */
export async function firstThenFollowUp(
  sb: Sandbox,
  key: string,
  call: (message: string) => Promise<OneShotResult>,
): Promise<{ row: SessionRow | undefined; followUp: OneShotResult }> {
  const first = await call(THREAD[0]);
  expect(first.code, first.stderr).toBe(0);
  const followUp = await call(THREAD[2]);
  expect(followUp.code, followUp.stderr).toBe(0);
  return { row: sessionsByKey(sb).get(key), followUp };
}
