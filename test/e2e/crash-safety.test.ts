import { spawn } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, expect, it } from "vitest";
import { readPointer } from "../../src/pointer/store.js";
import { CLI, ROOT, type Sandbox } from "../helpers/sandbox.js";
import { seeded } from "../helpers/random.js";
import { Cleanup, sleep, waitUntil } from "./support.js";

/**
 * SIGKILL `sessionpin run` at random moments while the flapper agent changes its session ID every
 * few milliseconds, so captures, confirmations and pointer rewrites are always under way. After
 * every kill the pointer must be a valid file holding the newest state that was known to have
 * landed, or a later one (a confirmed ID is never lost), and the recording a valid prefix.
 */
const KILLS = 200;
const WORKERS = 4;
const FLAPPER = join(ROOT, "fixtures/plugins/flapper.json");
const cleanup = new Cleanup();
afterEach(() => cleanup.run());

it(`keeps the pointer and the recording valid across ${KILLS} SIGKILLs`, async () => {
  const results = await Promise.all(Array.from({ length: WORKERS }, (_, w) => worker(cleanup.sandbox(), KILLS / WORKERS, seeded(4242 + w))));
  const total = results.reduce((sum, r) => ({ kills: sum.kills + r.kills, duringWrites: sum.duringWrites + r.duringWrites }), { kills: 0, duringWrites: 0 });
  expect(total.kills).toBe(KILLS);
  // The kills must land while the pointer is being rewritten, not only before the first capture.
  expect(total.duringWrites).toBeGreaterThan(KILLS / 2);
}, 240_000);

async function worker(sb: Sandbox, kills: number, random: () => number): Promise<{ kills: number; duringWrites: number }> {
  const env = { ...sb.env, FLAPPER_STATE: join(sb.dir, "flapper.state") };
  const cast = join(sb.dir, "run.cast");
  let landed = 0;
  let duringWrites = 0;
  for (let i = 0; i < kills; i++) {
    const logBefore = readLog(sb).length;
    const child = spawn(process.execPath, [CLI, "run", "--pointer", sb.pointer, "--plugin", FLAPPER, "--record", cast, "--", "flapper"], {
      cwd: sb.dir, env, stdio: "ignore",
    });
    const exited = new Promise((resolve) => child.on("exit", resolve));
    try {
      // A quarter of the kills hit start-up (lock, pointer read, spawn); the rest land once
      // pointer writes are under way, at a random moment of a rewrite.
      if (random() < 0.25) await sleep(random() * 300);
      else await waitUntil(() => readLog(sb).slice(logBefore).includes(" → "), "a landed pointer write").then(() => sleep(random() * 150));
    } finally {
      // Also when the wait failed: a run left alive would flap its pointer for ever.
      child.kill("SIGKILL");
      await exited;
    }
    const log = readLog(sb).slice(logBefore);
    stopOrphan(log);
    // Whatever the kill before left behind (a stale lock, a takeover claim), this run pinned.
    expect(log, `kill ${i}`).not.toMatch(/running unpinned/);

    const ids = [...log.matchAll(/\b(F-\d+)\b[^\n]* → /g)].map((m) => number(m[1]));
    if (ids.length > 0) duringWrites++;
    landed = Math.max(landed, ...ids);
    const read = await readPointer(sb.pointer);
    if (landed === 0) {
      expect(["missing", "ok"]).toContain(read.kind);
      continue;
    }
    expect(read.kind, `kill ${i}: ${JSON.stringify(read)}`).toBe("ok");
    if (read.kind === "ok") expect(number(read.pointer.id), `kill ${i}: the pointer went back`).toBeGreaterThanOrEqual(landed);
    if (existsSync(cast)) assertCastPrefix(readFileSync(cast, "utf8"), i);
  }
  return { kills, duringWrites };
}

function assertCastPrefix(text: string, kill: number): void {
  const [header, ...events] = text.split("\n").filter(Boolean);
  expect(JSON.parse(header ?? "{}"), `kill ${kill}: cast header`).toMatchObject({ version: 2 });
  for (const event of events) {
    const parsed = JSON.parse(event) as unknown;
    expect(Array.isArray(parsed) && parsed.length === 3, `kill ${kill}: cast event ${event}`).toBe(true);
  }
}

/** The agent outlives a SIGKILLed sessionpin only until its PTY is gone; make sure of it. */
function stopOrphan(log: string): void {
  for (const match of log.matchAll(/started pid (\d+)/g)) {
    try {
      process.kill(-Number(match[1]), "SIGKILL");
    } catch {
      // Already gone with its terminal.
    }
  }
}

function readLog(sb: Sandbox): string {
  return existsSync(sb.log) ? readFileSync(sb.log, "utf8") : "";
}

function number(id: string | undefined): number {
  return Number(id?.slice(2));
}
