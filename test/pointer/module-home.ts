import { randomUUID } from "node:crypto";
import { utimesSync } from "node:fs";
import { join } from "node:path";
import { besideAgentapiState } from "../../src/pointer/path.js";
import type { Pointer } from "../../src/pointer/schema.js";
import { writePointer } from "../../src/pointer/store.js";

/** A confirmed pointer as sessionpin writes one. */
export function pointerFor(p: { agent: string; cwd: string; key?: string; id?: string }): Pointer {
  return {
    version: 1,
    agent: p.agent,
    id: p.id ?? randomUUID(),
    state: "confirmed",
    cwd: p.cwd,
    capturedAt: "2026-11-22T21:30:00.000Z",
    confirmedAt: "2026-11-22T21:30:05.000Z",
    source: { rule: "by-hand" },
    ...(p.key === undefined ? {} : { key: p.key }),
    history: [],
  };
}

/**
 * Writes the pointer `sessionpin run` under agentapi keeps in the Coder module folder `folder`
 * (relative to `home`: `.coder-modules/coder/claude-code`, `.amp-module`), as it names it, with
 * its mtime `writtenAt` seconds after the epoch when given. Returns its path.
 */
export async function keepInModule(
  home: string,
  folder: string,
  p: { agent: string; cwd: string; key?: string; id?: string; writtenAt?: number },
): Promise<string> {
  const path = join(home, folder, besideAgentapiState(p.agent, p.key));
  await writePointer(path, pointerFor(p));
  if (p.writtenAt !== undefined) utimesSync(path, p.writtenAt, p.writtenAt);
  return path;
}
