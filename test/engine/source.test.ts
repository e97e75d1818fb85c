import { appendFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { Extractor } from "../../src/engine/extract.js";
import { sourcesOf, type IdSource } from "../../src/engine/source.js";
import { lookNow, type Watching } from "../../src/engine/store-reads.js";
import { StoreWatch } from "../../src/engine/store-watch.js";
import { agents } from "../../src/agents/registry.js";
import type { AgentPlugin, RunContext } from "../../src/agents/types.js";
import { systemClock } from "../../src/clock.js";

const ID = "5f0c2a9e-1b7d-4e21-9c4a-8d6f1e2b3a40";

describe("a plugin's sources, each one value", () => {
  const SESSION = "ses_deba424cfffexLzwia0wxH1kRO";
  const dirs: string[] = [];
  afterEach(() => {
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });
  function run(cwd = "/w/p"): { context: RunContext; offered: string[]; watching: Watching } {
    const home = mkdtempSync(join(tmpdir(), "sessionpin-sources-"));
    dirs.push(home);
    const context = { home, cwd, env: {} };
    const offered: string[] = [];
    const watching: Watching = { context, now: () => Date.now(), current: () => undefined, oneShot: false, offer: (rule, state, value) => void offered.push(`${rule} ${state} ${value}`) };
    return { context, offered, watching };
  }
  const watched = (plugin: AgentPlugin, kind: IdSource, watching: Watching) => {
    const source = sourcesOf(plugin).find((s) => s.kind === kind)?.watch?.(watching);
    if (source === undefined) throw new Error(`${plugin.name} has no watched ${kind}`);
    return source;
  };

  it("says what every built-in plugin captures from, and watches only what its data names", () => {
    for (const plugin of Object.values(agents)) {
      const sources = sourcesOf(plugin);
      expect(sources.every((s) => s.says.length > 0), plugin.name).toBe(true);
      const kinds = sources.filter((s) => s.watch !== undefined).map((s) => s.kind);
      expect(kinds, plugin.name).toEqual([...(plugin.store ? ["store"] : []), ...(plugin.pidFile ? ["pid-file"] : []), ...(plugin.sessionLog ? ["session-log"] : [])]);
    }
  });

  it("the pid file: the running agent's own file, its ID provisional", () => {
    const { context, offered, watching } = run();
    const pidFile = watched(agents.claude, "pid-file", watching);
    lookNow(pidFile.before());
    lookNow(pidFile.look(4242));
    expect(offered).toEqual([]);
    mkdirSync(join(context.home, ".claude", "sessions"), { recursive: true });
    writeFileSync(join(context.home, ".claude", "sessions", "4242.json"), JSON.stringify({ pid: 4242, sessionId: ID }));
    lookNow(pidFile.look(4243));
    lookNow(pidFile.look(4242));
    expect(offered).toEqual([`pid-file provisional ${ID}`]);
  });

  it("the session log: only lines appended after the spawn, a line read once it ends, from its start again once cut", () => {
    const { context, offered, watching } = run();
    const log = join(context.home, ".local", "share", "opencode", "log", "opencode.log");
    const created = (id: string): string => `timestamp=2026-11-25T20:18:13.936Z level=INFO run=fa060889 message=created id=${id} directory=/w/p parentID=undefined\n`;
    mkdirSync(join(log, ".."), { recursive: true });
    writeFileSync(log, created("ses_0000000000000earlierRunXYZ"));
    const sessionLog = watched(agents.opencode, "session-log", watching);
    lookNow(sessionLog.before());
    const line = created(SESSION);
    appendFileSync(log, line.slice(0, 40));
    lookNow(sessionLog.look(1));
    expect(offered).toEqual([]);
    appendFileSync(log, line.slice(40));
    lookNow(sessionLog.look(1));
    expect(offered).toEqual([`log-created confirmed ${SESSION}`]);
    writeFileSync(log, "");
    lookNow(sessionLog.look(1));
    writeFileSync(log, created("ses_1111111111111afterTheCutAB"));
    lookNow(sessionLog.look(1));
    expect(offered).toEqual([`log-created confirmed ${SESSION}`, "log-created confirmed ses_1111111111111afterTheCutAB"]);
  });

  it("the store is looked at before the pid file: an entry confirms the ID the pid file would offer as provisional", () => {
    const { context } = run();
    const project = join(context.home, ".claude", "projects", "-w-p");
    mkdirSync(project, { recursive: true });
    mkdirSync(join(context.home, ".claude", "sessions"), { recursive: true });
    const extractor = new Extractor(agents.claude);
    const events: string[] = [];
    const watch = new StoreWatch(agents.claude, context, systemClock, () => extractor.tracker.current, (candidate) => {
      for (const event of extractor.offer(candidate).events) events.push(`${event.kind} ${event.pinned.state} ${event.pinned.rule}`);
    });
    watch.before();
    writeFileSync(join(project, `${ID}.jsonl`), "{}\n");
    writeFileSync(join(context.home, ".claude", "sessions", `${process.pid}.json`), JSON.stringify({ sessionId: ID }));
    watch.poll(process.pid);
    expect(events).toEqual([`captured confirmed ${agents.claude.store?.rule}`]);
  });
});
