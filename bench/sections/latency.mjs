/**
 * (2) Keystroke latency: one byte written to our PTY, timed until the raw-mode echo child's copy
 * of it comes back; bare, through the minimal Node relay, through `sessionpin run`, and through
 * the peers (`script`, `asciinema rec`) when installed. All the children run at once and keystrokes go to each in turn, so a noisy moment of the machine hits both sides alike. Added latency
 * = shim percentile − bare percentile (independent samples: this compares distributions).
 */
import { join } from "node:path";
import { AMP_ARGS, CHILDREN, PEERS, VIAS, available, benchEnv, exited, nowMs, spawnVia, tempDir } from "../lib/host.mjs";
import { percentile } from "../lib/stats.mjs";

function start(via, dir) {
  const env = benchEnv(dir);
  const p = spawnVia(via, join(CHILDREN, "echo"), AMP_ARGS, { env, pointer: join(dir, `${via}.json`), log: join(dir, `${via}.log`) });
  const done = exited(p);
  let waiter;
  let seen = "";
  p.onData((chunk) => {
    seen += chunk.toString("latin1");
    if (waiter && seen.includes(waiter.want)) {
      const w = waiter;
      waiter = undefined;
      seen = "";
      w.resolve(nowMs());
    }
  });
  const expect = (want, ms) => new Promise((resolve, reject) => {
    if (seen.includes(want)) { seen = ""; resolve(nowMs()); return; }
    waiter = { want, resolve };
    setTimeout(() => reject(new Error(`${via}: no ${JSON.stringify(want)} within ${ms} ms`)), ms).unref();
  });
  return { via, p, done, expect, samples: [] };
}

async function roundTrip(side, key) {
  const back = side.expect(key, 5_000);
  const t0 = nowMs();
  side.p.write(key);
  return (await back) - t0;
}

// A p99 of 2000 keys is its 20 slowest: on a loaded machine it moved by a millisecond between
// runs of one build. The target's figure is over all keys; each block's shows that spread.
const BLOCK = 2000;

const stats = (s) => ({ p50: percentile(s, 50), p90: percentile(s, 90), p99: percentile(s, 99), max: Math.max(...s) });

export async function latency({ keys, say }) {
  const dir = tempDir("latency");
  const warmup = 200;
  for (const via of VIAS.filter((v) => !available(v))) say(`  latency: skipping ${via}: not installed (${PEERS[via].install})`);
  const sides = VIAS.filter(available).map((via) => start(via, dir));
  await Promise.all(sides.map((side) => side.expect("R", 10_000)));
  for (let i = 0; i < warmup + keys; i++) {
    const key = String.fromCharCode(97 + (i % 26));
    for (const side of i % 2 === 0 ? sides : [...sides].reverse()) {
      const ms = await roundTrip(side, key);
      if (i >= warmup) side.samples.push(ms);
    }
  }
  for (const side of sides) side.p.write("\x04");
  const statuses = await Promise.all(sides.map((side) => side.done));
  const ms = Object.fromEntries(sides.map((side) => [side.via, stats(side.samples)]));
  const b = ms.bare;
  const s = ms.shim;
  const rl = ms.relay;
  say(`  latency p50/p99 ms: ${sides.map((side) => `${side.via} ${ms[side.via].p50.toFixed(3)}/${ms[side.via].p99.toFixed(3)}`).join(", ")}`);
  const problems = [];
  const shimStatus = statuses[sides.findIndex((side) => side.via === "shim")];
  if (shimStatus.exitCode !== 0) problems.push(`shim exit code ${shimStatus.exitCode}`);
  const blocks = [];
  for (let at = 0; at + BLOCK <= keys; at += BLOCK) {
    const p99 = (side) => percentile(side.samples.slice(at, at + BLOCK), 99);
    blocks.push(p99(sides.find((side) => side.via === "shim")) - p99(sides.find((side) => side.via === "relay")));
  }
  return { keys, warmup, ms, blockKeys: BLOCK, blockShimVsRelayP99Ms: blocks, bareMs: b, relayMs: rl, shimMs: s, addedP50Ms: s.p50 - b.p50, addedP99Ms: s.p99 - b.p99,
    relayAddedP99Ms: rl.p99 - b.p99, shimVsRelayP99Ms: s.p99 - rl.p99, problems };
}
