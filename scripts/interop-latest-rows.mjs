/**
 * The drift alarm's pure part (scripts/interop-latest.mjs): which agent each interop test belongs
 * to, one result row per agent from vitest's JSON report, the Markdown table of them, and npm's
 * reason for a refused install in one line.
 */

// The agents, by the test files that are theirs alone and the packages that are them. The shared
// files (shim, pipes, carry) name each agent's tests by a describe block `<agent> <version>…`.
export const AGENTS = [
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

/** npm's own reason, one line (`No matching version found for …`), not the path of its log. */
export const npmReason = (result) => {
  const lines = `${result.stderr ?? ""}`.split("\n").map((line) => line.replace(/^npm error\s*/, "").trim());
  return lines.find((line) => /^notarget |^404 |^E[A-Z]+ /.test(line))?.replace(/^notarget /, "")
    ?? lines.filter((line) => line !== "" && !line.startsWith("code ") && !line.startsWith("A complete log")).at(-1)
    ?? result.error?.message ?? `exit ${result.status ?? result.signal}`;
};

// A failure's first line of its own words: what changed, as the test that caught it says.
const firstLine = (text) => String(text ?? "").replace(/\x1b\[[0-9;]*m/g, "").split("\n").find((line) => line.trim() !== "")?.trim().slice(0, 160) ?? "";
const fileName = (file) => file.name.split("/").at(-1) ?? "";
const ownerOf = (file, test) => AGENTS.find(({ agent, files }) => files.test(fileName(file)) || (test.ancestorTitles?.[0] ?? "").startsWith(`${agent} `))?.agent;
const versions = (which, packages) => packages.map((name) => which[name]).join(" + ");

const outcome = (tests) => {
  const ran = tests.filter((t) => t.status === "passed" || t.status === "failed"); // not the skipped
  const failed = ran.filter((t) => t.status === "failed");
  return ran.length === 0 ? "no test ran"
    : failed.length === 0 ? `passed (${ran.length} ${ran.length === 1 ? "test" : "tests"})`
    : `FAILED ${failed.length} of ${ran.length}: ${failed[0].title}: ${firstLine(failed[0].failureMessages?.[0])}`;
};

/**
 * One row per agent from vitest's JSON report (its `testResults`), the pinned and the newest
 * versions, and `refused` (agent → npm's reason) for the agents whose newest did not install and
 * ran on their pins. A failure no agent owns adds a `(shared)` row, so it still fails the run.
 */
export function agentRows(results, { pinned, latest, refused }) {
  // A file that failed to load has no tests to fail: its error stands for them.
  const tests = results.flatMap((file) => file.status === "failed" && (file.assertionResults ?? []).length === 0
    ? [{ file, test: { title: fileName(file), status: "failed", failureMessages: [file.message] } }]
    : (file.assertionResults ?? []).map((test) => ({ file, test })));
  const rows = AGENTS.map(({ agent, packages }) => {
    const ran = outcome(tests.filter(({ file, test }) => ownerOf(file, test) === agent).map(({ test }) => test));
    return {
      agent,
      pinned: versions(pinned, packages),
      latest: versions(latest, packages),
      moved: packages.some((name) => pinned[name] !== latest[name]),
      result: refused[agent] === undefined ? ran : `newest does not install (${refused[agent]}); pinned ${versions(pinned, packages)} ${ran}`,
      ok: refused[agent] === undefined && ran.startsWith("passed"),
    };
  });
  const stray = tests.filter(({ file, test }) => ownerOf(file, test) === undefined).map(({ test }) => test);
  if (stray.some((t) => t.status === "failed")) rows.push({ agent: "(shared)", pinned: "", latest: "", moved: false, result: outcome(stray), ok: false });
  return rows;
}

/** The rows as a Markdown table, the newest version in bold where it is not the pinned one. */
export const markdownTable = (rows) => [
  "| agent | pinned | newest | result |",
  "|---|---|---|---|",
  ...rows.map((r) => `| ${r.agent} | ${r.pinned} | ${r.moved ? `**${r.latest}**` : r.latest} | ${r.result.replaceAll("|", "\\|")} |`),
].join("\n");
