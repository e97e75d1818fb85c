import { link, readdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { ABANDONED_AFTER_MS, removeStaleLock } from "../../src/pointer/takeover.js";
import { useTempDir } from "./tempdir.js";

const tmp = useTempDir();
const STALE = JSON.stringify({ pid: 999_999, startedAt: "2026-01-01T00:00:00.000Z", host: "h" });
const FRESH = JSON.stringify({ pid: process.pid, startedAt: "2026-11-22T21:30:00.000Z", host: "h" });

afterEach(() => {
  vi.useRealTimers();
});

describe("removeStaleLock", () => {
  it("removes the lock it judged stale, and its claim with it", async () => {
    const lock = join(tmp.path, "p.json.lock");
    await writeFile(lock, STALE);
    expect(await removeStaleLock(lock, STALE)).toBe("removed");
    expect(await readdir(tmp.path)).toEqual([]);
  });

  it("leaves a lock that is no longer the one judged stale: a rival took over first", async () => {
    const lock = join(tmp.path, "p.json.lock");
    await writeFile(lock, FRESH);
    expect(await removeStaleLock(lock, STALE)).toBe("changed");
    expect(await readFile(lock, "utf8")).toBe(FRESH);
    expect(await readdir(tmp.path)).toEqual(["p.json.lock"]);
    // Gone meanwhile: read it again.
    expect(await removeStaleLock(join(tmp.path, "q.json.lock"), STALE)).toBe("changed");
  });

  it("is busy while another process holds a fresh claim, and touches neither the claim nor the lock", async () => {
    const lock = join(tmp.path, "p.json.lock");
    await writeFile(lock, STALE);
    await link(lock, `${lock}.takeover`);
    expect(await removeStaleLock(lock, STALE)).toBe("busy");
    expect((await readdir(tmp.path)).sort()).toEqual(["p.json.lock", "p.json.lock.takeover"]);
  });

  it(`clears a claim older than ${ABANDONED_AFTER_MS} ms (its process was killed mid-takeover), so the next try removes the lock`, async () => {
    const lock = join(tmp.path, "p.json.lock");
    await writeFile(lock, STALE);
    await link(lock, `${lock}.takeover`);
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(Date.now() + ABANDONED_AFTER_MS + 1_000);
    expect(await removeStaleLock(lock, STALE)).toBe("busy");
    expect(await readdir(tmp.path)).toEqual(["p.json.lock"]);
    expect(await removeStaleLock(lock, STALE)).toBe("removed");
    expect(await readdir(tmp.path)).toEqual([]);
  });

  it("lets exactly one of many racing removals remove the lock, and none a lock made after it", async () => {
    const lock = join(tmp.path, "p.json.lock");
    for (let round = 0; round < 10; round++) {
      await writeFile(lock, STALE);
      const outcomes = await Promise.all(Array.from({ length: 12 }, async () => {
        const outcome = await removeStaleLock(lock, STALE);
        // The winner makes its own lock at once, as acquireLock does: no other racer may remove it.
        if (outcome === "removed") await writeFile(lock, FRESH, { flag: "wx" });
        return outcome;
      }));
      expect(outcomes.filter((o) => o === "removed")).toHaveLength(1);
      expect(outcomes.every((o) => o === "removed" || o === "changed" || o === "busy")).toBe(true);
      expect(await readFile(lock, "utf8")).toBe(FRESH);
      expect(await readdir(tmp.path)).toEqual(["p.json.lock"]);
    }
  });
});
