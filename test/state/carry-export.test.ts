import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { agents } from "../../src/agents/registry.js";
import { acquireLock } from "../../src/pointer/lock.js";
import { scanArchive } from "../../src/state/archive-read.js";
import { CarryError } from "../../src/state/archive-rules.js";
import { exportSession } from "../../src/state/carry-export.js";
import { CLAUDE_ID, TwoMachines } from "./carry-support.js";

let m: TwoMachines;
beforeEach(() => void (m = new TwoMachines()));
afterEach(() => m.cleanup());

const projects = (home: string, cwd: string): string => join(home, ".claude", "projects", cwd.replace(/[^A-Za-z0-9]/g, "-"));

/** The CarryError an export of machine A's claude pointer fails with. */
async function exportError(plugin = agents.claude, pointerPath = m.pointerPath(m.a, plugin.name)): Promise<{ exitCode: number; message: string }> {
  const error = await exportSession({ pointerPath, plugin, out: m.archive, env: m.a.env, sessionpinVersion: "t", now: new Date() }).then(() => undefined, (e: unknown) => e);
  if (!(error instanceof CarryError)) throw new Error(`no CarryError: ${String(error)}`);
  return { exitCode: error.exitCode, message: error.message };
}

describe("exportSession", () => {
  it("writes one archive: the manifest first, then the pointer and the session's files, each with its size and sha256", async () => {
    m.claudeTranscript(m.a);
    mkdirSync(join(projects(m.a.home, m.a.cwd), CLAUDE_ID, "subagents"), { recursive: true });
    writeFileSync(join(projects(m.a.home, m.a.cwd), CLAUDE_ID, "subagents", "agent-1.jsonl"), "{}\n");
    m.pin(m.a, "claude", CLAUDE_ID);
    await m.export();
    const seen: string[] = [];
    const manifest = await scanArchive(m.archive, { manifest: () => undefined, entry: (e) => void seen.push(e.path) });
    expect(manifest).toMatchObject({ format: "sessionpin-carry", version: 1, sessionpin: "0.1.0-test", agent: { name: "claude", version: null }, session: CLAUDE_ID, cwd: m.a.cwd, carry: "files" });
    expect(manifest.entries.map((e) => [e.path, e.role])).toEqual([
      ["pointer.json", "pointer"],
      [`store/${CLAUDE_ID}.jsonl`, "transcript"],
      [`store/${CLAUDE_ID}/subagents/agent-1.jsonl`, "file"],
    ]);
    expect(seen).toEqual(manifest.entries.map((e) => e.path));
  });

  it("says where each file came from, and packs the bytes it copied", async () => {
    const transcript = m.claudeTranscript(m.a);
    m.pin(m.a, "claude", CLAUDE_ID);
    const result = await exportSession({ pointerPath: m.pointerPath(m.a, "claude"), plugin: agents.claude, out: m.archive, env: m.a.env, sessionpinVersion: "t", now: new Date("2026-11-29T04:00:00Z") });
    expect(result.sources.map((s) => [s.entry, s.from])).toEqual([["pointer.json", m.pointerPath(m.a, "claude")], [`store/${CLAUDE_ID}.jsonl`, transcript]]);
    expect(result.manifest.createdAt).toBe("2026-11-29T04:00:00.000Z");
    expect(result.bytes).toBeGreaterThan(0);
    expect(result.pointer.id).toBe(CLAUDE_ID);
  });
});

describe("what cannot be exported", () => {
  it("an agent whose sessions cannot be carried is refused with its reason", async () => {
    m.pin(m.a, "cursor", "0b5e8d1c-2f3a-4b6c-8d9e-0f1a2b3c4d5e");
    await expect(m.export(agents.cursor)).rejects.toThrow(/cursor's sessions cannot be carried: not carried: its chats are SQLite files/);
  });

  it("a session whose transcript is gone from the store", async () => {
    mkdirSync(projects(m.a.home, m.a.cwd), { recursive: true });
    m.pin(m.a, "claude", CLAUDE_ID);
    await expect(m.export()).rejects.toThrow(/claude session .* is not in claude's store on this machine/);
  });

  it("no pointer, an unreadable one, or another agent's: nothing written", async () => {
    expect(await exportError()).toEqual({ exitCode: 1, message: `${m.pointerPath(m.a, "claude")}: no pointer there` });
    const broken = join(m.dir, "broken.json");
    writeFileSync(broken, "{");
    expect((await exportError(agents.claude, broken)).message).toMatch(/: unreadable: not JSON/);
    m.pin(m.a, "amp", "T-019c479a-39cc-72af-a2d1-65a965c076ec");
    expect(await exportError(agents.claude, m.pointerPath(m.a, "amp"))).toEqual({ exitCode: 3, message: `${m.pointerPath(m.a, "amp")} is amp's pointer, not claude's` });
    expect(Object.keys(m.tree()).some((path) => path.endsWith("carry.tgz"))).toBe(false);
  });

  it("a pointer a live run holds: exit 75, it may be writing the session", async () => {
    m.claudeTranscript(m.a);
    const pointer = m.pin(m.a, "claude", CLAUDE_ID);
    const taken = await acquireLock(pointer);
    if (taken.kind !== "acquired") throw new Error("no lock");
    try {
      expect(await exportError()).toMatchObject({ exitCode: 75, message: expect.stringMatching(/ is held by sessionpin pid \d+ .*export it once that run ends$/) });
    } finally {
      await taken.lock.release();
    }
  });
});
