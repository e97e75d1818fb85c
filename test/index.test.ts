/**
 * The library API from the package root: replay and explain give what the CLI prints for the same
 * recording, readPointer reads what writePointer wrote, the plugin registry answers lookups, and
 * `run` is the session runner. Also checks that package.json's "exports" points at the built index.
 */
import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterEach, describe, expect, it } from "vitest";
import * as sessionpin from "../src/index.js";
import { definePlugin, explain, openSource, plugins, readPointer, replay, resolvePointerPath, run, type Pointer } from "../src/index.js";
import { runSession } from "../src/run/session.js";
import { writePointer } from "../src/pointer/store.js";
import { CLI, ROOT } from "./helpers/sandbox.js";

const exec = promisify(execFile);
const STREAM = join(ROOT, "fixtures/amp/stream-basic/input.jsonl");
const LOOKALIKES = join(ROOT, "fixtures/amp/lookalikes/input.jsonl");
const builtIn = Object.values(plugins.agents);

let dir = "";
afterEach(() => dir && rmSync(dir, { recursive: true, force: true }));

/** `sessionpin <args>` stdout lines, parsed (the CLI is built by `npm test` first). */
async function cliJson(args: readonly string[]): Promise<Array<Record<string, unknown>>> {
  const { stdout } = await exec(process.execPath, [CLI, ...args]);
  return stdout.split("\n").filter(Boolean).map((line) => JSON.parse(line) as Record<string, unknown>);
}

describe("replay", () => {
  it("finds the ID in a recording exactly as `sessionpin replay --json` does", async () => {
    const result = await replay(await openSource(STREAM, "auto"), { plugins: builtIn });
    const expected = JSON.parse(readFileSync(join(ROOT, "fixtures/amp/stream-basic/expected.json"), "utf8")) as Record<string, unknown>;
    expect(result).toMatchObject({ format: "jsonl", ...expected, line: 4 });
    const [{ file: _file, ...fromCli } = {}] = await cliJson(["replay", "--json", STREAM]);
    expect(result).toEqual(fromCli);
  });

  it("takes the agent it is given", async () => {
    const result = await replay(await openSource(STREAM, "jsonl"), { agent: plugins.agents.claude, plugins: builtIn });
    expect(result).toMatchObject({ agent: "claude", id: null });
  });
});

describe("explain", () => {
  it("returns every trace event `sessionpin explain --json` prints, and the result", async () => {
    const { result, events } = await explain(await openSource(LOOKALIKES, "auto"), { agent: plugins.agents.amp, plugins: builtIn });
    expect(result).toMatchObject({ agent: "amp", id: "T-019e0cca-e3ed-7d15-83f7-57250ad2ae63", state: "confirmed" });
    expect(events.some((e) => e.outcome === "refused" && e.reason === "look-alike field")).toBe(true);
    const fromCli = (await cliJson(["explain", "--json", "--agent", "amp", LOOKALIKES])).map(({ file: _file, ...event }) => event);
    expect(events).toEqual(fromCli);
    expect(sessionpin.formatTrace(events[0] as sessionpin.TraceEvent, false)).toMatch(/^L1 b0\s+taken {4}amp\//);
  });
});

describe("readPointer", () => {
  it("reads back what writePointer wrote, and says when there is none", async () => {
    dir = mkdtempSync(join(tmpdir(), "sessionpin-index-"));
    const path = resolvePointerPath({ env: {}, agent: "amp", cwd: dir, home: dir });
    expect(await readPointer(path)).toEqual({ kind: "missing" });
    const pointer: Pointer = {
      version: sessionpin.POINTER_VERSION, agent: "amp", id: "T-019c479a-39cc-72af-a2d1-65a965c076ec", state: "confirmed", cwd: dir,
      capturedAt: "2026-11-22T21:38:58.282Z", confirmedAt: "2026-11-22T21:38:58.282Z", source: { rule: "threads-new" }, history: [],
    };
    await writePointer(path, pointer);
    expect(await readPointer(path)).toEqual({ kind: "ok", pointer });
  });
});

describe("plugins", () => {
  it("looks plugins up by name and by executable, and defines new ones from data", () => {
    expect(plugins.pluginNamed("amp")).toBe(plugins.agents.amp);
    expect(plugins.pluginNamed("cursor-agent")?.name).toBe("cursor");
    expect(plugins.pluginForCommand("/usr/local/bin/claude")).toBe(plugins.agents.claude);
    expect(plugins.pluginForCommand("vim")).toBeUndefined();
    expect(sessionpin.pluginNamed).toBe(plugins.pluginNamed);
    expect(Object.keys(plugins.agents)).toContain("goose");

    const acme = definePlugin({ name: "acme", names: ["acme"], grammar: "acme-[0-9]+", text: [{ name: "banner", pattern: "session: (?<id>acme-[0-9]+)", state: "confirmed" }], resume: ["{args}", "--resume", "{id}"] });
    expect(acme.grammar.test("acme-42")).toBe(true);
    expect(plugins.pluginForCommand("acme", [acme])).toBe(acme);
    // Data from outside goes through the schema: definePlugin trusts its typed input.
    expect(sessionpin.parsePlugin({ name: "Bad Name", names: ["x"], grammar: "x", resume: ["{id}"] })).toEqual({ problems: [expect.stringMatching(/^field name: lowercase/)] });
    expect(sessionpin.parsePlugin(JSON.parse(JSON.stringify({ name: "acme", names: ["acme"], grammar: "acme-[0-9]+", resume: ["{id}"] })))).toHaveProperty("plugin.name", "acme");
  });
});

describe("run and the rest of the surface", () => {
  it("exports the session runner as run, and the error class with its exit codes", () => {
    expect(run).toBe(runSession);
    expect(typeof sessionpin.OuterTerminal).toBe("function");
    expect(sessionpin.EXIT.locked).toBe(75);
    expect(new sessionpin.SessionpinError("usage", "x").exitCode).toBe(2);
  });

  it("package.json exports the built index with its declarations", () => {
    const pkg = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { exports: Record<string, Record<string, string>> };
    expect(pkg.exports["."]).toEqual({ types: "./dist/index.d.ts", default: "./dist/index.js" });
  });

  it("the built package root loads and has the same names", async () => {
    const built = (await import(join(ROOT, "dist/index.js"))) as Record<string, unknown>;
    expect(Object.keys(built).sort()).toEqual(Object.keys(sessionpin).sort());
  });
});
