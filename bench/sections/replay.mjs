/**
 * (4) Replay: a generated transcript (raw PTY bytes: stream-json lines and TUI screens, the thread
 * ID sprinkled and changing) read by `sessionpin replay --agent amp`, by `grep -c` for the ID
 * grammar (LC_ALL=C, the fastest thing a user would type), and by jq parsing every line that is
 * JSON when jq is installed. Same file, warm page cache. Peak RSS = VmHWM of the replay process,
 * read from /proc while it runs. Optionally a `node --cpu-prof` run, summarised by self time.
 */
import { spawn, spawnSync } from "node:child_process";
import { createReadStream, readFileSync, rmSync, statSync } from "node:fs";
import { join } from "node:path";
import { generateTranscript } from "../fixtures/transcript.mjs";
import { cli, nowMs, tempDir } from "../lib/host.mjs";
import { median } from "../lib/stats.mjs";
import { readProfile } from "../lib/profile.mjs";

const ID_GRAMMAR = "T-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}";
const JQ_PROGRAM = "reduce (inputs | fromjson? | objects | .session_id? | strings) as $id (0; .+1)";

/** Runs a command to completion; wall time, stdout, exit code, and peak RSS (VmHWM) in KB. */
function timed(cmd, args, env = process.env) {
  return new Promise((resolve, reject) => {
    const t0 = nowMs();
    const child = spawn(cmd, args, { env, stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    let err = "";
    let hwm = 0;
    child.stdout.on("data", (d) => void (out += d));
    child.stderr.on("data", (d) => void (err += d));
    const sample = () => {
      try {
        const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${child.pid}/status`, "utf8"));
        if (m) hwm = Math.max(hwm, Number(m[1]));
      } catch { /* exited */ }
    };
    const poll = setInterval(sample, 10);
    child.on("error", reject);
    child.on("exit", (code, signal) => {
      const seconds = (nowMs() - t0) / 1000;
      clearInterval(poll);
      child.on("close", () => resolve({ seconds, code, signal, out, err, peakRssKB: hwm }));
    });
  });
}

const has = (cmd) => spawnSync("sh", ["-c", `command -v ${cmd}`], { stdio: "ignore" }).status === 0;

async function warmCache(path) {
  for await (const _chunk of createReadStream(path, { highWaterMark: 4 << 20 })); // eslint-disable-line no-unused-vars
}

export async function replay({ mb, reps, profileMB, withJq = true, say }) {
  const dir = tempDir("replay");
  const file = join(dir, "transcript.raw");
  const t0 = nowMs();
  const meta = generateTranscript(file, mb * 1024 * 1024);
  say(`  replay: generated ${(meta.bytes / 1e6).toFixed(0)} MB (${meta.threads} threads) in ${((nowMs() - t0) / 1000).toFixed(1)} s`);
  await warmCache(file);
  const mbytes = meta.bytes / 1e6;
  const problems = [];
  const runs = { replay: [], grep: [], jq: [] };
  let peakRssKB = 0;
  const rssKB = [];
  const env = { ...process.env, LC_ALL: "C" };
  const jq = withJq && has("jq");
  for (let r = 0; r < reps; r++) {
    const g = await timed("grep", ["-cE", ID_GRAMMAR, file], env);
    runs.grep.push(g.seconds);
    const s = await timed(process.execPath, [cli(), "replay", "--agent", "amp", file]);
    runs.replay.push(s.seconds);
    peakRssKB = Math.max(peakRssKB, s.peakRssKB);
    rssKB.push(s.peakRssKB);
    const expected = `amp ${meta.lastId} confirmed`;
    if (s.code !== 0 || !s.out.includes(expected)) problems.push(`replay run ${r + 1}: exit ${s.code}, printed ${JSON.stringify(s.out.trim() || s.err.trim())}, expected "${expected}"`);
    say(`  replay #${r + 1}: sessionpin ${(mbytes / s.seconds).toFixed(1)} MB/s (peak RSS ${(s.peakRssKB / 1024).toFixed(0)} MB), grep -c ${(mbytes / g.seconds).toFixed(0)} MB/s`);
    if (jq) {
      const q = await timed("jq", ["-nR", JQ_PROGRAM, file], env);
      runs.jq.push(q.seconds);
      say(`  replay #${r + 1}: jq ${(mbytes / q.seconds).toFixed(1)} MB/s`);
    }
  }
  const replaySec = median(runs.replay);
  const grepSec = median(runs.grep);
  const jqSec = jq ? median(runs.jq) : undefined;
  // The same command on a 1 MB transcript: what memory is used before the input's size matters.
  const small = join(dir, "small.raw");
  generateTranscript(small, 1024 * 1024, 3);
  const baseline = await timed(process.execPath, [cli(), "replay", "--agent", "amp", small]);
  rmSync(small, { force: true });
  // A quarter of the size, as many runs: peak memory must not grow with the input. Medians, since
  // one run in a few peaks ~5 MB higher whatever the size.
  const quarter = join(dir, "quarter.raw");
  const quarterMeta = generateTranscript(quarter, Math.round((mb * 1024 * 1024) / 4));
  const quarterRssKB = [];
  for (let r = 0; r < reps; r++) quarterRssKB.push((await timed(process.execPath, [cli(), "replay", "--agent", "amp", quarter])).peakRssKB);
  rmSync(quarter, { force: true });
  let profile;
  if (profileMB > 0) profile = await cpuProfile(dir, profileMB, say);
  rmSync(file, { force: true });
  return {
    sizeMB: mbytes, threads: meta.threads, reps,
    replayMBps: mbytes / replaySec, grepMBps: mbytes / grepSec, jqMBps: jqSec && mbytes / jqSec,
    replaySeconds: replaySec, grepSeconds: grepSec, jqSeconds: jqSec,
    timeVsGrep: replaySec / grepSec, peakRssMB: peakRssKB / 1024, baselineRssMB: baseline.peakRssKB / 1024,
    quarterMB: quarterMeta.bytes / 1e6, medianRssMB: median(rssKB) / 1024, quarterMedianRssMB: median(quarterRssKB) / 1024,
    runs, problems, ...(profile ? { profile } : {}),
  };
}

/** `node --cpu-prof` on a replay of a `mb` MB transcript; the top functions by self time. */
async function cpuProfile(dir, mb, say) {
  const file = join(dir, "profile.raw");
  const profDir = join(dir, "prof");
  generateTranscript(file, mb * 1024 * 1024, 11);
  await warmCache(file);
  const run = await timed(process.execPath, ["--cpu-prof", "--cpu-prof-dir", profDir, cli(), "replay", "--agent", "amp", file]);
  const top = readProfile(profDir).slice(0, 10);
  say(`  profile (${mb} MB, ${run.seconds.toFixed(1)} s):`);
  for (const t of top) say(`    ${t.selfPct.toFixed(1).padStart(5)} %  ${t.selfMs.toFixed(0).padStart(6)} ms  ${t.function}  ${t.where}`);
  const size = statSync(file).size;
  rmSync(file, { force: true });
  return { sizeMB: size / 1e6, seconds: run.seconds, top };
}
