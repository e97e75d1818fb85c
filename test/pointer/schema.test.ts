import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { acquireLock } from "../../src/pointer/lock.js";
import { LockInfoSchema, PointerSchema, type Pointer } from "../../src/pointer/schema.js";
import { readPointer, writePointer } from "../../src/pointer/store.js";
import { pointerFor } from "./module-home.js";
import { useTempDir } from "./tempdir.js";

const tmp = useTempDir();

describe("PointerSchema", () => {
  it("reads back the pointer file sessionpin wrote, as it was given", async () => {
    const path = join(tmp.path, "p.json");
    const pointer: Pointer = { ...pointerFor({ agent: "claude", cwd: "/w/p", key: "pr-42" }), source: { rule: "result", line: 7 }, history: [{ id: "old", at: "2026-11-21T10:00:00.000Z", reason: "rejected" }] };
    await writePointer(path, pointer);
    expect(PointerSchema.parse(JSON.parse(readFileSync(path, "utf8")))).toEqual(pointer);
  });

  it("takes a pointer edited by hand with a local time, and drops fields it does not know", async () => {
    const path = join(tmp.path, "p.json");
    const edited = { ...pointerFor({ agent: "amp", cwd: "/w/p" }), capturedAt: "2026-11-22T22:30:00+01:00", note: "mine" };
    writeFileSync(path, JSON.stringify(edited));
    const parsed = PointerSchema.parse(edited);
    expect(parsed.capturedAt).toBe("2026-11-22T22:30:00+01:00");
    expect(parsed).not.toHaveProperty("note");
    // readPointer, which loads the schema for what its plain check doubts, reads it the same.
    expect(await readPointer(path)).toEqual({ kind: "ok", pointer: parsed });
  });

  it("refuses a relative folder, an empty ID, a line 0, a message that is not a sha256, and another version", () => {
    const good = pointerFor({ agent: "amp", cwd: "/w/p" });
    const issues = (value: unknown): string[] => PointerSchema.safeParse(value).error?.issues.map((i) => i.path.join(".")) ?? [];
    expect(issues(good)).toEqual([]);
    expect(issues({ ...good, cwd: "w/p" })).toEqual(["cwd"]);
    expect(issues({ ...good, id: "" })).toEqual(["id"]);
    expect(issues({ ...good, source: { rule: "r", line: 0 } })).toEqual(["source.line"]);
    expect(issues({ ...good, messages: [{ sha256: "not-a-digest", at: good.capturedAt }] })).toEqual(["messages.0.sha256"]);
    expect(issues({ ...good, version: 2 })).toEqual(["version"]);
    expect(issues({ ...good, state: "pinned", history: undefined })).toEqual(["state", "history"]);
  });
});

describe("LockInfoSchema", () => {
  it("reads the lock acquireLock writes", async () => {
    const result = await acquireLock(join(tmp.path, "p.json"));
    if (result.kind !== "acquired") throw new Error(`not acquired: ${JSON.stringify(result)}`);
    try {
      expect(LockInfoSchema.parse(JSON.parse(readFileSync(result.lock.path, "utf8")))).toEqual(result.lock.info);
    } finally {
      await result.lock.release();
    }
  });

  it("refuses a pid that is not a positive whole number: kill(0, 0) would probe our own group and say alive", () => {
    const lock = { pid: 4242, startedAt: "2026-11-22T21:30:00.000Z", host: "h" };
    expect(LockInfoSchema.safeParse(lock).success).toBe(true);
    for (const pid of [0, -4242, 1.5, "4242", null]) expect(LockInfoSchema.safeParse({ ...lock, pid }).success, String(pid)).toBe(false);
    expect(LockInfoSchema.safeParse({ pid: 4242, startedAt: "x" }).success).toBe(false);
  });
});
