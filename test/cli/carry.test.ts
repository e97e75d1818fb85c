import { spawnSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { CLI } from "../helpers/sandbox.js";
import { CLAUDE_ID, claudeLines, entriesOf, tarOf, TwoMachines, type Machine } from "../state/carry-support.js";

/** `sessionpin export` and `import` through the built CLI, on pipes, as a CI step runs them. */

let m: TwoMachines;
beforeEach(() => void (m = new TwoMachines()));
afterEach(() => m.cleanup());

function sessionpin(machine: Machine, args: readonly string[]): { code: number | null; stdout: string; stderr: string } {
  // No compile cache: it would be written under HOME, and the refusals must leave HOME as it was.
  const result = spawnSync(process.execPath, [CLI, ...args], { cwd: machine.cwd, env: { ...machine.env, NODE_DISABLE_COMPILE_CACHE: "1" }, input: "", encoding: "utf8", timeout: 30_000 });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

describe("sessionpin export and import", () => {
  beforeEach(() => {
    m.claudeTranscript(m.a);
    m.pin(m.a, "claude", CLAUDE_ID);
  });

  it("carry this folder's pinned session to another HOME and folder, one line per action", () => {
    const exported = sessionpin(m.a, ["export", "--key", "thread-1", "-o", m.archive]);
    expect(exported.stderr).toBe("");
    expect(exported.code).toBe(0);
    const lines = exported.stdout.trimEnd().split("\n");
    expect(lines).toHaveLength(3);
    expect(lines[0]).toBe(`took ${m.pointerPath(m.a, "claude")} (${readFileSync(m.pointerPath(m.a, "claude")).length} bytes)`);
    expect(lines[2]).toMatch(new RegExp(`^wrote ${m.archive} \\(.+\\): claude session ${CLAUDE_ID} from ${m.a.cwd}, key "thread-1"$`));

    const imported = sessionpin(m.b, ["import", m.archive]);
    expect(imported.stderr).toBe("");
    expect(imported.code).toBe(0);
    const transcript = join(m.b.home, ".claude", "projects", m.b.cwd.replace(/[^A-Za-z0-9]/g, "-"), `${CLAUDE_ID}.jsonl`);
    expect(imported.stdout).toBe(`wrote ${transcript} (${m.a.cwd} → ${m.b.cwd})\nwrote pointer ${m.pointerPath(m.b, "claude")}: claude session ${CLAUDE_ID}, resumed by the next run in ${m.b.cwd}\n`);
    expect(readFileSync(transcript, "utf8")).toBe(claudeLines(m.b.cwd, 2));

    const again = sessionpin(m.b, ["import", m.archive, "--json"]);
    expect(again.code).toBe(0);
    expect(JSON.parse(again.stdout)).toMatchObject({ agent: { name: "claude" }, session: CLAUDE_ID, from: m.a.cwd, cwd: m.b.cwd, store: "unchanged", pointerWritten: false });
  });

  it("--json: one document each; --cwd names the folder it resumes in", () => {
    const exported = sessionpin(m.a, ["export", "--key", "thread-1", "-o", m.archive, "--json"]);
    expect(exported.code).toBe(0);
    expect(JSON.parse(exported.stdout)).toMatchObject({ archive: m.archive, agent: { name: "claude", version: null }, session: CLAUDE_ID, cwd: m.a.cwd, key: "thread-1", carry: "files" });
    const imported = sessionpin(m.a, ["import", m.archive, "--cwd", m.b.cwd, "--json"]);
    expect(imported.code).toBe(0);
    expect(JSON.parse(imported.stdout)).toMatchObject({ cwd: m.b.cwd, store: "new", pointer: m.pointerPath({ ...m.b, env: m.a.env, home: m.a.home }, "claude") });
  });

  it("refuses a hostile archive in one line on stderr, exit 3, nothing written", async () => {
    sessionpin(m.a, ["export", "--key", "thread-1", "-o", m.archive]);
    const entries = await entriesOf(m.archive);
    const hostile = join(m.dir, "hostile.tgz");
    writeFileSync(hostile, tarOf(entries.map((e) => (e.name.endsWith(".jsonl") ? { name: e.name, type: "SymbolicLink" as const, linkpath: "/etc" } : e))));
    const before = m.tree();
    const refused = sessionpin(m.b, ["import", hostile]);
    expect(refused).toEqual({ code: 3, stdout: "", stderr: `sessionpin import: ${hostile}: refused: "store/${CLAUDE_ID}.jsonl" is a symbolic link (to "/etc"), not a regular file\n` });
    expect(m.tree()).toEqual(before);
  });

  it("usage errors and missing pointers are one line each", () => {
    expect(sessionpin(m.a, ["export", "--key", "thread-1"])).toMatchObject({ code: 2, stdout: "", stderr: "sessionpin export: give the archive to write with -o FILE (`sessionpin export --help` lists the options)\n" });
    expect(sessionpin(m.a, ["export", "--key", "no-such-thread", "-o", m.archive])).toMatchObject({ code: 1, stderr: `sessionpin export: no pointer in this folder (${m.a.cwd}) for key "no-such-thread": give --agent, --key or --pointer\n` });
    expect(sessionpin(m.b, ["import"])).toMatchObject({ code: 2, stderr: "sessionpin import: give one archive to import (`sessionpin import --help` lists the options)\n" });
    expect(sessionpin(m.b, ["import", join(m.dir, "none.tgz")])).toMatchObject({ code: 1, stderr: `sessionpin import: ${join(m.dir, "none.tgz")}: cannot read it: no such file or folder\n` });
    expect(sessionpin(m.b, ["import", m.archive, "--cwd", join(m.dir, "nowhere")])).toMatchObject({ code: 2 });
  });

  it("help, and `plugins` says how each agent's sessions travel", () => {
    expect(sessionpin(m.a, ["export", "--help"]).stdout).toMatch(/^Usage: sessionpin export /);
    expect(sessionpin(m.a, ["help", "import"]).stdout).toMatch(/^Usage: sessionpin import FILE/);
    const plugins = sessionpin(m.a, ["plugins"]).stdout;
    expect(plugins).toMatch(/^amp .*\n(?: {2}.*\n)*? {2}carry: {3}pointer only: threads live on Amp's server/m);
    expect(plugins).toMatch(/^cursor .*\n(?: {2}.*\n)*? {2}carry: {3}not carried: /m);
    expect(plugins).toMatch(/^opencode .*\n(?: {2}.*\n)*? {2}carry: {3}carried by the agent: through OpenCode's own/m);
    const rows = JSON.parse(sessionpin(m.a, ["plugins", "--json"]).stdout) as Array<{ name: string; carry: string }>;
    expect(rows.find((r) => r.name === "claude")?.carry).toMatch(/^carried: projects\/<folder>\/<id>\.jsonl/);
  });
});
