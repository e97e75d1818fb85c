import { execFileSync, spawn, spawnSync } from "node:child_process";
import { once } from "node:events";
import { chmod, link, mkdir, readdir, readFile, stat, symlink, utimes, writeFile } from "node:fs/promises";
import { hostname } from "node:os";
import { basename, join } from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import {
  acquireLock,
  type LockInfo,
  type LockResult,
  type PointerLock,
} from "../../src/pointer/lock.js";
import { ABANDONED_AFTER_MS } from "../../src/pointer/takeover.js";
import { tempPathFor } from "../../src/pointer/atomic.js";
import { useTempDir } from "./tempdir.js";

const tmp = useTempDir();
const now = () => new Date("2026-11-22T21:30:00.000Z");
const OLD = "2026-01-01T00:00:00.000Z";

function acquired(r: LockResult): PointerLock {
  if (r.kind !== "acquired") throw new Error(`expected acquired, got ${JSON.stringify(r)}`);
  return r.lock;
}

/** Lock content naming a process that certainly existed and has since exited. */
async function deadHolder(host = hostname()): Promise<LockInfo> {
  const child = spawn(process.execPath, ["-e", ""], { stdio: "ignore" });
  await once(child, "exit");
  return { pid: child.pid ?? 0, startedAt: OLD, host };
}

function tookOverFrom(r: LockResult): unknown {
  acquired(r);
  return r.kind === "acquired" && r.tookOverFrom;
}

describe("acquireLock", () => {
  it("writes <pointer>.lock 0600 in a new 0700 folder naming this process", async () => {
    const pointer = join(tmp.path, "state", "p.json");
    const result = await acquireLock(pointer, { now });
    const lock = acquired(result);
    expect(result).not.toHaveProperty("tookOverFrom");
    expect(lock.path).toBe(`${pointer}.lock`);
    const info = { pid: process.pid, startedAt: "2026-11-22T21:30:00.000Z", host: hostname() };
    expect(JSON.parse(await readFile(lock.path, "utf8"))).toEqual(info);
    expect((await stat(lock.path)).mode & 0o777).toBe(0o600);
    expect((await stat(join(tmp.path, "state"))).mode & 0o777).toBe(0o700);
    expect(await readdir(join(tmp.path, "state"))).toEqual(["p.json.lock"]);
  });

  it("a second acquire is held by us until release", async () => {
    const pointer = join(tmp.path, "p.json");
    const lock = acquired(await acquireLock(pointer));
    const second = await acquireLock(pointer);
    expect(second.kind).toBe("held");
    expect(second.kind === "held" && second.holder.pid).toBe(process.pid);
    await lock.release();
    await lock.release();
    expect(await readdir(tmp.path)).toEqual([]);
    acquired(await acquireLock(pointer));
  });

  it("release leaves alone a lock that is no longer ours", async () => {
    const pointer = join(tmp.path, "p.json");
    const lock = acquired(await acquireLock(pointer));
    const other = JSON.stringify({ pid: 1, startedAt: "x", host: hostname() });
    await writeFile(lock.path, other);
    await lock.release();
    lock.releaseSync();
    expect(await readFile(lock.path, "utf8")).toBe(other);
  });

  it("releaseSync removes our lock", async () => {
    const pointer = join(tmp.path, "p.json");
    const lock = acquired(await acquireLock(pointer));
    lock.releaseSync();
    lock.releaseSync();
    expect(await readdir(tmp.path)).toEqual([]);
  });

  it("takes over from a dead pid", async () => {
    const pointer = join(tmp.path, "p.json");
    const stale = await deadHolder();
    await writeFile(`${pointer}.lock`, JSON.stringify(stale));
    expect(tookOverFrom(await acquireLock(pointer))).toEqual(stale);
    expect(JSON.parse(await readFile(`${pointer}.lock`, "utf8")).pid).toBe(process.pid);
  });

  it("takes over an empty lock file", async () => {
    const pointer = join(tmp.path, "p.json");
    await writeFile(`${pointer}.lock`, "");
    expect(tookOverFrom(await acquireLock(pointer))).toEqual({ unreadable: "empty lock file" });
  });

  it("lets exactly one of many racing takeovers win", async () => {
    const pointer = join(tmp.path, "p.json");
    const stale = JSON.stringify(await deadHolder());
    for (let round = 0; round < 10; round++) {
      await writeFile(`${pointer}.lock`, stale);
      // Each racer's lock is told apart by its time: later than this process started, as a lock it took is.
      const base = Date.now();
      const results = await Promise.all(
        Array.from({ length: 12 }, (_, i) =>
          acquireLock(pointer, { now: () => new Date(base + i * 60_000) }),
        ),
      );
      const winners = results.flatMap((r) => (r.kind === "acquired" ? [r.lock] : []));
      expect(winners).toHaveLength(1);
      expect(JSON.parse(await readFile(`${pointer}.lock`, "utf8"))).toEqual(winners[0]?.info);
      expect(await readdir(tmp.path)).toEqual(["p.json.lock"]);
    }
  });

  describe("while another process claims the takeover", () => {
    afterEach(() => {
      vi.useRealTimers();
    });

    async function staleWithClaim(pointer: string): Promise<void> {
      await writeFile(`${pointer}.lock`, JSON.stringify(await deadHolder()));
      await link(`${pointer}.lock`, `${pointer}.lock.takeover`);
    }

    it("waits while the claim is fresh, then clears it and takes over (a run killed mid-takeover)", async () => {
      const pointer = join(tmp.path, "p.json");
      await staleWithClaim(pointer);
      const claimed = (await stat(`${pointer}.lock.takeover`)).ctimeMs;
      const result = await acquireLock(pointer);
      // Not before the claim could be called abandoned: a live rival's claim is never cleared.
      expect(Date.now() - claimed).toBeGreaterThanOrEqual(ABANDONED_AFTER_MS);
      expect(tookOverFrom(result)).toMatchObject({ startedAt: OLD });
      expect(await readdir(tmp.path)).toEqual(["p.json.lock"]);
    });

    it("clears a claim abandoned by a killed process", async () => {
      const pointer = join(tmp.path, "p.json");
      await staleWithClaim(pointer);
      vi.useFakeTimers({ toFake: ["Date"] });
      vi.setSystemTime(Date.now() + 60_000);
      expect(tookOverFrom(await acquireLock(pointer))).toMatchObject({ startedAt: OLD });
      expect(await readdir(tmp.path)).toEqual(["p.json.lock"]);
    });
  });

  it("treats a lock from another host as held while fresh, and takes it over once it went 5 minutes without a heartbeat", async () => {
    const pointer = join(tmp.path, "p.json");
    const remote = await deadHolder("elsewhere");
    await writeFile(`${pointer}.lock`, JSON.stringify(remote));
    expect(await acquireLock(pointer)).toEqual({ kind: "held", holder: remote });
    const almost = new Date(Date.now() - 4 * 60_000);
    await utimes(`${pointer}.lock`, almost, almost);
    expect(await acquireLock(pointer)).toEqual({ kind: "held", holder: remote });
    const past = new Date(Date.now() - 6 * 60_000);
    await utimes(`${pointer}.lock`, past, past);
    expect(tookOverFrom(await acquireLock(pointer))).toEqual(remote);
  });

  it("keeps its own lock fresh while it is ours, leaves another's alone, and stops at release", async () => {
    const pointer = join(tmp.path, "p.json");
    const lock = acquired(await acquireLock(pointer, { heartbeatMs: 20 }));
    const past = new Date(Date.now() - 6 * 60_000);
    const age = async (): Promise<number> => Date.now() - (await stat(lock.path)).mtimeMs;
    const settle = () => new Promise((resolve) => setTimeout(resolve, 200));
    await utimes(lock.path, past, past);
    await settle();
    expect(await age()).toBeLessThan(60_000);
    // Taken over by another run: its lock is not ours to refresh.
    await writeFile(lock.path, JSON.stringify({ pid: 1, startedAt: "x", host: "elsewhere" }));
    await utimes(lock.path, past, past);
    await settle();
    expect(await age()).toBeGreaterThan(5 * 60_000);
    await writeFile(lock.path, `${JSON.stringify(lock.info)}\n`);
    await lock.release();
    await writeFile(lock.path, `${JSON.stringify(lock.info)}\n`);
    await utimes(lock.path, past, past);
    await settle();
    expect(await age()).toBeGreaterThan(5 * 60_000);
  });

  it("refuses a lock that is not a plain file (a FIFO), without reading it", async () => {
    const pointer = join(tmp.path, "p.json");
    execFileSync("mkfifo", [`${pointer}.lock`]);
    await expect(acquireLock(pointer)).rejects.toMatchObject({ code: "pointer-invalid", message: expect.stringContaining("is not a regular file") as unknown });
  });

  it("refuses a symlinked lock", async () => {
    const pointer = join(tmp.path, "p.json");
    await writeFile(join(tmp.path, "target"), "");
    await symlink(join(tmp.path, "target"), `${pointer}.lock`);
    await expect(acquireLock(pointer)).rejects.toMatchObject({ code: "pointer-invalid" });
  });

  it("is held while another live process owns it, and taken over once it dies", async () => {
    const pointer = join(tmp.path, "p.json");
    const script = "setTimeout(() => {}, 30000)";
    const child = spawn(process.execPath, ["-e", script], { stdio: "ignore" });
    try {
      // Taken by the child once it runs: after it started, as a holder's lock always is.
      const holder = { pid: child.pid ?? 0, startedAt: new Date().toISOString(), host: hostname() };
      await writeFile(`${pointer}.lock`, JSON.stringify(holder));
      expect(await acquireLock(pointer)).toEqual({ kind: "held", holder });
      child.kill("SIGKILL");
      await once(child, "exit");
      expect(tookOverFrom(await acquireLock(pointer))).toEqual(holder);
    } finally {
      child.kill("SIGKILL");
    }
  });

  describe("a pid that names a live process which started after the lock was taken (Linux's /proc)", () => {
    // After a restart pids are handed out again: the lock of a run killed before it names another process.
    it("another process: the lock is taken over", async () => {
      const pointer = join(tmp.path, "p.json");
      const child = spawn(process.execPath, ["-e", "setTimeout(() => {}, 30000)"], { stdio: "ignore" });
      try {
        const holder = { pid: child.pid ?? 0, startedAt: OLD, host: hostname() };
        await writeFile(`${pointer}.lock`, JSON.stringify(holder));
        expect(tookOverFrom(await acquireLock(pointer))).toEqual(holder);
      } finally {
        child.kill("SIGKILL");
      }
    });

    it("this very process (a container that starts the same way each time): the lock is taken over", async () => {
      const pointer = join(tmp.path, "p.json");
      const holder = { pid: process.pid, startedAt: OLD, host: hostname() };
      await writeFile(`${pointer}.lock`, JSON.stringify(holder));
      expect(tookOverFrom(await acquireLock(pointer))).toEqual(holder);
    });

    it("a process that exited and was not reaped yet (a zombie): the lock is taken over", async () => {
      const pointer = join(tmp.path, "p.json");
      // The shell starts a child, then becomes a sleep that never reaps it.
      const parent = spawn("sh", ["-c", "sleep 0 & echo $!; exec sleep 30"], { stdio: ["ignore", "pipe", "ignore"] });
      try {
        const [out] = (await once(parent.stdout, "data")) as [Buffer];
        const pid = Number(out.toString().trim());
        for (const deadline = Date.now() + 5_000; !(await readFile(`/proc/${pid}/stat`, "utf8")).includes(") Z ");) {
          if (Date.now() > deadline) throw new Error(`${pid} never became a zombie`);
          await new Promise((resolve) => setTimeout(resolve, 10));
        }
        const holder = { pid, startedAt: new Date(Date.now() + 60_000).toISOString(), host: hostname() };
        await writeFile(`${pointer}.lock`, JSON.stringify(holder));
        expect(tookOverFrom(await acquireLock(pointer))).toEqual(holder);
      } finally {
        parent.kill("SIGKILL");
      }
    });
  });
});

describe("a lock file that is no lock sessionpin wrote", () => {
  it("is read no further than a lock can be: a 1 GiB file is refused by its size, in one line, with memory left alone", async () => {
    const pointer = join(tmp.path, "p.json");
    // Sparse: no disk is used for it.
    execFileSync("truncate", ["-s", "1G", `${pointer}.lock`]);
    const before = process.memoryUsage().arrayBuffers;
    await expect(acquireLock(pointer)).rejects.toThrow(`lock file ${pointer}.lock is larger than any lock sessionpin writes (65536 bytes), remove it by hand`);
    expect(process.memoryUsage().arrayBuffers - before).toBeLessThan(1 << 20);
  });
});

describe("the lock's folder and its temp files", () => {
  it("refuses a folder every user may write to (mode 1777), in one line, and leaves it alone", async () => {
    const dir = join(tmp.path, "shared");
    await mkdir(dir);
    await chmod(dir, 0o1777);
    const pointer = join(dir, "p.json");
    await expect(acquireLock(pointer)).rejects.toThrow(`${dir} is writable by every user (mode 1777); keep pointers in a folder only you can write to`);
    expect(await readdir(dir)).toEqual([]);
    await chmod(dir, 0o755);
    acquired(await acquireLock(pointer));
  });

  it("sweeps the temp files dead writers of the lock left, never a live writer's", async () => {
    const pointer = join(tmp.path, "p.json");
    // A pid above the kernel's pid_max (4194304) names no live process.
    const dead = tempPathFor(`${pointer}.lock`, 2 ** 22 + 4321);
    const live = tempPathFor(`${pointer}.lock`, process.pid);
    await writeFile(dead, "{}");
    await writeFile(live, "{}");
    const lock = acquired(await acquireLock(pointer));
    expect((await readdir(tmp.path)).sort()).toEqual([basename(live), "p.json.lock"].sort());
    await lock.release();
  });

  // A full disk: the temp file is made, its write fails. It was left behind, and nothing swept it.
  it.runIf(process.getuid?.() === 0)("leaves no temp file behind on a full disk", async () => {
    const dir = join(tmp.path, "full");
    await mkdir(dir);
    if (spawnSync("mount", ["-t", "tmpfs", "-o", "size=16k,mode=0700", "tmpfs", dir]).status !== 0) return;
    try {
      try {
        for (let i = 0; ; i++) await writeFile(join(dir, `filler-${i}`), Buffer.alloc(4096, 1));
      } catch {
        // ENOSPC: full
      }
      await expect(acquireLock(join(dir, "p.json"))).rejects.toThrow(/ENOSPC/);
      expect((await readdir(dir)).filter((name) => name.endsWith(".tmp"))).toEqual([]);
    } finally {
      spawnSync("umount", ["-l", dir]);
    }
  });
});
