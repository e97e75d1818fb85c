import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { agents } from "../../src/agents/registry.js";
import { acquireLock, type PointerLock } from "../../src/pointer/lock.js";
import { nextStart } from "../../src/run/next-start.js";
import { useTempDir } from "../pointer/tempdir.js";
import { claudeTranscript, ID, pinClaude, question } from "./start-support.js";

const tmp = useTempDir();
const held: PointerLock[] = [];
afterEach(async () => {
  for (const lock of held.splice(0)) await lock.release();
});

describe("nextStart", () => {
  it("is the decision run would make, with doctor's checks of the pointer's folder and lock", async () => {
    const q = question(tmp.path, agents.claude);
    await pinClaude(q);
    claudeTranscript(q, ID);
    const next = await nextStart(q);
    expect(next.decision).toMatchObject({ mode: "warm", id: ID });
    expect(next.read?.kind).toBe("ok");
    expect(next.checks.map((c) => [c.name, c.status])).toEqual([["pointer-dir", "ok"], ["lock", "ok"]]);
    expect(next).not.toHaveProperty("heldBy");
  });

  it("names the live run that holds the lock, which a run would wait for first", async () => {
    const q = question(tmp.path, agents.claude);
    await pinClaude(q);
    claudeTranscript(q, ID);
    const result = await acquireLock(q.pointer.path);
    if (result.kind !== "acquired") throw new Error("not acquired");
    held.push(result.lock);
    const next = await nextStart(q);
    expect(next.decision).toMatchObject({ mode: "warm", id: ID });
    expect(next.heldBy).toEqual(result.lock.info);
  });

  it("is unpinned for a command no plugin knows, and for one that opens no conversation", async () => {
    const unknown = await nextStart(question(tmp.path, undefined, ["-p", "hi"], { command: "mystery-agent", prompt: "fix it" }));
    expect(unknown.decision).toMatchObject({ mode: "unpinned", conversation: true, reason: 'no plugin for "mystery-agent": running it transparently, nothing is captured' });
    expect(unknown.read).toBeUndefined();
    const version = await nextStart(question(tmp.path, agents.claude, ["--version"]));
    expect(version.decision).toMatchObject({ mode: "unpinned", conversation: false, args: ["--version"] });
  });

  it("is unpinned, saying why, when the pointer's folder cannot hold it", async () => {
    const q = question(tmp.path, agents.claude);
    writeFileSync(join(tmp.path, "state"), "a file where the pointer's folder goes");
    const next = await nextStart(q);
    expect(next.checks[0]).toMatchObject({ name: "pointer-dir", status: "fail" });
    expect(next.decision).toMatchObject({ mode: "unpinned", conversation: true, reason: `${q.pointer.path} cannot be used: ${next.checks[0].detail}` });
  });

  it("is unpinned when the lock is no file a run could take (a folder in its place)", async () => {
    const q = question(tmp.path, agents.claude);
    mkdirSync(`${q.pointer.path}.lock`, { recursive: true });
    const next = await nextStart(q);
    expect(next.checks[1]).toMatchObject({ name: "lock", status: "fail" });
    expect(next.decision.mode).toBe("unpinned");
  });
});
