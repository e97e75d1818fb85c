/**
 * (install) The tarball that carries its dependencies (scripts/pack-offline.mjs), installed with the
 * README's command, `npm install --global --offline`, each run into a fresh prefix with an empty
 * npm cache: every run unpacks all of it, none finds what an earlier one left. Packed once, from
 * the build being measured. The README quotes the quiet pass's median, and
 * test/install/offline.test.ts checks that quote against this file's figure.
 */
import { spawnSync } from "node:child_process";
import { dirname, join } from "node:path";
import { ROOT, cli, nowMs, tempDir } from "../lib/host.mjs";
import { median } from "../lib/stats.mjs";

// The npm that runs `npm run bench`, when it says where it is.
const [npm, ...npmArgs] = process.env.npm_execpath?.endsWith("npm-cli.js") ? [process.execPath, process.env.npm_execpath] : ["npm"];
// The user's npm config, but none of the npm_* variables `npm run bench` set for itself.
const KEPT = ["npm_config_userconfig", "npm_config_globalconfig", "npm_config_registry"];
const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith("npm_") || KEPT.includes(name)));

export function install({ runs, say }) {
  const dir = tempDir("install");
  const pack = spawnSync(process.execPath, [join(ROOT, "scripts/pack-offline.mjs"), "--dist", dirname(dirname(cli())), "--out", dir, "--json"], { encoding: "utf8", timeout: 240_000 });
  if (pack.status !== 0) throw new Error(pack.error?.message ?? pack.stderr.trim());
  const { filename, size } = JSON.parse(pack.stdout);
  const runSeconds = [];
  for (let n = 1; n <= runs; n++) {
    const args = ["install", "--global", "--offline", "--prefix", join(dir, `${n}`, ".npm-global"), "--cache", join(dir, `${n}`, "cache"), filename];
    const t0 = nowMs();
    const result = spawnSync(npm, [...npmArgs, ...args], { env, encoding: "utf8", timeout: 120_000 });
    runSeconds.push((nowMs() - t0) / 1000);
    if (result.status !== 0) throw new Error(`install run ${n}: ${result.error?.message ?? result.stderr.trim().split("\n")[0]}`);
  }
  const medianSeconds = median(runSeconds);
  say(`  offline install of the ${(size / 1e6).toFixed(1)} MB tarball: median ${medianSeconds.toFixed(1)} s of ${runs} runs (${runSeconds.map((s) => s.toFixed(1)).join(", ")})`);
  return { runs, runSeconds, medianSeconds, tarballBytes: size };
}
