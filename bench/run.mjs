#!/usr/bin/env node
/**
 * `npm run bench`: what the shim costs, measured side by side with the bare PTY and the tools a
 * user would use instead, printed as a table and written to bench/results.json.
 * `npm run bench -- --stress`: the 1000-kill crash test instead. `--help` lists the options.
 * `npm test` runs it only at its smoke-test sizes (test/bench/quick.test.ts): no timing is asserted.
 */
import { execFileSync } from "node:child_process";
import { chmodSync, existsSync, readFileSync, readdirSync, writeFileSync } from "node:fs";
import { cpus, loadavg, release, totalmem } from "node:os";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { CHILDREN, PEERS, ROOT, cliIn, sleep, snapshotBuild, startLoad } from "./lib/host.mjs";
import { printTable, rowsFor } from "./lib/report.mjs";
import { durable } from "./sections/durable.mjs";
import { install } from "./sections/install.mjs";
import { latency } from "./sections/latency.mjs";
import { replay } from "./sections/replay.mjs";
import { pipes } from "./sections/pipes.mjs";
import { sessions } from "./sections/sessions.mjs";
import { shims } from "./sections/shims.mjs";
import { startup } from "./sections/startup.mjs";
import { stores } from "./sections/stores.mjs";
import { stress } from "./sections/stress.mjs";
import { throughput } from "./sections/throughput.mjs";

const USAGE = `Usage: npm run bench [-- options]

  (no option)          sections 1-5 at the issue's sizes, quiet and busy (about 22 minutes on 2 cores)
  --stress             the kill test only (section 6; 1000 kills, about 5-10 minutes)
  --only LIST          comma-separated: throughput,latency,durable,replay,startup,install,shims,pipes,stores,sessions,stress
  --load LIST          passes, comma-separated: quiet (nothing added) and busy (children/busy keeps
                       one core busy throughout); default quiet,busy. The stress test runs once.
  --wait-quiet N       before the quiet pass, wait up to N seconds for the 1-minute load average
                       to fall below 0.5 (default 0: start at once, and say when it is higher)
  --quick              small sizes, a smoke test of the bench itself (figures not comparable)
  --mb N               throughput: MB the child writes (default 128)
  --record-mb N        throughput: MB of the recording runs, run --record and asciinema rec (default 64)
  --reps N             throughput and replay: runs per side (default 3)
  --pairs N            throughput: rounds of relay, scanning relay, waiting relay and shim back to
                       back (default 24; the first --reps of them run every side), the target's ratio
                       is their median, met when the range it lies in at 95 % is
  --keys N             latency: keystrokes per side (default 6000)
  --durable-runs N     capture-to-durable: runs (default 50)
  --replay-mb N        replay: transcript size in MB (default 1024)
  --profile-mb N       replay: transcript size of the node --cpu-prof run, 0 = none (default 128)
  --profile-run-mb N   throughput: MB for a node --cpu-prof run of \`sessionpin run\`, 0 = none (default 64)
  --startup-runs N     start-up: runs per side (default 30)
  --install-runs N     install: offline installs of the packed tarball (default 5)
  --shim-runs N        shims and pipes: paired rounds of bare calls and calls through sessionpin
                       (default 30; pipes' flood: a fifth as many rounds, at least 3, of --mb)
  --store-sizes LIST   stores: entries of each agent store built, comma-separated (default 1000,10000,100000)
  --store-runs N       stores: paired rounds per figure, store against empty store (default 15)
  --sessions N         sessions: keyed pointers listed (default 10000); its runs: --reps
  --kills N            stress: kills (default 1000)
  --seed N             stress: seed of the kill moments (default 1)
  --dist DIR           measure another build of sessionpin (e.g. a copy of dist/ from before a
                       change) instead of ./dist
  --out FILE           results file (default bench/results.json; sections not run are kept)`;

const { values: o } = parseArgs({
  options: {
    stress: { type: "boolean" }, only: { type: "string" }, quick: { type: "boolean" }, help: { type: "boolean", short: "h" },
    mb: { type: "string" }, "record-mb": { type: "string" }, reps: { type: "string" }, pairs: { type: "string" }, keys: { type: "string" }, "durable-runs": { type: "string" },
    "replay-mb": { type: "string" }, "profile-mb": { type: "string" }, "profile-run-mb": { type: "string" }, "startup-runs": { type: "string" }, "install-runs": { type: "string" }, "shim-runs": { type: "string" }, "store-sizes": { type: "string" }, "store-runs": { type: "string" }, sessions: { type: "string" },
    kills: { type: "string" }, seed: { type: "string" }, out: { type: "string" }, dist: { type: "string" }, load: { type: "string" }, "wait-quiet": { type: "string" },
  },
});
if (o.help) {
  console.log(USAGE);
  process.exit(0);
}
const num = (name, full, quick) => {
  const v = o[name] === undefined ? (o.quick ? quick : full) : Number(o[name]);
  if (!(Number.isFinite(v) && v >= 0)) throw new Error(`--${name} ${o[name]}: expected a number`);
  return v;
};
const settings = {
  mb: num("mb", 128, 16), recordMB: num("record-mb", 64, 8), reps: num("reps", 3, 1), pairs: num("pairs", 24, 2), keys: num("keys", 6000, 200), durableRuns: num("durable-runs", 50, 5),
  replayMB: num("replay-mb", 1024, 32), profileMB: num("profile-mb", 128, 16), profileRunMB: num("profile-run-mb", 64, 8), startupRuns: num("startup-runs", 30, 3), installRuns: num("install-runs", 5, 1), shimRuns: num("shim-runs", 30, 3), storeRuns: num("store-runs", 15, 2), sessions: num("sessions", 10000, 500),
  storeSizes: (o["store-sizes"] ?? (o.quick ? "100,1000" : "1000,10000,100000")).split(",").map(Number),
  kills: num("kills", 1000, 20), seed: num("seed", 1, 1),
};
const ALL = ["throughput", "latency", "durable", "replay", "startup", "install", "shims", "pipes", "stores", "sessions", "stress"];
const chosen = o.only ? o.only.split(",").map((s) => s.trim()) : o.stress ? ["stress"] : ALL.filter((s) => s !== "stress");
for (const s of chosen) if (!ALL.includes(s)) throw new Error(`--only: unknown section ${s} (known: ${ALL.join(", ")})`);
const LOADS = ["quiet", "busy"];
const loads = (o.load ?? LOADS.join(",")).split(",").map((s) => s.trim());
for (const l of loads) if (!LOADS.includes(l)) throw new Error(`--load: unknown pass ${l} (known: ${LOADS.join(", ")})`);
const out = o.out ?? join(ROOT, "bench/results.json");

const dist = resolve(o.dist ?? join(ROOT, "dist"));
if (cliIn(dist) === undefined) {
  console.error(`bench: ${join(dist, "bin/main.js")} is missing: run \`npm run build\` first (npm run bench does)`);
  process.exit(2);
}
// git may not keep the executable bit (a zip, a checkout with core.fileMode off).
for (const name of readdirSync(CHILDREN)) chmodSync(join(CHILDREN, name), 0o755);
snapshotBuild(dist);

const say = (line) => console.log(line);
const git = (...args) => { try { return execFileSync("git", args, { cwd: ROOT, encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] }).trim(); } catch { return undefined; } };
const machine = {
  cpuModel: cpus()[0]?.model ?? "unknown", cores: cpus().length, node: process.version, kernel: release(),
  memoryGB: Math.round(totalmem() / 2 ** 30), loadAverageAtStart: loadavg().map((l) => Number(l.toFixed(2))),
};
const commit = git("rev-parse", "--short", "HEAD");
const dirty = git("status", "--porcelain", "--", "src") ? " + uncommitted src/ changes" : "";
say(`sessionpin bench: ${machine.cpuModel}, ${machine.cores} cores, Node ${machine.node}, commit ${commit ?? "?"}${dirty}${o.dist ? `, build ${dist}` : ""}`);
if (machine.loadAverageAtStart[0] > machine.cores / 2) {
  say(`note: load average ${machine.loadAverageAtStart[0]} on ${machine.cores} cores: something else is running, figures will be noisy`);
}

// Profiles are taken in the quiet pass only: they time nothing, and the two passes must stay
// within 10 minutes.
const runners = {
  throughput: (pass) => throughput({ mb: settings.mb, recordMB: settings.recordMB, reps: settings.reps, pairs: settings.pairs, profileMB: pass === "quiet" ? settings.profileRunMB : 0, say }),
  latency: () => latency({ keys: settings.keys, say }),
  durable: () => durable({ runs: settings.durableRuns, say }),
  // jq (8 s a run on 1 GB) is a reference: the quiet pass has it.
  replay: (pass) => replay({ mb: settings.replayMB, reps: settings.reps, profileMB: pass === "quiet" ? settings.profileMB : 0, withJq: pass === "quiet", say }),
  startup: () => startup({ runs: settings.startupRuns, say }),
  install: () => install({ runs: settings.installRuns, say }),
  shims: () => shims({ runs: settings.shimRuns, say }),
  pipes: () => pipes({ runs: settings.shimRuns, mb: settings.mb, say }),
  stores: () => stores({ sizes: settings.storeSizes, runs: settings.storeRuns, say }),
  sessions: () => sessions({ count: settings.sessions, runs: Math.max(3, settings.reps), say }),
  // The pointer keeps the newest 50 earlier IDs (HISTORY_LIMIT in src/run/pin.ts); 10 runs of
  // at most 4 new IDs each stay below that, so every ID seen confirmed must still be in it.
  stress: () => stress({ kills: settings.kills, seed: settings.seed, reset: 10, say }),
};
for (const [via, peer] of Object.entries(PEERS)) {
  if (peer.path === undefined) say(`note: ${via} is not installed: its columns are skipped (install: ${peer.install})`);
}
const previous = existsSync(out) ? JSON.parse(readFileSync(out, "utf8")) : {};
// Results of the bench before it had passes are not carried over: their figures mean other things.
const passes = Object.fromEntries(LOADS.map((l) => [l, { sections: { ...(previous.passes?.[l]?.sections ?? {}) } }]));
const loadNow = () => loadavg().map((l) => Number(l.toFixed(2)));
// Written after every section, so a long run that stops half-way keeps what it measured.
const save = () => {
  const figures = Object.fromEntries(LOADS.map((l) => [l, rowsFor(passes[l].sections)]));
  const results = {
    machine: { ...machine, loadAverageAtEnd: loadNow() },
    date: new Date().toISOString(), commit: `${commit ?? "?"}${dirty}`, settings, ran: chosen, loads, figures, passes,
  };
  writeFileSync(out, `${JSON.stringify(results, null, 2)}\n`);
  return figures;
};
let crashed = false;
const passOf = (name, pass) => (name === "stress" ? "quiet" : pass);
for (const pass of loads) {
  const names = chosen.filter((name) => name !== "stress" || pass === loads[0]);
  if (names.length === 0) continue;
  if (pass === "quiet") {
    for (const until = Date.now() + num("wait-quiet", 0, 0) * 1000; loadavg()[0] >= 0.5 && Date.now() < until;) await sleep(5_000);
  }
  const stop = pass === "busy" ? startLoad() : undefined;
  if (stop) await sleep(1_000); // the load running before the first figure
  const loadAtStart = loadNow();
  say(`== ${pass} pass${pass === "busy" ? ": children/busy keeps one core busy" : ""}; load average ${loadAtStart.join(" ")}`);
  if (pass === "quiet" && loadAtStart[0] >= 0.5) say(`note: load average ${loadAtStart[0]}: not a quiet machine, this pass is not a quiet figure`);
  try {
    for (const name of names) {
      say(`[${name}${name === "stress" ? "" : `, ${pass}`}]`);
      const started = Date.now();
      const at = { loadAverageAtStart: loadNow() };
      const into = passes[passOf(name, pass)].sections;
      try {
        into[name] = { date: new Date().toISOString(), ...(await runners[name](pass)) };
      } catch (error) {
        crashed = true;
        into[name] = { date: new Date().toISOString(), error: String(error?.stack ?? error) };
        say(`  ${name} failed: ${error?.message ?? error}`);
      }
      into[name].seconds ??= (Date.now() - started) / 1000;
      into[name].machine = { ...machine, ...at, loadAverageAtEnd: loadNow() };
      into[name].commit = `${commit ?? "?"}${dirty}`;
      into[name].load = pass;
      save();
    }
  } finally {
    await stop?.();
  }
}
const figures = save();

const shown = (l) => figures[l].filter((f) => chosen.includes(f.section) && (l === loads[0] || f.section !== "stress"));
for (const l of loads) {
  const secs = Object.values(passes[l].sections).filter((s) => s.machine);
  const range = secs.flatMap((s) => [s.machine.loadAverageAtStart?.[0], s.machine.loadAverageAtEnd?.[0]]).filter((n) => n !== undefined);
  say(`\n${l}${l === "busy" ? " (one core kept busy by children/busy)" : ""}: load average ${Math.min(...range).toFixed(2)}-${Math.max(...range).toFixed(2)}`);
  printTable(shown(l), say);
}
say(`\nwritten to ${out}`);
const all = loads.flatMap((l) => shown(l).map((f) => ({ ...f, name: `${f.name} [${l}]` })));
const broken = all.filter((f) => f.correctness && f.pass === false);
const missed = all.filter((f) => !f.correctness && f.pass === false);
if (missed.length > 0) say(`${missed.length} performance target(s) missed: ${missed.map((f) => f.name).join("; ")}`);
if (broken.length > 0 || crashed) {
  say(`FAILED: ${[...broken.map((f) => f.name), ...(crashed ? ["a section crashed"] : [])].join("; ")}`);
  process.exit(1);
}
