/**
 * The drift alarm's table (scripts/interop-latest-rows.mjs): each interop test counted for the
 * agent it proves, a failure's first line in its row, and what is not a pass.
 */
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import { ROOT } from "../helpers/sandbox.js";

interface Row { agent: string; pinned: string; latest: string; moved: boolean; result: string; ok: boolean }
interface Rows {
  agentRows: (results: unknown[], versions: { pinned: Record<string, string>; latest: Record<string, string>; refused: Record<string, string> }) => Row[];
  markdownTable: (rows: Row[]) => string;
  npmReason: (result: { stderr?: string; status?: number | null }) => string;
}
// A plain script (scripts/ is not TypeScript): loaded by URL, its exports typed here.
const { agentRows, markdownTable, npmReason } = (await import(pathToFileURL(join(ROOT, "scripts", "interop-latest-rows.mjs")).href)) as Rows;

const pinned: Record<string, string> = {
  "@anthropic-ai/claude-code": "2.1.332", "@openai/codex": "0.171.0", "@google/gemini-cli": "0.61.0", "@github/copilot": "1.0.102",
  "opencode-ai": "1.18.33", "@qwen-code/qwen-code": "0.24.4", "@augmentcode/auggie": "0.36.0", "@oh-my-pi/pi-coding-agent": "18.2.3", bun: "1.4.5",
  "@mariozechner/pi-coding-agent": "0.73.1", "@ampcode/cli": "0.0.1", "@ampcode/cli-linux-x64": "0.0.1",
};
const passed = (title: string, ancestorTitles: string[] = []) => ({ title, ancestorTitles, status: "passed" });
const file = (name: string, assertionResults: unknown[]) => ({ name: `/repo/test/interop/${name}`, status: "passed", assertionResults });
const row = (rows: Row[], agent: string): Row => {
  const found = rows.find((r) => r.agent === agent);
  if (found === undefined) throw new Error(`no row for ${agent}`);
  return found;
};

describe("agentRows", () => {
  it("counts an agent's own files and its describe blocks in the shared files; skipped tests are not a pass", () => {
    const rows = agentRows([
      file("codex.interop.ts", [passed("exec"), passed("interactive")]),
      file("pipes-1.interop.ts", [passed("three calls", ["Codex 0.172.0, one-shot on pipes (no terminal)"]), passed("three calls", ["Claude Code 2.1.332, one-shot"])]),
      file("carry.interop.ts", [passed("carried", ["pi 0.73.1: carried to another HOME and folder"]), passed("carried", ["omp 18.2.3: carried"])]),
      file("qwen.interop.ts", [{ title: "skipped", ancestorTitles: [], status: "skipped" }]),
    ], { pinned, latest: { ...pinned, "@openai/codex": "0.172.0" }, refused: {} });
    expect(row(rows, "Codex")).toMatchObject({ pinned: "0.171.0", latest: "0.172.0", moved: true, result: "passed (3 tests)", ok: true });
    expect(row(rows, "Claude Code")).toMatchObject({ moved: false, result: "passed (1 test)", ok: true });
    expect(row(rows, "pi").result).toBe("passed (1 test)");
    expect(row(rows, "omp")).toMatchObject({ pinned: "18.2.3 + 1.4.5", result: "passed (1 test)" });
    expect(row(rows, "Qwen Code")).toMatchObject({ result: "no test ran", ok: false });
    expect(rows.map((r) => r.agent)).not.toContain("(shared)");
  });

  it("names the first failed test and the first line of its failure, colours stripped; a file that did not load fails its agent", () => {
    const rows = agentRows([
      file("gemini.interop.ts", [passed("a"), { title: "stale ID falls back", ancestorTitles: [], status: "failed", failureMessages: ["\x1b[31mAssertionError: expected 1 to be 2\x1b[39m\n    at x.ts:1"] }]),
      { name: "/repo/test/interop/auggie.interop.ts", status: "failed", message: "Error: Cannot find module 'x'", assertionResults: [] },
    ], { pinned, latest: pinned, refused: {} });
    expect(row(rows, "Gemini CLI")).toMatchObject({ result: "FAILED 1 of 2: stale ID falls back: AssertionError: expected 1 to be 2", ok: false });
    expect(row(rows, "Auggie")).toMatchObject({ result: "FAILED 1 of 1: auggie.interop.ts: Error: Cannot find module 'x'", ok: false });
  });

  it("an agent whose newest did not install ran on its pins and is not a pass; a failure no agent owns gets a row of its own", () => {
    const latest = { ...pinned, "@ampcode/cli": "0.0.2", "@ampcode/cli-linux-x64": "0.0.2" };
    const rows = agentRows([
      file("amp.interop.ts", [passed("argv")]),
      file("shim.interop.ts", [{ title: "outside every agent", ancestorTitles: [], status: "failed", failureMessages: ["boom"] }]),
    ], { pinned, latest, refused: { Amp: "No matching version found for @ampcode/cli-linux-x64@0.0.2." } });
    expect(row(rows, "Amp")).toMatchObject({
      latest: "0.0.2 + 0.0.2", moved: true, ok: false,
      result: "newest does not install (No matching version found for @ampcode/cli-linux-x64@0.0.2.); pinned 0.0.1 + 0.0.1 passed (1 test)",
    });
    expect(row(rows, "(shared)")).toMatchObject({ result: "FAILED 1 of 1: outside every agent: boom", ok: false });
  });
});

describe("markdownTable", () => {
  it("bolds a moved version and escapes the pipes of a failure's text", () => {
    const table = markdownTable([{ agent: "Codex", pinned: "1", latest: "2", moved: true, result: "FAILED 1 of 1: a | b", ok: false }]);
    expect(table.split("\n")).toEqual(["| agent | pinned | newest | result |", "|---|---|---|---|", "| Codex | 1 | **2** | FAILED 1 of 1: a \\| b |"]);
  });
});

describe("npmReason", () => {
  it("takes npm's notarget line, not its code or log lines", () => {
    const stderr = [
      "npm error code ETARGET",
      "npm error notarget No matching version found for @oh-my-pi/omp-stats@18.3.4.",
      "npm error notarget In most cases you or one of your dependencies are requesting a package version that doesn't exist.",
      "npm error A complete log of this run can be found in: /root/.npm/_logs/x.log",
    ].join("\n");
    expect(npmReason({ stderr, status: 1 })).toBe("No matching version found for @oh-my-pi/omp-stats@18.3.4.");
    expect(npmReason({ stderr: "npm error network request to https://registry.npmjs.org failed\nnpm error A complete log of this run can be found in: y", status: 1 })).toBe("network request to https://registry.npmjs.org failed");
  });
});
