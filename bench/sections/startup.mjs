/**
 * (5) Start-up: from the spawn call to the child's first output byte, bare, through the minimal
 * Node relay, through the peers (`script`, `asciinema rec`) when installed, and through
 * `sessionpin run`: a cold start on a fresh pointer (lock, plugin, PTY), and a warm one, which
 * reads and checks a pointer holding an Amp thread and starts `threads continue <id>` (what a
 * restarted workspace does). The child is a shell script so its own start-up is small and the
 * same every way. Runs alternate.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { AMP_ARGS, CHILDREN, PEERS, ROOT, VIAS, available, benchEnv, exited, nowMs, percentile, spawnVia, tempDir } from "../lib/host.mjs";
import * as pty from "@lydell/node-pty";

/** A pointer as sessionpin writes it, holding a confirmed Amp thread of this folder. */
function warmPointer(path) {
  const at = new Date().toISOString();
  writeFileSync(path, `${JSON.stringify({ version: 1, agent: "amp", id: "T-0199a3b2-7c1d-7e40-9d3f-1a2b3c4d5e6f", state: "confirmed", cwd: ROOT,
    capturedAt: at, confirmedAt: at, source: { rule: "bench" }, history: [] }, null, 2)}\n`, { mode: 0o600 });
}

async function once(via, dir, n) {
  const env = benchEnv(dir);
  const warm = via === "warm";
  const pointer = join(dir, `${via}${n}.json`);
  if (warm) warmPointer(pointer);
  const t0 = nowMs();
  const p = via === "node"
    ? pty.spawn(process.execPath, ["-e", "process.stdout.write('R'); process.stdin.once('data', () => process.exit(0))"], { cols: 80, rows: 24, env, encoding: null })
    // A warm one-shot run without a message would not start (exit 4): the warm run is interactive.
    : spawnVia(warm ? "shim" : via, join(CHILDREN, "first-byte"), warm ? [] : AMP_ARGS, { env, pointer, log: join(dir, `${via}${n}.log`) });
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
  const vias = [...VIAS.filter(available), "warm", "node"];
  const samples = Object.fromEntries(vias.map((via) => [via, []]));
  const problems = [];
  await once("shim", dir, "first"); // the first start reads dist/ from disk; later ones from cache
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
  return { runs, ms, bareMs: b, relayMs: ms.relay, shimMs: s, warmMs: ms.warm, nodeHelloMs: ms.node, addedP50Ms: s.p50 - b.p50, addedP90Ms: s.p90 - b.p90,
    shimVsRelayP50Ms: s.p50 - ms.relay.p50, warmVsRelayP50Ms: ms.warm.p50 - ms.relay.p50, problems };
}
