/**
 * (5) Start-up: from the spawn call to the child's first output byte, bare, through the minimal
 * Node relay, through the peers (`script`, `asciinema rec`) when installed, and through
 * `sessionpin run` (cold start on a fresh pointer: lock, pointer read, plugin, PTY). The child is
 * a shell script so its own start-up is small and the same both ways. Runs alternate.
 */
import { join } from "node:path";
import { AMP_ARGS, CHILDREN, PEERS, VIAS, available, benchEnv, exited, nowMs, percentile, spawnVia, tempDir } from "../lib/host.mjs";
import * as pty from "@lydell/node-pty";

async function once(via, dir, n) {
  const env = benchEnv(dir);
  const t0 = nowMs();
  const p = via === "node"
    ? pty.spawn(process.execPath, ["-e", "process.stdout.write('R'); process.stdin.once('data', () => process.exit(0))"], { cols: 80, rows: 24, env, encoding: null })
    : spawnVia(via, join(CHILDREN, "first-byte"), AMP_ARGS, { env, pointer: join(dir, `${via}${n}.json`), log: join(dir, `${via}${n}.log`) });
  const done = exited(p);
  const first = await new Promise((resolve) => {
    const d = p.onData(() => { d.dispose(); resolve(nowMs()); });
  });
  p.write("\r");
  const status = await done;
  return { ms: first - t0, status };
}

const stats = (s) => ({ p50: percentile(s, 50), p90: percentile(s, 90), max: Math.max(...s) });

export async function startup({ runs, say }) {
  const dir = tempDir("startup");
  for (const via of VIAS.filter((v) => !available(v))) say(`  start-up: skipping ${via}: not installed (${PEERS[via].install})`);
  const vias = [...VIAS.filter(available), "node"];
  const samples = Object.fromEntries(vias.map((via) => [via, []]));
  const problems = [];
  await once("shim", dir, "warm"); // the first start reads dist/ from disk; later ones from cache
  for (let n = 0; n < runs; n++) {
    for (const via of n % 2 === 0 ? vias : [...vias].reverse()) {
      const r = await once(via, dir, n);
      samples[via].push(r.ms);
      if (r.status.exitCode !== 0) problems.push(`${via} run ${n + 1}: exit code ${r.status.exitCode}`);
    }
  }
  const ms = Object.fromEntries(vias.map((via) => [via, stats(samples[via])]));
  const b = ms.bare;
  const s = ms.shim;
  say(`  start-up p50 ms: ${vias.map((via) => `${via} ${ms[via].p50.toFixed(1)}`).join(", ")}`);
  return { runs, ms, bareMs: b, relayMs: ms.relay, shimMs: s, nodeHelloMs: ms.node, addedP50Ms: s.p50 - b.p50, addedP90Ms: s.p90 - b.p90,
    shimVsRelayP50Ms: s.p50 - ms.relay.p50, problems };
}
