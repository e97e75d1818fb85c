/**
 * The session store as a source, looked at on its own (the watch that runs it is
 * store-watch.test.ts's): what was there before the spawn is an earlier run's, a new entry is the
 * run's session and is remembered for the next start, and a one-shot run that has its ID takes no
 * other entry (a second chat thread's run in the same folder).
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { claude } from "../../src/agents/claude.js";
import type { IdState, RunContext } from "../../src/agents/types.js";
import { lookNow, type Watching } from "../../src/engine/store-reads.js";
import { watchStore } from "../../src/engine/store-source.js";
import { recallEntry } from "../../src/state/store-index.js";

const uuid = (n: number): string => `0f3c2a9e-5b7d-4e21-9c4a-${n.toString(16).padStart(12, "0")}`;
const store = claude.store;
if (store === undefined) throw new Error("claude has a session store");

let home: string;
let context: RunContext;
let project: string;
beforeEach(() => {
  home = mkdtempSync(join(tmpdir(), "sessionpin-store-source-"));
  context = { home, cwd: "/w/p", env: { XDG_STATE_HOME: join(home, "state") } };
  mkdirSync(join(home, "state", "sessionpin"), { recursive: true });
  project = join(home, ".claude", "projects", "-w-p");
  mkdirSync(project, { recursive: true });
});
afterEach(() => rmSync(home, { recursive: true, force: true }));

function run(oneShot: boolean, pinned?: { id: string; state: IdState }): { offered: string[]; watching: Watching } {
  const offered: string[] = [];
  const watching: Watching = { context, now: () => Date.now(), current: () => pinned, oneShot, offer: (rule, state, value) => void offered.push(`${rule} ${state} ${value}`) };
  return { offered, watching };
}

describe("watchStore", () => {
  it("takes a new entry, not one from before the spawn, and remembers where it is", async () => {
    writeFileSync(join(project, `${uuid(1)}.jsonl`), "{}\n");
    const { offered, watching } = run(false);
    const source = watchStore("claude", store, watching);
    lookNow(source.before());
    lookNow(source.look(1));
    expect(offered).toEqual([]);
    writeFileSync(join(project, `${uuid(2)}.jsonl`), "{}\n");
    lookNow(source.look(1));
    expect(offered).toEqual([`${store.rule} confirmed ${uuid(2)}`]);
    // Remembering is not waited for by the look: the next start's look-up reads it.
    await expect.poll(() => recallEntry(context, "claude", uuid(2))).toBe(join(project, `${uuid(2)}.jsonl`));
  });

  it("in a one-shot run, takes a new entry while the run has no ID, and none once it has one", () => {
    const before = run(true);
    const first = watchStore("claude", store, before.watching);
    lookNow(first.before());
    writeFileSync(join(project, `${uuid(3)}.jsonl`), "{}\n");
    lookNow(first.look(1));
    expect(before.offered).toEqual([`${store.rule} confirmed ${uuid(3)}`]);

    const after = run(true, { id: uuid(4), state: "confirmed" });
    const second = watchStore("claude", store, after.watching);
    lookNow(second.before());
    writeFileSync(join(project, `${uuid(5)}.jsonl`), "{}\n");
    lookNow(second.look(1));
    expect(after.offered).toEqual([]);
  });

  it("confirms a provisional pin once its entry proves to be a file", () => {
    const { offered, watching } = run(true, { id: uuid(6), state: "provisional" });
    const source = watchStore("claude", store, watching);
    lookNow(source.before());
    lookNow(source.look(1));
    expect(offered).toEqual([]);
    writeFileSync(join(project, `${uuid(6)}.jsonl`), "{}\n");
    lookNow(source.look(1));
    expect(offered).toEqual([`${store.rule} confirmed ${uuid(6)}`]);
  });
});
