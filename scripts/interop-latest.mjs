#!/usr/bin/env node
/**
 * `npm run interop:latest`: the drift alarm. Installs the newest published version of every agent
 * CLI that interop/package.json pins into a folder of its own, runs the whole interop suite against
 * them (SESSIONPIN_INTEROP_DIR tells test/interop/support.ts where they are), and prints one row
 * per agent: the pinned and the newest version, and whether sessionpin still works with it, or the
 * first thing that failed. An agent whose newest release does not install (a dependency the
 * registry does not serve) keeps its pinned version, and its row says why. Exit 0 when every
 * agent's newest passed, 1 when one failed or did not install, 2 when it could not run at all.
 *
 * Options: --dir DIR (default .tmp/interop-latest; kept, so a second run reinstalls only what
 * changed), --summary FILE (also write the table there as Markdown: GitHub's $GITHUB_STEP_SUMMARY).
 */
import { spawnSync } from "node:child_process";
import { appendFileSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { AGENTS, agentRows, markdownTable, npmReason } from "./interop-latest-rows.mjs";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const { values: o } = parseArgs({ options: { dir: { type: "string" }, summary: { type: "string" } } });
const dir = resolve(o.dir ?? join(ROOT, ".tmp", "interop-latest"));
const fail = (line) => {
  console.error(`interop-latest: ${line}`);
  process.exit(2);
};

const npm = (args, timeout) => spawnSync("npm", args, { cwd: ROOT, encoding: "utf8", timeout, stdio: ["ignore", "pipe", "pipe"] });

const pinnedPackage = JSON.parse(readFileSync(join(ROOT, "interop", "package.json"), "utf8"));
const pinned = pinnedPackage.dependencies;
const latest = {};
for (const name of Object.keys(pinned)) {
  // Amp publishes its platform binary under the CLI's version: ask for the CLI's, use it for both.
  const asked = name === "@ampcode/cli-linux-x64" ? "@ampcode/cli" : name;
  const view = npm(["view", asked, "version", "--json"], 60_000);
  if (view.status !== 0) fail(`npm view ${asked}: ${npmReason(view)}`);
  latest[name] = JSON.parse(view.stdout);
}

// Each moved agent's newest packages resolved alone first (a dry run in an empty folder), so one
// release that does not install keeps its pins instead of stopping the whole run.
mkdirSync(dir, { recursive: true });
const chosen = { ...latest };
const refused = {};
const probe = join(dir, "probe");
for (const { agent, packages } of AGENTS) {
  if (packages.every((name) => pinned[name] === latest[name])) continue;
  rmSync(probe, { recursive: true, force: true });
  mkdirSync(probe);
  writeFileSync(join(probe, "package.json"), '{"name":"probe","private":true}\n');
  const dry = npm(["install", "--dry-run", "--prefix", probe, "--no-audit", "--no-fund", ...packages.map((name) => `${name}@${latest[name]}`)], 300_000);
  if (dry.status === 0) continue;
  refused[agent] = npmReason(dry);
  for (const name of packages) chosen[name] = pinned[name];
}
rmSync(probe, { recursive: true, force: true });

writeFileSync(join(dir, "package.json"), `${JSON.stringify({ ...pinnedPackage, name: "sessionpin-interop-latest", dependencies: chosen }, null, 2)}\n`);
const install = npm(["install", "--prefix", dir, "--no-audit", "--no-fund", "--loglevel=error"], 900_000);
if (install.status !== 0) fail(`npm install of the newest versions failed: ${npmReason(install)}`);

const report = join(dir, "vitest.json");
rmSync(report, { force: true });
const run = spawnSync("npx", ["vitest", "run", "--config", "test/interop/vitest.config.ts", "--reporter=default", "--reporter=json", `--outputFile.json=${report}`], {
  cwd: ROOT, env: { ...process.env, SESSIONPIN_INTEROP_DIR: dir }, encoding: "utf8", stdio: ["ignore", "inherit", "inherit"], timeout: 3 * 3600_000,
});
if (!existsSync(report)) fail(`the interop suite wrote no report (exit ${run.status ?? run.signal})`);
const results = JSON.parse(readFileSync(report, "utf8")).testResults ?? [];

const rows = agentRows(results, { pinned, latest, refused });
const table = markdownTable(rows);
console.log(`\n${table}\n`);
if (o.summary) appendFileSync(o.summary, `## Interop against the newest agent CLIs\n\n${table}\n`);
process.exit(rows.every((r) => r.ok) ? 0 : 1);
