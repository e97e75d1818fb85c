/**
 * The figures of results.json and the printed table: one row per target, with what it was
 * compared against. `correctness` rows (identical bytes, the right ID, no corrupt pointer) fail
 * the bench; the others are performance targets, reported as met or missed.
 */
const f1 = (n) => (n === undefined || Number.isNaN(n) ? "—" : n.toFixed(1));
const f2 = (n) => (n === undefined || Number.isNaN(n) ? "—" : n.toFixed(2));
const f3 = (n) => (n === undefined || Number.isNaN(n) ? "—" : n.toFixed(3));
const row = (section, name, reference, sessionpin, value, target, pass, correctness = false) =>
  ({ section, name, reference, sessionpin, value, target, pass, correctness });

/** The rows of every section present; a section from an older bench that cannot be read is skipped. */
export function rowsFor(s) {
  const rows = [];
  for (const name of Object.keys(s)) {
    try {
      rows.push(...sectionRows({ [name]: s[name] }));
    } catch {
      rows.push(row(name, `${name}: results of an older bench format`, "—", "—", "—", "run it again", undefined));
    }
  }
  return rows;
}

function sectionRows(s) {
  const rows = [];
  const t = s.throughput;
  if (t && !t.error) {
    rows.push(row("throughput", `1 passthrough throughput (${t.sizeMB} MB)`, `bare ${f1(t.bareMBps)} MB/s`, `${f1(t.shimMBps)} MB/s`, `${f2(t.ratio)} of bare`, ">= 0.95 of bare", t.ratio >= 0.95));
    rows.push(row("throughput", "1 … minimal Node relay, for reference", `bare ${f1(t.bareMBps)} MB/s`, `relay ${f1(t.relayMBps)} MB/s`, `${f2(t.relayRatio)} of bare`, "(floor)", undefined));
    rows.push(row("throughput", "1 output byte-identical (sha256)", "expected hash", t.hashMatch ? "same" : "DIFFERENT", t.hashMatch ? "yes" : "no", "identical", t.hashMatch, true));
  }
  const l = s.latency;
  if (l && !l.error) {
    rows.push(row("latency", `2 keystroke round trip p50 (${l.keys} keys)`, `bare ${f3(l.bareMs.p50)} ms`, `${f3(l.shimMs.p50)} ms`, `+${f3(l.addedP50Ms)} ms`, "(no target)", undefined));
    rows.push(row("latency", "2 keystroke round trip p99", `bare ${f3(l.bareMs.p99)} ms`, `${f3(l.shimMs.p99)} ms`, `+${f3(l.addedP99Ms)} ms`, "added < 1 ms", l.addedP99Ms < 1));
    rows.push(row("latency", "2 … minimal Node relay p50 / p99", `bare ${f3(l.bareMs.p50)} / ${f3(l.bareMs.p99)} ms`, `relay ${f3(l.relayMs.p50)} / ${f3(l.relayMs.p99)} ms`, `+${f3(l.relayAddedP99Ms)} ms p99`, "(floor)", undefined));
  }
  const d = s.durable;
  if (d && !d.error) {
    rows.push(row("durable", `3 init line → pointer holds ID, p50/p99 (${d.runs} runs)`, "—", `${f2(d.capturedMs.p50)} / ${f2(d.capturedMs.p99)} ms`, `p99 ${f2(d.capturedMs.p99)} ms`, "p99 < 20 ms", d.capturedMs.p99 < 20 && d.capturedMs.n === d.runs));
    rows.push(row("durable", "3 result line → pointer confirmed, p50/p99", "—", `${f2(d.confirmedMs.p50)} / ${f2(d.confirmedMs.p99)} ms`, `p99 ${f2(d.confirmedMs.p99)} ms`, "p99 < 20 ms", d.confirmedMs.p99 < 20 && d.confirmedMs.n === d.runs));
    rows.push(row("durable", "3 … until logged (folder fsynced too), p99", "—", `${f2(d.capturedLoggedMs.p99)} / ${f2(d.confirmedLoggedMs.p99)} ms`, "init / result", "(upper bound)", undefined));
  }
  const r = s.replay;
  if (r && !r.error) {
    const ok = r.problems.length === 0;
    rows.push(row("replay", `4 replay --agent amp (${r.sizeMB.toFixed(0)} MB)`, `grep -c ${f1(r.grepMBps)} MB/s`, `${f1(r.replayMBps)} MB/s`, `${f1(r.replayMBps)} MB/s`, ">= 400 MB/s", r.replayMBps >= 400));
    rows.push(row("replay", "4 replay time vs grep -c", `grep ${f2(r.grepSeconds)} s`, `${f2(r.replaySeconds)} s`, `${f1(r.timeVsGrep)}x grep`, "<= 2x grep", r.timeVsGrep <= 2));
    if (r.jqMBps !== undefined) rows.push(row("replay", "4 replay vs jq (every JSON line parsed)", `jq ${f1(r.jqMBps)} MB/s`, `${f1(r.replayMBps)} MB/s`, `${f2(r.replayMBps / r.jqMBps)}x jq's speed`, "(reference)", undefined));
    rows.push(row("replay", "4 replay peak RSS (VmHWM)", `at 1 MB: ${f1(r.baselineRssMB)} MB`, `${f1(r.peakRssMB)} MB`, `${f1(r.peakRssMB)} MB`, "< 100 MB", r.peakRssMB < 100));
    if (r.quarterMedianRssMB !== undefined) {
      const growth = r.medianRssMB - r.quarterMedianRssMB;
      rows.push(row("replay", "4 … median peak RSS, a quarter of the size vs all", `at ${r.quarterMB.toFixed(0)} MB: ${f1(r.quarterMedianRssMB)} MB`, `${f1(r.medianRssMB)} MB`, `${growth >= 0 ? "+" : ""}${f1(growth)} MB`, "(flat)", undefined));
    }
    rows.push(row("replay", "4 replay found the last thread, confirmed", "generator's", ok ? "same" : "DIFFERENT", ok ? "yes" : "no", "correct", ok, true));
  }
  const u = s.startup;
  if (u && !u.error) {
    rows.push(row("startup", `5 launch → first output byte, p50 (${u.runs} runs)`, `bare ${f1(u.bareMs.p50)} ms`, `${f1(u.shimMs.p50)} ms`, `+${f1(u.addedP50Ms)} ms`, "added < 100 ms", u.addedP50Ms < 100));
    rows.push(row("startup", "5 … p90", `bare ${f1(u.bareMs.p90)} ms`, `${f1(u.shimMs.p90)} ms`, `+${f1(u.addedP90Ms)} ms`, "(no target)", undefined));
    rows.push(row("startup", "5 … minimal Node relay p50; node -e alone p50", `bare ${f1(u.bareMs.p50)} ms`, `relay ${f1(u.relayMs.p50)} ms`, `node ${f1(u.nodeHelloMs.p50)} ms`, "(floor)", undefined));
  }
  const k = s.stress;
  if (k && !k.error) {
    const bad = k.invalid + k.tornReads;
    const lost = k.lostPointer + k.lostConfirmed + k.unknownId;
    rows.push(row("stress", `6 SIGKILLs: pointer invalid or torn (${k.kills} kills)`, `${k.duringWrites} runs wrote`, `${bad}`, `${bad}`, "0", bad === 0, true));
    rows.push(row("stress", "6 SIGKILLs: pointer or confirmed ID lost, foreign ID", `${k.killedMidWrite} mid-write`, `${lost}`, `${lost}`, "0", lost === 0, true));
    rows.push(row("stress", "6 temp files of killed writes left after the next run", `${k.killedMidWrite} left by kills`, `${k.tempsNotCleaned}`, `${k.tempsLeftAtEnd} at the end`, "(cleanup)", undefined));
  }
  for (const [name, sec] of Object.entries(s)) {
    if (sec?.error) rows.push(row(name, `${name}: crashed`, "—", "—", sec.error.split("\n")[0], "runs", false, true));
  }
  return rows;
}

export function printTable(rows, say) {
  const head = ["figure", "compared with", "sessionpin", "result", "target", ""];
  const cells = rows.map((r) => [r.name, r.reference, r.sessionpin, r.value, r.target, r.pass === undefined ? "" : r.pass ? "pass" : "FAIL"]);
  const widths = head.map((h, i) => Math.max(h.length, ...cells.map((c) => String(c[i]).length)));
  const line = (c) => `| ${c.map((v, i) => String(v).padEnd(widths[i])).join(" | ")} |`;
  say(line(head));
  say(`|${widths.map((w) => "-".repeat(w + 2)).join("|")}|`);
  for (const c of cells) say(line(c));
}
