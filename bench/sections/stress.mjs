/**
 * (6) Kill test: `sessionpin run` on one pointer, the cycle child confirming the resumed thread
 * and then forking to new ones, SIGKILLed at a random moment; again and again. After every kill
 * the pointer must be missing only if it never existed, parse and match the schema (dist's
 * readPointer), hold only IDs the child printed, and still hold every ID ever seen confirmed in
 * it (as its ID or in its history). A watcher also reads the pointer on every change during the
 * run: a reader must never see a torn file. The pointer is moved away every `reset` runs so its
 * history (one entry per fork) stays the size real use gives it.
 */
import { existsSync, readFileSync, readdirSync, renameSync, rmSync, watch, mkdirSync } from "node:fs";
import { join } from "node:path";
import { AMP_ARGS, CHILDREN, benchEnv, buildModule, exited, nowMs, sleep, spawnVia, tempDir } from "../lib/host.mjs";
import { median } from "../lib/stats.mjs";
import { seeded } from "../../test/helpers/seeded.mjs";


/** Running, not a zombie: an orphan is reaped by whatever adopts it, which may take seconds. */
function alive(pid) {
  try {
    return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, "utf8"));
  } catch {
    return false;
  }
}

/** Reads the pointer on every inotify event for it: confirmed IDs seen, torn reads, write times. */
function watchPointer(pointer, t0) {
  const seen = { confirmed: new Set(), torn: [], writes: [] };
  const dir = join(pointer, "..");
  const name = pointer.slice(dir.length + 1);
  const w = watch(dir, (_e, file) => {
    if (file !== name) return;
    let text;
    try { text = readFileSync(pointer, "utf8"); } catch { return; } // moved away or not there yet
    try {
      const p = JSON.parse(text);
      seen.writes.push(nowMs() - t0);
      if (p.state === "confirmed") seen.confirmed.add(p.id);
    } catch (e) {
      seen.torn.push(`${e.message}: ${JSON.stringify(text.slice(0, 80))}`);
    }
  });
  return { seen, close: () => w.close() };
}

/**
 * One run. `kill` = { from: "spawn" | "output", after: ms }: SIGKILL that long after the spawn, or
 * after the child's first line came through sessionpin (start-up time varies by a hundred ms on a
 * busy machine; the pointer writes follow the first line within milliseconds). No `kill`: a
 * calibration run, stopped politely once all is written.
 */
async function iteration(ctx, kill) {
  const { dir, pointer, log, printed } = ctx;
  const pidFile = join(dir, "child.pid");
  rmSync(pidFile, { force: true });
  const env = benchEnv(dir, { BENCH_PID_FILE: pidFile, BENCH_PRINTED_FILE: printed, BENCH_GAP_MS: "2", BENCH_FORKS: "3" });
  const t0 = nowMs();
  const watcher = watchPointer(pointer, t0);
  const p = spawnVia("shim", join(CHILDREN, "cycle"), AMP_ARGS, { env, pointer, log });
  let killedAt;
  let firstOutput;
  let timer;
  const killNow = () => {
    killedAt = nowMs() - t0;
    try { process.kill(p.pid, "SIGKILL"); } catch { /* already gone */ }
  };
  if (kill?.from === "spawn") timer = setTimeout(killNow, kill.after);
  p.onData(() => {
    if (firstOutput !== undefined) return;
    firstOutput = nowMs() - t0;
    if (kill?.from === "output") timer = setTimeout(killNow, kill.after);
  });
  const done = exited(p);
  if (kill === undefined) {
    await sleep(1500);
    p.kill("SIGTERM");
  }
  const status = await done;
  clearTimeout(timer);
  // The child loses its PTY with sessionpin; wait until it is gone so runs never overlap.
  const childPid = existsSync(pidFile) ? Number(readFileSync(pidFile, "utf8")) : undefined;
  for (let i = 0; childPid && alive(childPid) && i < 200; i++) await sleep(5);
  if (childPid && alive(childPid)) process.kill(childPid, "SIGKILL");
  await sleep(2); // the last inotify events
  watcher.close();
  return { status, killedAt, firstOutput, writes: watcher.seen.writes, confirmedSeen: watcher.seen.confirmed, torn: watcher.seen.torn };
}

/** `.amp.json.<pid>.<hex>.tmp`, the pointer store's temp file (not the lock's `.amp.json.lock.…`). */
const isPointerTemp = (name) => /^\.amp\.json\.\d+\.[0-9a-f]+\.tmp$/.test(name);

function printedIds(printed) {
  if (!existsSync(printed)) return new Set();
  return new Set(readFileSync(printed, "utf8").trim().split("\n").filter(Boolean).map((l) => l.split(" ")[1]));
}

export async function stress({ kills, seed, reset, say }) {
  const { readPointer } = await import(buildModule("pointer/store.js"));
  const dir = tempDir("stress");
  mkdirSync(join(dir, "ptr"), { recursive: true });
  const ctx = { dir, pointer: join(dir, "ptr", "amp.json"), log: join(dir, "amp.log"), printed: join(dir, "printed.txt") };
  const random = seeded(seed);

  // Calibration: how long start-up takes, and how soon after the first line the writes happen.
  const output = [];
  const lastWrite = [];
  for (let i = 0; i < 5; i++) {
    const r = await iteration(ctx, undefined);
    if (r.firstOutput !== undefined && r.writes.length > 0) {
      output.push(r.firstOutput);
      lastWrite.push(r.writes[r.writes.length - 1] - r.firstOutput);
    }
  }
  if (output.length === 0) throw new Error("stress calibration: sessionpin never wrote the pointer");
  const tOutput = median(output);
  const span = Math.max(5, median(lastWrite));
  say(`  stress: first line ${tOutput.toFixed(0)} ms after spawn, pointer written up to ${span.toFixed(0)} ms after it; killing ${kills} times`);

  const counts = { kills: 0, exitedBeforeKill: 0, invalid: 0, lostPointer: 0, lostConfirmed: 0, unknownId: 0, tornReads: 0, setAside: 0, killedMidWrite: 0, tempsNotCleaned: 0, duringWrites: 0 };
  const details = [];
  let confirmedEver = new Set();
  let existedBefore = false;
  const t0 = nowMs();
  for (let k = 0; k < kills; k++) {
    if (k > 0 && k % reset === 0) {
      if (existsSync(ctx.pointer)) renameSync(ctx.pointer, join(dir, `archived-${k}.json`));
      confirmedEver = new Set();
      existedBefore = false;
    }
    const tempsBefore = new Set(readdirSync(join(dir, "ptr")).filter(isPointerTemp));
    // Most kills land while the pointer is being written; a quarter anywhere from the spawn on.
    const r = await iteration(ctx, random() < 0.25
      ? { from: "spawn", after: random() * (tOutput + span) }
      : { from: "output", after: random() * (span + 5) });
    if (r.killedAt === undefined) { counts.exitedBeforeKill++; details.push(`run ${k + 1}: sessionpin exited by itself (code ${r.status.exitCode}) before the kill`); }
    else counts.kills++;
    if (r.writes.length > 0) counts.duringWrites++;
    for (const id of r.confirmedSeen) confirmedEver.add(id);
    counts.tornReads += r.torn.length;
    for (const t of r.torn) details.push(`run ${k + 1}: torn read: ${t}`);
    const read = await readPointer(ctx.pointer);
    const ids = printedIds(ctx.printed);
    if (read.kind === "invalid" || read.kind === "newer") {
      counts.invalid++;
      details.push(`run ${k + 1}: pointer invalid after kill at ${r.killedAt?.toFixed(1)} ms: ${read.reason ?? read.version}`);
      // The next run sets it aside and starts cold: that loss is this one, counted here.
      existedBefore = false;
      confirmedEver = new Set();
    } else if (read.kind === "missing") {
      if (existedBefore) { counts.lostPointer++; details.push(`run ${k + 1}: pointer missing after kill at ${r.killedAt?.toFixed(1)} ms`); }
      existedBefore = false;
      confirmedEver = new Set();
    } else {
      existedBefore = true;
      const held = new Set([read.pointer.id, ...read.pointer.history.map((h) => h.id)]);
      for (const id of confirmedEver) {
        if (held.has(id)) continue;
        // Counted once: from here on the pointer is judged by what it holds now.
        counts.lostConfirmed++;
        confirmedEver.delete(id);
        details.push(`run ${k + 1}: confirmed ${id} no longer in the pointer (id or history)`);
      }
      if (!ids.has(read.pointer.id)) { counts.unknownId++; details.push(`run ${k + 1}: pointer holds ${read.pointer.id}, which the child never printed`); }
      if (read.pointer.state === "confirmed") confirmedEver.add(read.pointer.id);
    }
    const names = readdirSync(join(dir, "ptr"));
    const aside = names.filter((n) => /\.(corrupt|unused|rejected)-/.test(n));
    if (aside.length > 0) {
      counts.setAside += aside.length;
      details.push(`run ${k + 1}: pointer set aside: ${aside.join(", ")}`);
      for (const n of aside) renameSync(join(dir, "ptr", n), join(dir, `seen-${k}-${n}`));
    }
    // A writer killed between creating its temp file and the rename leaves the temp file; the
    // next run that takes the lock should remove it.
    const temps = names.filter(isPointerTemp);
    counts.killedMidWrite += temps.filter((n) => !tempsBefore.has(n)).length;
    const kept = temps.filter((n) => tempsBefore.has(n) && r.firstOutput !== undefined);
    counts.tempsNotCleaned += kept.length;
    if ((k + 1) % 100 === 0) say(`  stress: ${k + 1}/${kills} (${((nowMs() - t0) / 1000).toFixed(0)} s) invalid ${counts.invalid}, lost ${counts.lostPointer + counts.lostConfirmed}, torn ${counts.tornReads}`);
  }
  counts.tempsLeftAtEnd = readdirSync(join(dir, "ptr")).filter(isPointerTemp).length;
  return {
    kills, seed, resetEvery: reset, calibration: { firstLineMs: tOutput, writesWithinMs: span }, ...counts,
    seconds: (nowMs() - t0) / 1000, details: details.slice(0, 50), moreDetails: Math.max(0, details.length - 50),
  };
}
