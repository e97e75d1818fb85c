import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { systemClock } from "../../src/clock.js";
import { SessionpinError } from "../../src/errors.js";
import type { Logger } from "../../src/log/logger.js";
import { acquireLock, type PointerLock } from "../../src/pointer/lock.js";
import { driverLockPath } from "../../src/pointer/path.js";
import { driveSession, lockPointer } from "../../src/run/locks.js";
import { useTempDir } from "../pointer/tempdir.js";

const tmp = useTempDir();
const ID = "5f0c2a9e-1b7d-4e21-9c4a-8d6f1e2b3a40";
const held: PointerLock[] = [];
afterEach(async () => {
  for (const lock of held.splice(0)) await lock.release();
  vi.restoreAllMocks();
});

function logger(): Logger & { lines: string[] } {
  const lines: string[] = [];
  return { lines, info: (m) => void lines.push(`info ${m}`), warn: (m) => void lines.push(`warn ${m}`), close: () => undefined };
}

/** The lock of `path`, held by this live process as another run would hold it. */
async function holdLock(path: string): Promise<PointerLock> {
  const result = await acquireLock(path);
  if (result.kind !== "acquired") throw new Error(`not acquired: ${JSON.stringify(result)}`);
  held.push(result.lock);
  return result.lock;
}

describe("lockPointer", () => {
  it("takes a free pointer's lock at once, saying nothing", async () => {
    const log = logger();
    const result = await lockPointer(join(tmp.path, "p.json"), { clock: systemClock, waitLockMs: 0, log });
    expect(result?.kind).toBe("acquired");
    if (result?.kind === "acquired") held.push(result.lock);
    expect(existsSync(join(tmp.path, "p.json.lock"))).toBe(true);
    expect(log.lines).toEqual([]);
  });

  it("answers at once that a live run holds it, without --wait-lock", async () => {
    const pointer = join(tmp.path, "p.json");
    const holder = await holdLock(pointer);
    const started = Date.now();
    expect(await lockPointer(pointer, { clock: systemClock, waitLockMs: 0, log: logger() })).toEqual({ kind: "held", holder: holder.info });
    expect(Date.now() - started).toBeLessThan(1_000);
  });

  it("waits up to --wait-lock for the holder to let go, saying so once, then takes the lock", async () => {
    const pointer = join(tmp.path, "p.json");
    const holder = await holdLock(pointer);
    setTimeout(() => void holder.release(), 500);
    const log = logger();
    const result = await lockPointer(pointer, { clock: systemClock, waitLockMs: 10_000, log });
    expect(result?.kind).toBe("acquired");
    if (result?.kind === "acquired") held.push(result.lock);
    expect(log.lines).toEqual([`info waiting up to 10000 ms for sessionpin pid ${process.pid} to release ${pointer}`]);
  });

  it("gives up at --wait-lock with the holder, or at the first poll after a stop was asked for", async () => {
    const pointer = join(tmp.path, "p.json");
    await holdLock(pointer);
    let started = Date.now();
    expect((await lockPointer(pointer, { clock: systemClock, waitLockMs: 600, log: logger() }))?.kind).toBe("held");
    expect(Date.now() - started).toBeGreaterThanOrEqual(600);
    let stop: NodeJS.Signals | undefined;
    setTimeout(() => (stop = "SIGTERM"), 300);
    started = Date.now();
    expect((await lockPointer(pointer, { clock: systemClock, waitLockMs: 8_000, log: logger(), stopRequested: () => stop }))?.kind).toBe("held");
    expect(Date.now() - started).toBeLessThan(4_000);
  });

  it("runs the agent unpinned, saying why on stderr and in the log, when the pointer's folder cannot hold a lock", async () => {
    writeFileSync(join(tmp.path, "a-file"), "");
    const pointer = join(tmp.path, "a-file", "p.json");
    const stderr: string[] = [];
    vi.spyOn(process.stderr, "write").mockImplementation((chunk: string | Uint8Array) => stderr.push(String(chunk)) > 0);
    const log = logger();
    expect(await lockPointer(pointer, { clock: systemClock, waitLockMs: 0, log })).toBeUndefined();
    expect(stderr).toHaveLength(1);
    expect(stderr[0]).toMatch(new RegExp(`^sessionpin: cannot use ${pointer} \\(.+\\): running the agent without pinning its session\\n$`));
    expect(log.lines).toEqual([expect.stringMatching(new RegExp(`^warn cannot lock ${pointer}: .+; running unpinned$`))]);
  });
});

describe("driveSession", () => {
  const context = (log = logger()) => ({ clock: systemClock, waitLockMs: 0, log, env: { HOME: tmp.path, XDG_STATE_HOME: join(tmp.path, "state") }, agent: "claude" });

  it("takes the session's driver lock in the state folder, whichever pointer named the session", async () => {
    const o = context();
    const lock = await driveSession(ID, o);
    expect(lock?.path).toBe(`${driverLockPath(o.env, tmp.path, "claude", ID)}.lock`);
    expect(JSON.parse(readFileSync(lock?.path ?? "", "utf8"))).toMatchObject({ pid: process.pid });
    await lock?.release();
    expect(o.log.lines).toEqual([]);
  });

  it("refuses, with exit code 75, to drive a session another live run drives", async () => {
    const o = context();
    await holdLock(driverLockPath(o.env, tmp.path, "claude", ID));
    const error = await driveSession(ID, o).then(() => undefined, (e: unknown) => e);
    expect(error).toBeInstanceOf(SessionpinError);
    expect((error as SessionpinError).exitCode).toBe(75);
    expect((error as SessionpinError).message).toMatch(new RegExp(`^sessionpin: claude session ${ID} is driven by sessionpin pid ${process.pid} on .+; not starting a second driver$`));
  });

  it("takes over the lock a killed run left, and says so in the log", async () => {
    const o = context();
    const path = driverLockPath(o.env, tmp.path, "claude", ID);
    mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
    writeFileSync(`${path}.lock`, "");
    const lock = await driveSession(ID, o);
    expect(lock).toBeDefined();
    await lock?.release();
    expect(o.log.lines).toEqual([`warn took over the stale driver lock of claude session ${ID}: {"unreadable":"empty lock file"}`]);
  });

  it("goes on without the lock, said in the log, when the state folder cannot hold it", async () => {
    writeFileSync(join(tmp.path, "state"), "a file where the state folder goes");
    const o = context();
    expect(await driveSession(ID, o)).toBeUndefined();
    expect(o.log.lines).toEqual([expect.stringMatching(new RegExp(`^warn cannot lock claude session ${ID} at .+: .+; two runs on it would not be kept apart$`))]);
  });
});
