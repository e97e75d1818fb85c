/**
 * (3) Capture-to-durable: the child writes its stream-json init line (then, separately, the
 * `result` line); we time from just before that write (child's CLOCK_MONOTONIC) until the pointer
 * file, read after an inotify event on its folder, holds the ID (then: holds it confirmed). The
 * pointer is renamed into place after its data is fsynced, so "visible with the ID" = fsynced
 * and renamed. The folder fsync comes after the rename; the log line sessionpin writes once the
 * whole write finished is timed too ("logged"), as an upper bound.
 */
import { watch, readFileSync, mkdirSync } from "node:fs";
import { randomUUID } from "node:crypto";
import { join, basename } from "node:path";
import { CHILDREN, AMP_ARGS, benchEnv, exited, nowMs, spawnVia, tempDir, sleep } from "../lib/host.mjs";
import { percentile } from "../lib/stats.mjs";

function readJson(path) {
  try { return JSON.parse(readFileSync(path, "utf8")); } catch { return undefined; }
}

function readText(path) {
  try { return readFileSync(path, "utf8"); } catch { return ""; }
}

/** Watches the pointer's and the log's folders; records the first time each condition holds. */
function observer(pointer, log, id) {
  const seen = {};
  const check = () => {
    const now = nowMs();
    const p = readJson(pointer);
    if (p?.id === id) seen.captured ??= now;
    if (p?.id === id && p.state === "confirmed") seen.confirmed ??= now;
    const text = readText(log);
    if (text.includes(`captured provisional ${id}`)) seen.capturedLogged ??= now;
    if (text.includes(`confirmed ${id}`)) seen.confirmedLogged ??= now;
  };
  const watchers = [watch(join(pointer, ".."), (_e, name) => { if (name === basename(pointer)) check(); }),
    watch(join(log, ".."), (_e, name) => { if (name === basename(log)) check(); })];
  return { seen, check, close: () => watchers.forEach((w) => w.close()) };
}

function waitUntil(cond, ms) {
  const start = nowMs();
  return new Promise((resolve) => {
    const tick = () => (cond() || nowMs() - start > ms ? resolve(cond()) : setTimeout(tick, 1));
    tick();
  });
}

async function once(dir, n) {
  const run = join(dir, `run${n}`);
  mkdirSync(join(run, "ptr"), { recursive: true });
  mkdirSync(join(run, "log"), { recursive: true });
  const pointer = join(run, "ptr", "amp.json");
  const log = join(run, "log", "amp.log");
  const t0File = join(run, "t0");
  const id = `T-${randomUUID()}`;
  const env = benchEnv(run, { BENCH_ID: id, BENCH_T0_FILE: t0File });
  const obs = observer(pointer, log, id);
  const p = spawnVia("shim", join(CHILDREN, "emit-id"), AMP_ARGS, { env, pointer, log });
  const done = exited(p);
  let out = "";
  p.onData((c) => void (out += c.toString("latin1")));
  try {
    if (!(await waitUntil(() => out.includes("ready"), 10_000))) throw new Error("child never got ready");
    await sleep(20); // let start-up work finish, as it would have long before a real agent's init
    p.write("i");
    await waitUntil(() => obs.seen.captured !== undefined && obs.seen.capturedLogged !== undefined, 2_000);
    obs.check();
    await sleep(5);
    p.write("c");
    await waitUntil(() => obs.seen.confirmed !== undefined && obs.seen.confirmedLogged !== undefined, 2_000);
    obs.check();
    p.write("q");
    await done;
  } finally {
    obs.close();
  }
  const t = Object.fromEntries(readText(t0File).trim().split("\n").map((l) => l.split(" ")).map(([k, ns]) => [k, Number(BigInt(ns)) / 1e6]));
  const d = (a, b) => (a === undefined || b === undefined ? undefined : a - b);
  return {
    captured: d(obs.seen.captured, t.i),
    capturedLogged: d(obs.seen.capturedLogged, t.i),
    confirmed: d(obs.seen.confirmed, t.c),
    confirmedLogged: d(obs.seen.confirmedLogged, t.c),
  };
}

export async function durable({ runs, say }) {
  const dir = tempDir("durable");
  const all = { captured: [], capturedLogged: [], confirmed: [], confirmedLogged: [] };
  const problems = [];
  for (let n = 0; n < runs; n++) {
    const r = await once(dir, n);
    for (const [k, v] of Object.entries(r)) {
      if (v === undefined) problems.push(`run ${n + 1}: ${k} never seen within 2 s`);
      else all[k].push(v);
    }
  }
  const s = (k) => ({ p50: percentile(all[k], 50), p99: percentile(all[k], 99), max: Math.max(...all[k]), n: all[k].length });
  const result = { runs, capturedMs: s("captured"), capturedLoggedMs: s("capturedLogged"), confirmedMs: s("confirmed"), confirmedLoggedMs: s("confirmedLogged"), problems };
  say(`  durable: captured p50 ${result.capturedMs.p50.toFixed(2)} p99 ${result.capturedMs.p99.toFixed(2)} ms; confirmed p50 ${result.confirmedMs.p50.toFixed(2)} p99 ${result.confirmedMs.p99.toFixed(2)} ms`);
  return result;
}
