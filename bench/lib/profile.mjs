/** Reading `node --cpu-prof` output: self time per function, the figure that says where to optimise. */
import { readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";

/**
 * The functions of the .cpuprofile files in `dir` (one per thread: replay's worker threads write
 * their own), self times added up, highest first. Idle time is left out: a thread waiting for
 * others is not work.
 */
export function readProfile(dir) {
  const names = readdirSync(dir).filter((n) => n.endsWith(".cpuprofile"));
  if (names.length === 0) throw new Error(`no .cpuprofile in ${dir}`);
  const merged = new Map();
  for (const name of names) {
    for (const row of selfTimes(JSON.parse(readFileSync(join(dir, name), "utf8")))) {
      if (row.function === "(idle)") continue;
      const key = `${row.function}\u0000${row.where}`;
      merged.set(key, { ...row, selfMs: (merged.get(key)?.selfMs ?? 0) + row.selfMs });
    }
  }
  const total = [...merged.values()].reduce((sum, row) => sum + row.selfMs, 0);
  return [...merged.values()].map((row) => ({ ...row, selfPct: (100 * row.selfMs) / total })).sort((a, b) => b.selfMs - a.selfMs);
}

/** Self time per function (name + script + line), from a .cpuprofile's samples. */
export function selfTimes(prof) {
  const byId = new Map(prof.nodes.map((n) => [n.id, n]));
  const self = new Map();
  let total = 0;
  prof.samples.forEach((id, i) => {
    const dt = (prof.timeDeltas[i] ?? 0) / 1000;
    total += dt;
    self.set(id, (self.get(id) ?? 0) + dt);
  });
  const agg = new Map();
  for (const [id, ms] of self) {
    const f = byId.get(id).callFrame;
    const url = f.url.replace(/^file:\/\//, "").replace(/^.*\/(dist|node_modules)\//, "$1/");
    const key = `${f.functionName || "(anonymous)"}\u0000${url}:${f.lineNumber + 1}`;
    agg.set(key, (agg.get(key) ?? 0) + ms);
  }
  return [...agg].map(([key, ms]) => {
    const [fn, where] = key.split("\u0000");
    return { function: fn, where: where === ":0" ? "" : where, selfMs: ms, selfPct: (100 * ms) / total };
  }).sort((a, b) => b.selfMs - a.selfMs);
}
