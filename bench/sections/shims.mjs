/**
 * (9) PATH shims: what a shim adds to a call, as whatever calls the agent by name sees it, from
 * the spawn to the exit: `amp --version` (no conversation: the shim hands it straight on) and a
 * one-shot `amp -x MSG --stream-json` (through `sessionpin run`: a cold start first, then warm
 * ones that resume the thread). The agent is children/amp-answer, a shell script that answers at
 * once, so the figure is the shim's own. Paired rounds in a shuffled order: the median of each
 * round's difference.
 */
import { spawnSync } from "node:child_process";
import { mkdirSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import { CHILDREN, benchEnv, cli, tempDir, timed } from "../lib/host.mjs";
import { median, percentile } from "../lib/stats.mjs";
import { seeded } from "../../test/helpers/seeded.mjs";

export async function shims({ runs, say }) {
  const dir = tempDir("shims");
  const bin = join(dir, "bin");
  const shimDir = join(dir, "shims");
  const work = join(dir, "work");
  mkdirSync(bin);
  mkdirSync(work);
  symlinkSync(join(CHILDREN, "amp-answer"), join(bin, "amp"));
  const env = { ...benchEnv(dir), HOME: dir, PATH: `${shimDir}:${bin}:${process.env.PATH}` };
  const install = spawnSync(process.execPath, [cli(), "shim", "install", "amp", "--dir", shimDir], { env, encoding: "utf8", timeout: 30_000 });
  if (install.status !== 0) throw new Error(`shim install failed: ${install.stderr}`);
  const problems = [];
  // The first call writes the CLI's code cache, as the first start after an install does.
  timed(join(shimDir, "amp"), ["--version"], env, work);
  const sides = {
    version: { bare: () => timed(join(bin, "amp"), ["--version"], env, work), shim: () => timed(join(shimDir, "amp"), ["--version"], env, work) },
    oneShot: { bare: (n) => timed(join(bin, "amp"), ["-x", `message ${n}`, "--stream-json"], env, work), shim: (n) => timed(join(shimDir, "amp"), ["-x", `message ${n}`, "--stream-json"], env, work) },
  };
  const bare = join(bin, "amp");
  const sameBytes = timed(join(shimDir, "amp"), ["--version"], env, work).out.equals(timed(bare, ["--version"], env, work).out);
  if (!sameBytes) problems.push("amp --version through the shim printed other bytes than the bare amp");
  const random = seeded(9);
  const samples = { version: { bare: [], shim: [] }, oneShot: { bare: [], shim: [] } };
  for (let n = 0; n < runs; n++) {
    for (const [figure, pair] of Object.entries(sides)) {
      const order = random() < 0.5 ? ["bare", "shim"] : ["shim", "bare"];
      for (const side of order) {
        const r = pair[side](n);
        if (!r.ok) problems.push(`${figure} ${side} run ${n + 1} failed`);
        samples[figure][side].push(r.ms);
      }
    }
  }
  const figure = (name) => {
    const { bare: b, shim: s } = samples[name];
    return { bareP50Ms: percentile(b, 50), shimP50Ms: percentile(s, 50), addedP50Ms: median(s.map((value, i) => value - b[i])) };
  };
  const result = { runs, version: figure("version"), oneShot: figure("oneShot"), sameBytes, problems };
  say(`  shims: amp --version +${result.version.addedP50Ms.toFixed(1)} ms, one-shot +${result.oneShot.addedP50Ms.toFixed(1)} ms over bare (p50 of ${runs} pairs)`);
  return result;
}
