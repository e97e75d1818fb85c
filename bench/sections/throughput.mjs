/**
 * (1) Passthrough throughput: the flood child writes N bytes to its PTY; we read them bare,
 * through the minimal Node relay on node-pty's events (reference), through that relay reading into
 * slabs as sessionpin does (capture's own cost is what the shim loses against it), through that
 * relay waiting SPIN_US on each read (what time alone costs the rate), through `sessionpin run`
 * (amp plugin, capture on), through `script` (util-linux, C) and `asciinema rec` (Python,
 * recording), and through `sessionpin run --record` (recording too). Rate = bytes / (last byte −
 * first byte); the received bytes must hash the same as what the child wrote (after the PTY's
 * "\n" → "\r\n"). CPU: the user and system seconds of everything the run started (bash's `times`)
 * less the flood child's own.
 */
import { createHash } from "node:crypto";
import { readFileSync, rmSync, statSync } from "node:fs";
import { join } from "node:path";
import { expectedOutput } from "../lib/flood-data.mjs";
import { readProfile } from "../lib/profile.mjs";
import { AMP_ARGS, CHILDREN, PEERS, available, benchEnv, buildModule, childCpuSeconds, exited, nowMs, spawnVia, tempDir } from "../lib/host.mjs";
import { median, medianInterval } from "../lib/stats.mjs";

/**
 * Microseconds the waiting relay spends on each read: what time alone, spent on every read, costs
 * the rate of this chain of PTYs, where a read waits for the one before it to be handled.
 */
const SPIN_US = 2;
/**
 * Each side: what runs the child, whether it records (`rec` sides write a .cast file), whether
 * the relay reads into slabs (children/relay, $BENCH_RELAY_SLABS), and how long it waits on each.
 */
const SIDES = {
  bare: { via: "bare" }, relay: { via: "relay" }, relaySlabs: { via: "relay", slabs: true }, relaySpin: { via: "relay", spinUs: SPIN_US },
  shim: { via: "shim" }, script: { via: "script" }, shimRecord: { via: "shim", rec: true }, asciinema: { via: "asciinema", rec: true },
};
/** The sides of every round after the first `reps`: the target's pair, and the yardsticks beside it. */
const PAIRED = ["relay", "relaySlabs", "relaySpin", "shim"];
/** The build's module the slab relay imports. */
const SLABS = "pty/slab-reads.js";

async function once(side, bytes, dir, n, nodeArgs = []) {
  const { via, rec, slabs, spinUs } = SIDES[side];
  const childCpu = join(dir, `${n}.child-cpu`);
  const cpuFile = side === "bare" ? undefined : join(dir, `${n}.cpu`);
  const record = rec ? join(dir, `${n}.cast`) : undefined;
  const readsFile = side === "relay" ? join(dir, `${n}.reads`) : undefined;
  const env = benchEnv(dir, {
    BENCH_BYTES: String(bytes), BENCH_CHILD_CPU: childCpu,
    ...(slabs ? { BENCH_RELAY_SLABS: buildModule(SLABS) } : {}),
    ...(spinUs === undefined ? {} : { BENCH_RELAY_SPIN_US: String(spinUs) }), ...(readsFile === undefined ? {} : { BENCH_RELAY_READS: readsFile }),
  });
  const p = spawnVia(via, join(CHILDREN, "flood"), AMP_ARGS, { env, pointer: join(dir, `p${n}.json`), log: join(dir, `p${n}.log`), nodeArgs, record, cpuFile });
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
  const read = (path) => { try { return readFileSync(path, "utf8"); } catch { return undefined; } };
  const own = Number(read(childCpu) ?? NaN);
  const cpuSeconds = cpuFile === undefined ? undefined : childCpuSeconds(read(cpuFile) ?? "") - own;
  let recordBytes;
  if (record !== undefined) {
    try { recordBytes = statSync(record).size; } catch { recordBytes = 0; }
    rmSync(record, { force: true });
  }
  const reads = readsFile === undefined ? undefined : Number(read(readsFile) ?? NaN);
  return { received, sha256: hash.digest("hex"), seconds: (last - first) / 1000, status, cpuSeconds, recordBytes, reads };
}

/** Whether the build measured has `module` and it passes `has` (an older one, `--dist`, may not). */
async function built(module, has) {
  try {
    return has(await import(buildModule(module)));
  } catch {
    return false;
  }
}

/**
 * `reps` rounds run every side; rounds after them, up to `pairs`, run only the relay, the relay
 * that reads into slabs, the relay that waits and the shim. The target's
 * figure is the median of each round's shim / relay: a slow spell of the machine slows every run
 * of a round, and 3 runs a side moved the ratio of medians by a tenth between runs of one build.
 * With it goes the range the median lies in at 95 % (`medianInterval`): rounds here spread by a
 * third, so 9 of them moved the median by 0.04 from run to run, more than the target's margin.
 * The yardsticks' figures are taken the same way.
 */
export async function throughput({ mb, recordMB: recordSize = mb, reps, pairs = reps, profileMB, say }) {
  const bytes = mb * 1024 * 1024;
  // asciinema rec takes 15-20 s for 256 MB here: the recording sides get a flood of their own size.
  const recordBytes = recordSize * 1024 * 1024;
  const expectedRecord = recordBytes === bytes ? undefined : expectedOutput(recordBytes);
  const dir = tempDir("throughput");
  const expected = expectedOutput(bytes);
  // The slab reads the slab relay reads with.
  const slabbed = await built(SLABS, ({ readIntoSlabs }) => typeof readIntoSlabs === "function");
  const sides = Object.keys(SIDES).filter((side) => available(SIDES[side].via) && (slabbed || !SIDES[side].slabs));
  for (const side of Object.keys(SIDES)) {
    if (sides.includes(side)) continue;
    const why = SIDES[side].slabs ? "the build does not read into slabs" : `${SIDES[side].via} is not installed (${PEERS[SIDES[side].via].install})`;
    say(`  throughput: skipping ${side}: ${why}`);
  }
  const runs = Object.fromEntries(sides.map((side) => [side, []]));
  const cpu = Object.fromEntries(sides.map((side) => [side, []]));
  const recordMB = {};
  const readsPerGB = [];
  const problems = [];
  const notes = [];
  const rounds = Math.max(reps, pairs);
  for (let r = 0; r < rounds; r++) {
    const round = r < reps ? sides : PAIRED.filter((side) => sides.includes(side));
    // Alternating, so drift on a noisy machine hits every side alike.
    for (const side of r % 2 === 0 ? round : [...round].reverse()) {
      const rec = SIDES[side].rec === true;
      const res = await once(side, rec ? recordBytes : bytes, dir, `${side}${r}`);
      const want = rec && expectedRecord !== undefined ? expectedRecord : expected;
      const rate = res.received / res.seconds / 1e6;
      const perGB = res.cpuSeconds === undefined ? undefined : res.cpuSeconds / (res.received / 1e9);
      say(`  throughput ${side} #${r + 1}: ${(res.received / 1e6).toFixed(0)} MB in ${res.seconds.toFixed(2)} s = ${rate.toFixed(1)} MB/s` +
        `${perGB === undefined ? "" : `, ${perGB.toFixed(2)} CPU s/GB`}${res.recordBytes === undefined ? "" : `, recording ${(res.recordBytes / 1e6).toFixed(0)} MB`}, exit ${res.status.exitCode}`);
      const wrong = res.received !== want.bytes || res.sha256 !== want.sha256;
      const what = `${side} run ${r + 1}: got ${res.received} bytes sha256 ${res.sha256.slice(0, 12)}…, expected ${want.bytes} bytes ${want.sha256.slice(0, 12)}…`;
      // A peer's bytes are its own business: noted, never a failure of sessionpin's.
      if (wrong) (SIDES[side].via === "script" || SIDES[side].via === "asciinema" ? notes : problems).push(what);
      if (res.status.exitCode !== 0) (SIDES[side].via === "shim" || SIDES[side].via === "relay" ? problems : notes).push(`${side} run ${r + 1}: exit code ${res.status.exitCode}`);
      runs[side].push(rate);
      if (Number.isFinite(res.reads)) readsPerGB.push(res.reads / (res.received / 1e9));
      if (perGB !== undefined) cpu[side].push(perGB);
      if (res.recordBytes !== undefined) recordMB[side] = res.recordBytes / 1e6;
    }
  }
  const mbps = Object.fromEntries(sides.map((side) => [side, median(runs[side])]));
  const pairRatios = runs.shim.map((rate, r) => rate / runs.relay[r]);
  const spinRatios = runs.relaySpin.map((rate, r) => rate / runs.relay[r]);
  const slabsRatios = (runs.relaySlabs ?? []).map((rate, r) => rate / runs.relay[r]);
  // Capture's own cost: the shim against a relay that reads the PTY the same way.
  const captureRatios = (runs.relaySlabs ?? []).map((rate, r) => runs.shim[r] / rate);
  const pairCpuAdded = cpu.shim.map((seconds, r) => seconds - cpu.relay[r]);
  const cpuPerGB = Object.fromEntries(sides.filter((side) => cpu[side].length > 0).map((side) => [side, median(cpu[side])]));
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
    sizeMB: mb, recordSizeMB: recordSize, reps, pairs: rounds, sides, mbps, cpuPerGB, recordMB, pairRatios, pairCpuAdded,
    ...(slabbed ? {
      slabsRatios, slabsVsRelay: median(slabsRatios), slabsVsRelayInterval: medianInterval(slabsRatios),
      captureRatios, shimVsSlabs: median(captureRatios), shimVsSlabsInterval: medianInterval(captureRatios),
      captureCpuAddedPerGB: median(cpu.shim.map((seconds, r) => seconds - cpu.relaySlabs[r])),
    } : {}),
    spinUs: SPIN_US, spinRatios, spinVsRelay: median(spinRatios), spinVsRelayInterval: medianInterval(spinRatios),
    // The shim's CPU above the relay's, per read the relay passed on: what capture spends on each.
    readsPerGB: median(readsPerGB), cpuAddedPerReadUs: median(pairCpuAdded) / median(readsPerGB) * 1e6,
    // Kept under their old names too: older results and the README's history read these.
    bareMBps: mbps.bare, relayMBps: mbps.relay, shimMBps: mbps.shim, ratio: mbps.shim / mbps.bare, relayRatio: mbps.relay / mbps.bare,
    vsRelay: median(pairRatios), vsRelayInterval: medianInterval(pairRatios), cpuAddedPerGB: median(pairCpuAdded),
    runs, cpu, expectedSha256: expected.sha256, hashMatch: problems.length === 0, problems, notes, ...(profile ? { profile } : {}),
  };
}
