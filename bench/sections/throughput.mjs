/**
 * (1) Passthrough throughput: the flood child writes N bytes to its PTY; we read them bare,
 * through the minimal Node relay (reference), and through `sessionpin run` (amp plugin, capture on). Rate = bytes / (last byte − first byte);
 * the received bytes must hash the same as what the child wrote (after the PTY's "\n" → "\r\n").
 */
import { createHash } from "node:crypto";
import { join } from "node:path";
import { expectedOutput } from "../lib/flood-data.mjs";
import { readProfile } from "../lib/profile.mjs";
import { AMP_ARGS, CHILDREN, benchEnv, exited, median, nowMs, spawnVia, tempDir } from "../lib/host.mjs";

async function once(via, bytes, dir, n, nodeArgs = []) {
  const env = benchEnv(dir, { BENCH_BYTES: String(bytes) });
  const p = spawnVia(via, join(CHILDREN, "flood"), AMP_ARGS, { env, pointer: join(dir, `p${n}.json`), log: join(dir, `p${n}.log`), nodeArgs });
  const hash = createHash("sha256");
  let received = 0;
  let first;
  let last;
  p.onData((chunk) => {
    last = nowMs();
    first ??= last;
    received += chunk.length;
    hash.update(chunk);
  });
  const status = await exited(p);
  // node-pty can report the exit before the last read: give the tail a moment.
  const start = nowMs();
  while (nowMs() - start < 200) await new Promise((r) => setTimeout(r, 20));
  return { received, sha256: hash.digest("hex"), seconds: (last - first) / 1000, status };
}

export async function throughput({ mb, reps, profileMB, say }) {
  const bytes = mb * 1024 * 1024;
  const dir = tempDir("throughput");
  const expected = expectedOutput(bytes);
  const runs = { bare: [], relay: [], shim: [] };
  const problems = [];
  for (let r = 0; r < reps; r++) {
    // Alternating, so drift on a noisy machine hits both sides alike.
    for (const via of r % 2 === 0 ? ["bare", "relay", "shim"] : ["shim", "relay", "bare"]) {
      const res = await once(via, bytes, dir, `${via}${r}`);
      const rate = res.received / res.seconds / 1e6;
      say(`  throughput ${via} #${r + 1}: ${(res.received / 1e6).toFixed(0)} MB in ${res.seconds.toFixed(2)} s = ${rate.toFixed(1)} MB/s, exit ${res.status.exitCode}`);
      if (res.received !== expected.bytes || res.sha256 !== expected.sha256) {
        problems.push(`${via} run ${r + 1}: got ${res.received} bytes sha256 ${res.sha256.slice(0, 12)}…, expected ${expected.bytes} bytes ${expected.sha256.slice(0, 12)}…`);
      }
      if (res.status.exitCode !== 0) problems.push(`${via} run ${r + 1}: exit code ${res.status.exitCode}`);
      runs[via].push(rate);
    }
  }
  const bare = median(runs.bare);
  const shim = median(runs.shim);
  const relay = median(runs.relay);
  let profile;
  if (profileMB > 0) {
    // Where `sessionpin run` spends its time while passing bytes through (not timed).
    const profDir = join(dir, "prof");
    const res = await once("shim", profileMB * 1024 * 1024, dir, "prof", ["--cpu-prof", "--cpu-prof-dir", profDir]);
    const top = readProfile(profDir).slice(0, 10);
    say(`  profile of sessionpin run (${profileMB} MB, ${res.seconds.toFixed(1)} s):`);
    for (const t of top) say(`    ${t.selfPct.toFixed(1).padStart(5)} %  ${t.selfMs.toFixed(0).padStart(6)} ms  ${t.function}  ${t.where}`);
    profile = { sizeMB: profileMB, seconds: res.seconds, top };
  }
  return {
    sizeMB: mb, reps, bareMBps: bare, relayMBps: relay, shimMBps: shim, ratio: shim / bare, relayRatio: relay / bare,
    runs, expectedSha256: expected.sha256, hashMatch: problems.length === 0, problems, ...(profile ? { profile } : {}),
  };
}
