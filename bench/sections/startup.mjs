/**
 * (5) Start-up: from the spawn call to the child's first output byte, bare, through the minimal
 * Node relay, through the peers (`script`, `asciinema rec`) when installed, and through
 * `sessionpin run`: a cold start on a fresh pointer (lock, plugin, PTY), and a warm one, which
 * reads and checks a pointer holding an Amp thread and starts `threads continue <id>` (what a
 * restarted workspace does). Those two load the CLI from its code cache (src/cli/launch.ts, here
 * in the bench's temp folder), which the first start wrote; `uncached` is a cold start without
 * it, as the first start after an install or a Node upgrade is. The child is a shell script so
 * its own start-up is small and the same every way. Each round runs every side once, in an order shuffled from a fixed seed: in a
 * fixed order a side always followed the same other (the cold start the relay, the warm start
 * asciinema), and its p50 moved with that neighbour's teardown by up to 15 ms.
 */
import { writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { AMP_ARGS, CHILDREN, PEERS, ROOT, VIAS, available, benchEnv, exited, nowMs, spawnVia, tempDir } from "../lib/host.mjs";
import { percentile } from "../lib/stats.mjs";
import { seeded } from "../../test/helpers/seeded.mjs";
import * as pty from "@lydell/node-pty";

/**
 * A pointer as sessionpin writes it, holding a confirmed Amp thread of the folder the runs start
 * in (ROOT without its trailing slash, as the process sees its cwd: with it, run refuses the
 * pointer as another folder's and exits 3 without starting the agent).
 */
function warmPointer(path) {
  const at = new Date().toISOString();
  writeFileSync(path, `${JSON.stringify({ version: 1, agent: "amp", id: "T-0199a3b2-7c1d-7e40-9d3f-1a2b3c4d5e6f", state: "confirmed", cwd: resolve(ROOT),
    capturedAt: at, confirmedAt: at, source: { rule: "bench" }, history: [] }, null, 2)}\n`, { mode: 0o600 });
}

async function once(via, dir, n) {
  const env = benchEnv(dir, via === "uncached" ? { NODE_DISABLE_COMPILE_CACHE: "1" } : {});
  const warm = via === "warm";
  const pointer = join(dir, `${via}${n}.json`);
  if (warm) warmPointer(pointer);
  const t0 = nowMs();
  const p = via === "node"
    ? pty.spawn(process.execPath, ["-e", "process.stdout.write('R'); process.stdin.once('data', () => process.exit(0))"], { cols: 80, rows: 24, env, encoding: null })
    // A warm one-shot run without a message would not start (exit 4): the warm run is interactive.
    : spawnVia(warm || via === "uncached" ? "shim" : via, join(CHILDREN, "first-byte"), warm ? [] : AMP_ARGS, { env, pointer, log: join(dir, `${via}${n}.log`) });
  const done = exited(p);
  const first = await new Promise((resolve) => {
    const d = p.onData(() => { d.dispose(); resolve(nowMs()); });
  });
  p.write("\r");
  const status = await done;
  return { ms: first - t0, status };
}

/** Fisher-Yates, from `random`. */
function shuffled(items, random) {
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [out[i], out[j]] = [out[j], out[i]];
  }
  return out;
}

const stats = (s) => ({ p50: percentile(s, 50), p90: percentile(s, 90), max: Math.max(...s) });

export async function startup({ runs, say }) {
  const dir = tempDir("startup");
  for (const via of VIAS.filter((v) => !available(v))) say(`  start-up: skipping ${via}: not installed (${PEERS[via].install})`);
  const vias = [...VIAS.filter(available), "warm", "uncached", "node"];
  const samples = Object.fromEntries(vias.map((via) => [via, []]));
  const problems = [];
  await once("shim", dir, "first"); // reads dist/ from disk, and writes the code cache the others load
  const random = seeded(5);
  for (let n = 0; n < runs; n++) {
    for (const via of shuffled(vias, random)) {
      const r = await once(via, dir, n);
      samples[via].push(r.ms);
      if (r.status.exitCode !== 0) problems.push(`${via} run ${n + 1}: exit code ${r.status.exitCode}`);
    }
  }
  const ms = Object.fromEntries(vias.map((via) => [via, stats(samples[via])]));
  // What a side adds to the relay, round by round: a slow spell of the machine slows both sides
  // of a round, and leaves the difference.
  const overRelay = (via) => percentile(samples[via].map((value, round) => value - samples.relay[round]), 50);
  const b = ms.bare;
  const s = ms.shim;
  say(`  start-up p50 ms: ${vias.map((via) => `${via} ${ms[via].p50.toFixed(1)}`).join(", ")}`);
  return { runs, ms, bareMs: b, relayMs: ms.relay, shimMs: s, warmMs: ms.warm, nodeHelloMs: ms.node, addedP50Ms: s.p50 - b.p50, addedP90Ms: s.p90 - b.p90,
    shimVsRelayP50Ms: overRelay("shim"), warmVsRelayP50Ms: overRelay("warm"), uncachedVsRelayP50Ms: overRelay("uncached"), problems };
}
