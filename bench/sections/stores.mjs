/**
 * (10) Agent session stores: what a warm start, `plan` and the store watch cost as the agent's own
 * store grows. Stores of 1,000, 10,000 and 100,000 entries, Codex's (rollouts filed by day over a
 * year) and Claude's (one project folder), each against the same commands on an empty store, in
 * paired rounds of a shuffled order (the median of each round's difference):
 *
 * - `plan -- <agent>` with a pointer to a session of the store (a third of the way back);
 *   for Codex also its first look-up (nothing remembered yet: the day folders its UUIDv7 names),
 *   and a session gone from the store (a search of all of it, bounded);
 * - a warm `run -- <agent>` of an agent that exits at once (the look-up, the store watch's one
 *   listing before the spawn, the pointer written);
 * - in this process, with the build's own StoreWatch: its listing before the spawn, and one look
 *   while the agent runs (median of 60), which must not grow with the store.
 *
 * No timing is asserted anywhere else (test/engine/store-*.test.ts count what is listed instead).
 *
 * The builders below also make such stores by hand, for timing `sessionpin plan` from outside:
 *
 *   node bench/sections/stores.mjs codex 20000 /tmp/heavy      # a year of Codex rollouts
 *   node bench/sections/stores.mjs claude 5000 /tmp/heavy      # one Claude project folder
 *
 * Each prints, as one JSON line, the HOME it filled, the working folder, the state folder
 * (XDG_STATE_HOME) holding a pointer to a session of that store, and the session's ID.
 *
 * Codex: `$HOME/.codex/sessions/YYYY/MM/DD/rollout-<local time>-<id>.jsonl`, spread over the
 * days of a year before `now` (local dates, as Codex 0.169 files them), IDs UUIDv7 of the
 * rollout's start as Codex mints them, line 1 the `session_meta` Codex writes (its base
 * instructions cut to `lineBytes`: 0.169 writes ~21.7 KB there; no look-up reads an old rollout).
 * Claude: `$HOME/.claude/projects/<cwd with non-alphanumerics as ->/<uuid v4>.jsonl`, a user and an
 * assistant line each.
 */
import { spawnSync } from "node:child_process";
import { chmodSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { createHash } from "node:crypto";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { seeded } from "../../test/helpers/seeded.mjs";
import { benchEnv, buildModule, cli, tempDir } from "../lib/host.mjs";
import { median, percentile } from "../lib/stats.mjs";

const DAY_MS = 86_400_000;
const pad = (n, width = 2) => String(n).padStart(width, "0");
const hex = (random, digits) => Array.from({ length: digits }, () => Math.floor(random() * 16).toString(16)).join("");

/** A UUIDv7 of `ms` (48 bits of Unix milliseconds, version 7, variant 10). */
export function uuidV7(ms, random) {
  const t = ms.toString(16).padStart(12, "0");
  const variant = (8 + Math.floor(random() * 4)).toString(16);
  return `${t.slice(0, 8)}-${t.slice(8, 12)}-7${hex(random, 3)}-${variant}${hex(random, 3)}-${hex(random, 12)}`;
}

/** A random UUIDv4. */
export function uuidV4(random) {
  const variant = (8 + Math.floor(random() * 4)).toString(16);
  return `${hex(random, 8)}-${hex(random, 4)}-4${hex(random, 3)}-${variant}${hex(random, 3)}-${hex(random, 12)}`;
}

/** `$CODEX_HOME/sessions`'s day folder of a local time, and the rollout's name in it. */
function rolloutPath(root, at, id) {
  const day = join(root, String(at.getFullYear()), pad(at.getMonth() + 1), pad(at.getDate()));
  const stamp = `${at.getFullYear()}-${pad(at.getMonth() + 1)}-${pad(at.getDate())}T${pad(at.getHours())}-${pad(at.getMinutes())}-${pad(at.getSeconds())}`;
  return { day, file: join(day, `rollout-${stamp}-${id}.jsonl`) };
}

/**
 * `count` Codex rollouts in `home`, over the `days` days before `now`, in random folders `cwds`
 * (the first of them being the bench's working folder). Returns them oldest first.
 */
export function buildCodexStore({ home, count, now = Date.now(), days = 365, lineBytes = 2048, cwds, seed = 1 }) {
  const random = seeded(seed);
  const root = join(home, ".codex", "sessions");
  const instructions = "You are Codex, a coding agent based on GPT-5. ".repeat(Math.ceil(lineBytes / 46)).slice(0, lineBytes);
  const times = Array.from({ length: count }, () => now - Math.floor(random() * days * DAY_MS)).sort((a, b) => a - b);
  const made = new Set();
  const rollouts = [];
  for (const ms of times) {
    const at = new Date(ms);
    const id = uuidV7(ms, random);
    const cwd = cwds[Math.floor(random() * cwds.length)];
    const { day, file } = rolloutPath(root, at, id);
    if (!made.has(day)) mkdirSync(day, { recursive: true }), made.add(day);
    const meta = {
      timestamp: at.toISOString(), type: "session_meta",
      payload: {
        id, timestamp: at.toISOString(), cwd, originator: "codex_cli_rs", cli_version: "0.169.0", instructions: null, source: "cli",
        model_provider: "openai", base_instructions: { text: instructions }, git: { commit_hash: hex(random, 40), branch: "main" },
      },
    };
    const turn = { timestamp: at.toISOString(), type: "response_item", payload: { type: "message", role: "user", content: [{ type: "input_text", text: "fix the build" }] } };
    writeFileSync(file, `${JSON.stringify(meta)}\n${JSON.stringify(turn)}\n`);
    rollouts.push({ id, path: file, cwd, ms });
  }
  return rollouts;
}

/** Claude's project folder name for `cwd` (non-alphanumerics as `-`). */
export const claudeProject = (cwd) => cwd.replace(/[^A-Za-z0-9]/g, "-");

/** `count` Claude transcripts of `cwd` in `home`; returns them. */
export function buildClaudeStore({ home, cwd, count, seed = 2 }) {
  const random = seeded(seed);
  const dir = join(home, ".claude", "projects", claudeProject(cwd));
  mkdirSync(dir, { recursive: true });
  const sessions = [];
  for (let i = 0; i < count; i++) {
    const id = uuidV4(random);
    const path = join(dir, `${id}.jsonl`);
    const line = (type, content) => JSON.stringify({ type, message: { role: type, content }, uuid: uuidV4(random), sessionId: id, cwd, version: "2.1.197" });
    writeFileSync(path, `${line("user", "fix the build")}\n${line("assistant", "done")}\n`);
    sessions.push({ id, path, cwd });
  }
  return sessions;
}

/** The default pointer path of `agent` in `cwd` under `state` (src/pointer/path.ts). */
export function pointerPathFor(state, agent, cwd) {
  return join(state, "sessionpin", agent, `${createHash("sha256").update(resolve(cwd)).digest("hex").slice(0, 16)}.json`);
}

/** Writes a confirmed pointer to session `id` of `agent` in `cwd`, captured at `capturedAt`. */
export function writePointerFor(state, agent, cwd, id, capturedAt = new Date()) {
  const path = pointerPathFor(state, agent, cwd);
  mkdirSync(join(path, ".."), { recursive: true });
  const at = capturedAt.toISOString();
  writeFileSync(path, `${JSON.stringify({ version: 1, agent, id, state: "confirmed", cwd: resolve(cwd), capturedAt: at, confirmedAt: at, source: { rule: "bench" }, history: [] }, null, 2)}\n`, { mode: 0o600 });
  return path;
}

/**
 * A HOME with `count` entries of `agent`'s store, a working folder and a pointer there to the
 * session `pick` chooses (default: one a third of the way back, so neither the newest nor the
 * oldest). `count` 0 makes the empty store the others are compared with (the pointer stays).
 */
export function heavyHome(dir, agent, count, pick = (sessions) => sessions[Math.floor(sessions.length * 2 / 3)], lineBytes = 2048) {
  const home = join(dir, "home");
  const cwd = join(dir, "work", "project");
  const state = join(dir, "state");
  mkdirSync(cwd, { recursive: true });
  mkdirSync(home, { recursive: true });
  const others = Array.from({ length: 7 }, (_, i) => join(dir, "work", `other-${i}`));
  const sessions = agent === "codex"
    ? buildCodexStore({ home, count, cwds: [cwd, ...others], lineBytes })
    : buildClaudeStore({ home, cwd, count });
  // The empty store's pointer names a session that would be there: the same decision either way.
  const chosen = pick(sessions) ?? { id: agent === "codex" ? uuidV7(Date.now() - 40 * DAY_MS, seeded(3)) : uuidV4(seeded(3)), ms: Date.now() - 40 * DAY_MS };
  // Captured when the session started (sessionpin captures a new session's ID within seconds).
  writePointerFor(state, agent, cwd, chosen.id, new Date(chosen.ms ?? Date.now()));
  return { home, cwd, state, id: chosen.id, entries: sessions.length };
}

/** A command from spawn to exit, ms. */
function timed(args, env, cwd) {
  const t0 = process.hrtime.bigint();
  const r = spawnSync(process.execPath, [cli(), ...args], { env, cwd, stdio: ["ignore", "pipe", "pipe"], timeout: 60_000 });
  return { ms: Number(process.hrtime.bigint() - t0) / 1e6, ok: r.status === 0 && r.error === undefined, out: r.stdout.toString(), err: r.stderr.toString() };
}

/** An agent that exits at once, for warm starts; on PATH as `codex` and `claude`. */
function fakeAgents(dir) {
  const bin = join(dir, "bin");
  mkdirSync(bin, { recursive: true });
  for (const name of ["codex", "claude"]) {
    writeFileSync(join(bin, name), "#!/bin/sh\nexit 0\n");
    chmodSync(join(bin, name), 0o755);
  }
  return bin;
}

/** A store of `count` entries with its pointer, and the environment that finds both. */
function store(dir, agent, count, bin) {
  const made = heavyHome(dir, agent, count);
  const env = { ...benchEnv(made.home), HOME: made.home, XDG_STATE_HOME: made.state, PATH: `${bin}:${process.env.PATH}` };
  delete env.CODEX_HOME;
  delete env.CLAUDE_CONFIG_DIR;
  return { ...made, env, index: join(made.state, "sessionpin", ".stores") };
}

/** Median of the paired differences, and both sides' p50. */
function paired(a, b) {
  return { p50: percentile(a, 50), emptyP50: percentile(b, 50), addedP50: median(a.map((v, i) => v - b[i])) };
}

/**
 * The build's own StoreWatch on the store (in this process): its listing before the spawn, and
 * one look while the agent runs, as the median of 60 (µs). An older build's watch is timed the same way.
 */
async function watchCost(s, agent) {
  const { StoreWatch } = await import(buildModule("engine/store-watch.js"));
  const plugin = (await import(buildModule(`agents/${agent}.js`)))[agent];
  const clock = { now: () => Date.now(), setTimeout: () => ({}), clearTimeout: () => undefined };
  const context = { home: s.home, cwd: s.cwd, env: { HOME: s.home, XDG_STATE_HOME: s.state } };
  const befores = [];
  const looks = [];
  for (let round = 0; round < 3; round++) {
    const watch = new StoreWatch(plugin, context, clock, () => undefined, () => undefined);
    const t0 = process.hrtime.bigint();
    watch.before();
    befores.push(Number(process.hrtime.bigint() - t0) / 1e6);
    for (let n = 0; n < 20; n++) {
      const t1 = process.hrtime.bigint();
      watch.poll(process.pid);
      looks.push(Number(process.hrtime.bigint() - t1) / 1e3);
    }
  }
  return { beforeMs: median(befores), lookUs: median(looks) };
}

export async function stores({ sizes, runs, say }) {
  const dir = tempDir("stores");
  const bin = fakeAgents(dir);
  const random = seeded(10);
  const problems = [];
  const agents = {};
  for (const agent of ["codex", "claude"]) {
    const empty = store(join(dir, `${agent}-empty`), agent, 0, bin);
    agents[agent] = {};
    for (const size of sizes) {
      const built = Date.now();
      const s = store(join(dir, `${agent}-${size}`), agent, size, bin);
      const buildSeconds = (Date.now() - built) / 1000;
      // A session gone from it (Codex: one of 40 days ago): a search of the whole store, within its bounds.
      const goneState = join(dir, `${agent}-${size}-gone`);
      const goneAt = Date.now() - 40 * DAY_MS;
      writePointerFor(goneState, agent, s.cwd, agent === "codex" ? uuidV7(goneAt, random) : uuidV4(random), new Date(goneAt));
      const goneEnv = { ...s.env, XDG_STATE_HOME: goneState };
      const sides = {
        plan: { a: () => timed(["plan", "--", agent], s.env, s.cwd), b: () => timed(["plan", "--", agent], empty.env, empty.cwd) },
        // Nothing remembered yet: the first look-up after the capture.
        planFirst: { a: () => (rmSync(s.index, { recursive: true, force: true }), timed(["plan", "--", agent], s.env, s.cwd)), b: () => timed(["plan", "--", agent], empty.env, empty.cwd) },
        planGone: { a: () => timed(["plan", "--", agent], goneEnv, s.cwd), b: () => timed(["plan", "--", agent], empty.env, empty.cwd) },
        warm: { a: () => timed(["run", "--", agent], s.env, s.cwd), b: () => timed(["run", "--", agent], empty.env, empty.cwd) },
      };
      timed(["plan", "--", agent], s.env, s.cwd); // the code cache, and the page cache of the store
      const samples = Object.fromEntries(Object.keys(sides).map((k) => [k, { a: [], b: [] }]));
      for (let n = 0; n < runs; n++) {
        for (const [figure, pair] of Object.entries(sides)) {
          for (const side of random() < 0.5 ? ["a", "b"] : ["b", "a"]) {
            const r = pair[side]();
            if (!r.ok) problems.push(`${agent} ${size} ${figure} ${side === "a" ? "store" : "empty"} run ${n + 1}: ${r.err.trim().split("\n")[0] ?? "failed"}`);
            samples[figure][side].push(r.ms);
          }
        }
      }
      const plan = JSON.parse(timed(["plan", "--", agent], s.env, s.cwd).out || "{}");
      if (plan.mode !== "warm") problems.push(`${agent} ${size}: plan says ${plan.mode}, not warm`);
      const goneMode = JSON.parse(timed(["plan", "--", agent], goneEnv, s.cwd).out || "{}").mode;
      const figures = Object.fromEntries(Object.entries(samples).map(([k, v]) => [k, paired(v.a, v.b)]));
      agents[agent][size] = { entries: s.entries, buildSeconds, goneMode, ...figures, watch: await watchCost(s, agent) };
      const f = agents[agent][size];
      say(`  ${agent} ${size}: plan ${f.plan.addedP50 >= 0 ? "+" : ""}${f.plan.addedP50.toFixed(1)} ms, first ${f.planFirst.addedP50.toFixed(1)}, gone ${f.planGone.addedP50.toFixed(1)} (${goneMode}), warm run ${f.warm.addedP50.toFixed(1)} ms over empty; watch: before ${f.watch.beforeMs.toFixed(2)} ms, a look ${f.watch.lookUs.toFixed(0)} µs`);
      rmSync(join(dir, `${agent}-${size}`), { recursive: true, force: true });
    }
  }
  return { sizes, runs, agents, problems };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const [agent, count, dir, lineBytes] = process.argv.slice(2);
  if (!["codex", "claude"].includes(agent ?? "") || !Number.isInteger(Number(count)) || dir === undefined) {
    console.error("usage: node bench/sections/stores.mjs codex|claude COUNT DIR [LINE_BYTES]");
    process.exit(2);
  }
  console.log(JSON.stringify(heavyHome(resolve(dir), agent, Number(count), undefined, lineBytes === undefined ? undefined : Number(lineBytes))));
}
