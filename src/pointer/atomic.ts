import { basename, dirname, join } from "node:path";
import { uniqueHex } from "../digest.js";

/**
 * The one naming rule for the temp files sessionpin writes beside a file before it links or
 * renames them into place (pointer, lock, recording): `.<name>.<pid>.<random>.tmp`. The writer's
 * pid is in the name, so a sweep can tell a dead writer's leftover from a live writer's file in
 * flight; and the rule is exact, so the pointer's sweep never takes the lock's temp files
 * (`.<name>.lock.…`) for its own.
 */
export function tempPathFor(path: string, pid = process.pid): string {
  return join(dirname(path), `.${basename(path)}.${pid}.${uniqueHex()}.tmp`);
}

/** The writer's pid when `name` (a file name in the same folder) is a temp file of `path`. */
export function tempWriter(path: string, name: string): number | undefined {
  const prefix = `.${basename(path)}.`;
  if (!name.startsWith(prefix)) return undefined;
  const match = /^(\d+)\.[0-9a-f]+\.tmp$/.exec(name.slice(prefix.length));
  return match?.[1] === undefined ? undefined : Number(match[1]);
}
