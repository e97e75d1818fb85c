#!/usr/bin/env node
/**
 * `npm run interop:latest`: the drift alarm. Installs the newest published version of every agent
 * CLI that interop/package.json pins into a folder of its own, runs the whole interop suite against
 * them (SESSIONPIN_INTEROP_DIR tells test/interop/support.ts where they are), and prints one row
 * per agent: the pinned and the newest version, and whether sessionpin still works with it, or the
 * first thing that failed. Exit 0 when every agent passed, 1 when one did not, 2 when it could not
 * run (no registry, an install that failed).
 *
 * Options: --dir DIR (default .tmp/interop-latest; kept, so a second run reinstalls only what
 * changed), --summary FILE (also write the table there as Markdown: GitHub's $GITHUB_STEP_SUMMARY).
 */
import { spawnSync } from "node:child_process";
import { appendFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const { values: o } = parseArgs({ options: { dir: { type: "string" }, summary: { type: "string" } } });
const dir = resolve(o.dir ?? join(ROOT, ".tmp", "interop-latest"));
const fail = (line) => {
  console.error(`interop-latest: ${line}`);
  process.exit(2);
};

// The agents, by the test files that prove them and the packages that are them.
const AGENTS = [
  { agent: "Claude Code", files: /^claude-/, packages: ["@anthropic-ai/claude-code"] },
  { agent: "Codex", files: /^codex/, packages: ["@openai/codex"] },
  { agent: "Gemini CLI", files: /^gemini/, packages: ["@google/gemini-cli"] },
  { agent: "Copilot CLI", files: /^copilot/, packages: ["@github/copilot"] },
  { agent: "OpenCode", files: /^opencode/, packages: ["opencode-ai"] },
  { agent: "Qwen Code", files: /^qwen/, packages: ["@qwen-code/qwen-code"] },
  { agent: "Auggie", files: /^auggie/, packages: ["@augmentcode/auggie"] },
  { agent: "omp", files: /^omp/, packages: ["@oh-my-pi/pi-coding-agent", "bun"] },
  { agent: "pi", files: /^pi\./, packages: ["@mariozechner/pi-coding-agent"] },
  { agent: "Amp", files: /^amp/, packages: ["@ampcode/cli", "@ampcode/cli-linux-x64"] },
];

const npm = (args, timeout) => spawnSync("npm", args, { cwd: ROOT, encoding: "utf8", timeout, stdio: ["ignore", "pipe", "pipe"] });

const pinnedPackage = JSON.parse(readFileSync(join(ROOT, "interop", "package.json"), "utf8"));
const pinned = pinnedPackage.dependencies;
const latest = {};
for (const name of Object.keys(pinned)) {
  // Amp publishes its platform binary under the same version: ask for the CLI's, use it for both.
  const asked = name === "@ampcode/cli-linux-x64" ? "@ampcode/cli" : name;
  const view = npm(["view", asked, "version", "--json"], 60_000);
  if (view.status !== 0) fail(`npm view ${asked}: ${(view.stderr || view.error?.message || "").trim().split("\n").at(-1)}`);
  latest[name] = JSON.parse(view.stdout);
}

mkdirSync(dir, { recursive: true });
writeFileSync(join(dir, "package.json"), `${JSON.stringify({ ...pinnedPackage, name: "sessionpin-interop-latest", dependencies: latest }, null, 2)}\n`);
const install = npm(["install", "--prefix", dir, "--no-audit", "--no-fund", "--loglevel=error"], 900_000);
if (install.status !== 0) fail(`npm install of the newest versions failed: ${install.stderr.trim().split("\n").slice(-3).join(" ")}`);

const report = join(dir, "vitest.json");
const run = spawnSync("npx", ["vitest", "run", "--config", "test/interop/vitest.config.ts", "--reporter=json", `--outputFile=${report}`], {
  cwd: ROOT, env: { ...process.env, SESSIONPIN_INTEROP_DIR: dir }, encoding: "utf8", stdio: ["ignore", "inherit", "inherit"], timeout: 3 * 3600_000,
});
if (!existsSync(report)) fail(`the interop suite wrote no report (exit ${run.status ?? run.signal})`);
const results = JSON.parse(readFileSync(report, "utf8")).testResults ?? [];

// Each failure's first line of its own words: what changed, as the test that caught it says.
const firstLine = (text) => String(text ?? "").replace(/\x1b\[[0-9;]*m/g, "").split("\n").find((line) => line.trim() !== "")?.trim().slice(0, 160) ?? "";
const rows = AGENTS.map(({ agent, files, packages }) => {
  const own = results.filter((file) => files.test(file.name.split("/").at(-1) ?? ""));
  const tests = own.flatMap((file) => file.assertionResults ?? []);
  const failed = tests.filter((t) => t.status === "failed");
  const versions = (which) => packages.map((name) => which[name]).filter(Boolean).join(" + ");
  const moved = packages.some((name) => pinned[name] !== latest[name]);
  const result = own.length === 0 ? "no test ran"
    : failed.length === 0 ? `passed (${tests.length} tests)`
    : `FAILED ${failed.length} of ${tests.length}: ${failed[0].title}: ${firstLine(failed[0].failureMessages?.[0])}`;
  return { agent, pinned: versions(pinned), latest: versions(latest), moved, result, ok: own.length > 0 && failed.length === 0 };
});

const table = [
  "| agent | pinned | newest | result |",
  "|---|---|---|---|",
  ...rows.map((r) => `| ${r.agent} | ${r.pinned} | ${r.moved ? `**${r.latest}**` : r.latest} | ${r.result.replaceAll("|", "\\|")} |`),
].join("\n");
console.log(`\n${table}\n`);
if (o.summary) appendFileSync(o.summary, `## Interop against the newest agent CLIs\n\n${table}\n`);
process.exit(rows.every((r) => r.ok) ? 0 : 1);
