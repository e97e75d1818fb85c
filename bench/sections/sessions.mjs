/**
 * (12) A bridge with thousands of threads: `sessions --json` over N keyed pointers of 50 messages
 * and 10 earlier IDs each (as a pointer kept for months is), wall time and peak RSS: the first
 * listing (no listing cache yet), later ones (the cache: src/fast/listing-cache.ts), the same with
 * SESSIONPIN_NO_FAST=1 (every pointer read), and one key's (`--key`). Targets: under 300 ms and
 * under 100 MB (peak RSS) for 10,000.
 */
import { spawnSync } from "node:child_process";
import { createHash, randomUUID } from "node:crypto";
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ROOT, benchEnv, cli, tempDir } from "../lib/host.mjs";
import { median } from "../lib/stats.mjs";

const PEAK = join(ROOT, "test/torture/peak-rss.mjs");
const hash = (text) => createHash("sha256").update(text).digest("hex");

/** N pointers of one agent and folder, one key each, as run writes them (pretty JSON, 0600). */
function build(state, count) {
  const dir = join(state, "sessionpin", "claude");
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const cwd = "/home/coder/project";
  for (let i = 0; i < count; i++) {
    const key = `discord-${i}`;
    const at = new Date(Date.UTC(2026, 10, 1) + i * 60_000).toISOString();
    const pointer = {
      version: 1, agent: "claude", id: randomUUID(), state: "confirmed", cwd, capturedAt: at, confirmedAt: at, source: { rule: "result" }, key,
      messages: Array.from({ length: 50 }, (_, j) => ({ sha256: hash(`${i}/${j}`), at })), lastRunAt: at,
      history: Array.from({ length: 10 }, () => ({ id: randomUUID(), at, reason: "claude switched to another session" })),
    };
    writeFileSync(join(dir, `${hash(cwd).slice(0, 16)}-${hash(key).slice(0, 16)}.json`), `${JSON.stringify(pointer, null, 2)}\n`, { mode: 0o600 });
  }
}

function listing(env, args) {
  const peakFile = join(env.HOME, "peak");
  const t0 = process.hrtime.bigint();
  const r = spawnSync(process.execPath, ["--import", PEAK, cli(), "sessions", ...args], { env: { ...env, TORTURE_PEAK_FILE: peakFile }, encoding: "utf8", maxBuffer: 1 << 30, timeout: 120_000 });
  const ms = Number(process.hrtime.bigint() - t0) / 1e6;
  return { ms, peakMB: Number(readFileSync(peakFile, "utf8")) / 1024, ok: r.status === 0, rows: r.status === 0 ? (JSON.parse(r.stdout)).length : 0 };
}

export async function sessions({ count, runs, say }) {
  const dir = tempDir("sessions");
  const state = join(dir, "state");
  build(state, count);
  const env = { ...benchEnv(dir), HOME: dir, XDG_STATE_HOME: state };
  const cache = join(state, "sessionpin", ".listing.json");
  const problems = [];
  const sides = {
    first: () => {
      rmSync(cache, { force: true });
      return listing(env, ["--json"]);
    },
    later: () => listing(env, ["--json"]),
    simple: () => listing({ ...env, SESSIONPIN_NO_FAST: "1" }, ["--json"]),
    oneKey: () => listing(env, ["--key", `discord-${Math.floor(count / 2)}`, "--json"]),
  };
  const samples = Object.fromEntries(Object.keys(sides).map((side) => [side, []]));
  for (let n = 0; n < runs; n++) {
    for (const [side, run] of Object.entries(sides)) {
      const r = run();
      if (!r.ok || r.rows !== (side === "oneKey" ? 1 : count)) problems.push(`${side} run ${n + 1}: ${r.ok ? `${r.rows} rows` : "failed"}`);
      samples[side].push(r);
    }
  }
  const figure = (side) => ({ ms: median(samples[side].map((s) => s.ms)), peakMB: median(samples[side].map((s) => s.peakMB)) });
  const result = { count, runs, first: figure("first"), later: figure("later"), simple: figure("simple"), oneKey: figure("oneKey"), problems };
  say(`  sessions of ${count}: first ${result.first.ms.toFixed(0)} ms, later ${result.later.ms.toFixed(0)} ms / ${result.later.peakMB.toFixed(0)} MB, every pointer read ${result.simple.ms.toFixed(0)} ms, one key ${result.oneKey.ms.toFixed(0)} ms`);
  return result;
}
