/**
 * (10) Runs on pipes, as a CI job or a bridge makes them (sessionpin's stdout no terminal, so the
 * agent runs on pipes): what `sessionpin run` adds to a one-shot call of children/amp-answer
 * (spawn to exit, the bare call beside it: a cold start, then warm ones), and how fast it passes a
 * flood of output next to a minimal Node pipe relay (children/pipe-relay) and the bare child.
 * Paired rounds in a shuffled order; the median of each round's difference or ratio.
 */
import { spawn } from "node:child_process";
import { join } from "node:path";
import { AMP_ARGS, CHILDREN, ROOT, benchEnv, cli, nowMs, tempDir, timed } from "../lib/host.mjs";
import { median, percentile } from "../lib/stats.mjs";
import { seeded } from "../../test/helpers/seeded.mjs";

/** `argv` on pipes, its stdout read and counted; MB/s from the spawn to the exit. */
function flood(argv, env) {
  return new Promise((resolve, reject) => {
    const t0 = nowMs();
    const child = spawn(argv[0], argv.slice(1), { cwd: ROOT, env, stdio: ["ignore", "pipe", "ignore"] });
    let bytes = 0;
    child.stdout.on("data", (chunk) => (bytes += chunk.length));
    child.once("error", reject);
    child.once("close", (code) => resolve({ mbps: bytes / 1e6 / ((nowMs() - t0) / 1000), bytes, ok: code === 0 }));
  });
}

export async function pipes({ runs, mb, say }) {
  const dir = tempDir("pipes");
  const env = { ...benchEnv(dir), HOME: dir };
  const problems = [];
  const answer = join(CHILDREN, "amp-answer");
  const run = (n) => [cli(), "run", "--agent", "amp", "--pointer", join(dir, "pointer.json"), "--log", join(dir, "run.log"), "--", answer, "-x", `message ${n}`, "--stream-json"];
  // The first call writes the CLI's code cache, as the first start after an install does.
  timed(process.execPath, run("first"), env, dir);
  const random = seeded(10);
  const calls = { bare: [], run: [] };
  for (let n = 0; n < runs; n++) {
    for (const side of random() < 0.5 ? ["bare", "run"] : ["run", "bare"]) {
      const r = side === "bare" ? timed(answer, ["-x", `message ${n}`, "--stream-json"], env, dir) : timed(process.execPath, run(n), env, dir);
      if (!r.ok) problems.push(`one-shot ${side} run ${n + 1} failed`);
      calls[side].push(r.ms);
    }
  }
  const floodEnv = { ...env, BENCH_BYTES: String(mb * 1024 * 1024) };
  const floods = {
    bare: () => [join(CHILDREN, "flood")],
    relay: () => [process.execPath, join(CHILDREN, "pipe-relay"), join(CHILDREN, "flood")],
    // A pointer of its own each time: a second run with no message would be a repeat, and start nothing.
    run: (n) => [process.execPath, cli(), "run", "--agent", "amp", "--pointer", join(dir, `flood-${n}.json`), "--log", join(dir, "flood.log"), "--", join(CHILDREN, "flood"), ...AMP_ARGS],
  };
  const rates = { bare: [], relay: [], run: [] };
  const pairs = Math.max(3, Math.ceil(runs / 5));
  for (let n = 0; n < pairs; n++) {
    for (const side of [...Object.keys(floods)].sort(() => random() - 0.5)) {
      const r = await flood(floods[side](n), floodEnv);
      if (!r.ok || r.bytes !== mb * 1024 * 1024) problems.push(`flood ${side} round ${n + 1}: exit ${r.ok ? 0 : "non-zero"}, ${r.bytes} bytes`);
      rates[side].push(r.mbps);
    }
  }
  const result = {
    runs,
    oneShot: { bareP50Ms: percentile(calls.bare, 50), runP50Ms: percentile(calls.run, 50), addedP50Ms: median(calls.run.map((value, i) => value - calls.bare[i])) },
    flood: { mb, pairs, mbps: { bare: median(rates.bare), relay: median(rates.relay), run: median(rates.run) }, runVsRelay: median(rates.run.map((value, i) => value / rates.relay[i])) },
    problems,
  };
  say(`  pipes: one-shot +${result.oneShot.addedP50Ms.toFixed(1)} ms over bare; ${mb} MB at ${result.flood.mbps.run.toFixed(0)} MB/s, ${result.flood.runVsRelay.toFixed(2)} of the Node pipe relay's`);
  return result;
}
