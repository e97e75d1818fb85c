import { execFile, spawn, spawnSync } from "node:child_process";
import { once } from "node:events";
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync, writeSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterEach, describe, expect, it } from "vitest";
import { PtyDriver } from "../../src/pty/driver.js";
import { seeded } from "../helpers/random.js";
import { CLI, ROOT } from "../helpers/sandbox.js";
import { lookAlikeRuns, transcript } from "../helpers/transcript.js";

const FIXTURES = join(ROOT, "fixtures");
const exec = promisify(execFile);
let dir = "";
afterEach(() => dir && rmSync(dir, { recursive: true, force: true }));
const temp = (): string => (dir = mkdtempSync(join(tmpdir(), "sessionpin-replay-")));

/** `sessionpin <args>`: exit code and stdout lines (as JSON when they are). */
async function cli(args: string[], input?: string): Promise<{ code: number; lines: string[]; json: Array<Record<string, unknown>> }> {
  const child = exec(process.execPath, [CLI, ...args], { maxBuffer: 64 * 1024 * 1024 });
  if (input !== undefined) child.child.stdin?.end(input);
  const done = await child.then((r) => ({ code: 0, stdout: r.stdout }), (e: { code: number; stdout: string }) => ({ code: e.code, stdout: e.stdout }));
  const lines = done.stdout.split("\n").filter(Boolean);
  return { code: done.code, lines, json: lines.flatMap((l) => (l.startsWith("{") ? [JSON.parse(l) as Record<string, unknown>] : [])) };
}

/** `sessionpin <args>` read as `| head -1` reads it: the pipe is closed after the first line. */
async function firstLineOnly(args: string[]): Promise<{ first: string; code: number | null; signal: NodeJS.Signals | null; stderr: string }> {
  const child = spawn(process.execPath, [CLI, ...args], { stdio: ["ignore", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk: Buffer) => {
    stdout += chunk.toString();
    if (stdout.includes("\n")) child.stdout.destroy();
  });
  child.stderr.on("data", (chunk: Buffer) => void (stderr += chunk.toString()));
  const [code, signal] = (await once(child, "close")) as [number | null, NodeJS.Signals | null];
  return { first: stdout.split("\n", 1)[0] ?? "", code, signal, stderr };
}

const expected = (path: string): Record<string, unknown> => JSON.parse(readFileSync(join(FIXTURES, path, "expected.json"), "utf8"));

describe("replay", () => {
  it("reads JSONL and raw terminal bytes, guessing the agent, and reports line and byte offset", async () => {
    const jsonl = await cli(["replay", "--json", join(FIXTURES, "amp/stream-basic/input.jsonl")]);
    expect(jsonl.code).toBe(0);
    expect(jsonl.json[0]).toMatchObject({ format: "jsonl", agent: "amp", ...pick(expected("amp/stream-basic")), line: 4 });
    const raw = await cli(["replay", "--json", join(FIXTURES, "amp/stream-warnings-before-init/input.jsonl")]);
    expect(raw.json[0]).toMatchObject({ format: "raw", agent: "amp", ...pick(expected("amp/stream-warnings-before-init")) });
    const bytes = readFileSync(join(FIXTURES, "amp/stream-basic/input.jsonl"));
    const lastLine = bytes.subarray(0, -1).lastIndexOf(0x0a) + 1;
    expect(jsonl.json[0]?.["offset"]).toBe(lastLine);
  });

  it("reads an asciicast, takes the agent from its command and the time from its events", async () => {
    const cast = join(temp(), "run.cast");
    const lines = readFileSync(join(FIXTURES, "amp/stream-basic/input.jsonl"), "utf8").split(/(?<=\n)/);
    writeFileSync(cast, [
      JSON.stringify({ version: 2, width: 67, height: 1190, command: "amp -x hi --stream-json" }),
      ...lines.map((line, i) => JSON.stringify([1.5 * (i + 1), "o", line.replace(/\n$/, "\r\n")])),
    ].join("\n") + "\n");
    const result = await cli(["replay", "--json", cast]);
    expect(result.json[0]).toMatchObject({ format: "cast", agent: "amp", ...pick(expected("amp/stream-basic")), time: 1.5 * lines.length });
  });

  it("reads a cast cut off mid-event (a killed run) up to its last whole event", async () => {
    const cast = join(temp(), "cut.cast");
    const lines = readFileSync(join(FIXTURES, "amp/stream-basic/input.jsonl"), "utf8").trimEnd().split("\n");
    const whole = [JSON.stringify({ version: 2, width: 80, height: 24 }), ...lines.map((l, i) => JSON.stringify([i, "o", `${l}\r\n`]))].join("\n");
    writeFileSync(cast, whole.slice(0, whole.length - 40));
    const result = await cli(["replay", "--json", "--agent", "amp", cast]);
    expect(result.code).toBe(0);
    expect(result.json[0]).toMatchObject({ id: expected("amp/stream-basic")["id"], state: "provisional", rule: "system-init" });
  });

  it("reads agentapi's state file, and stdin", async () => {
    const state = join(FIXTURES, "agentapi-state/acme-exit-hint/state.json");
    const plugin = join(FIXTURES, "plugins/acme.json");
    const fromFile = await cli(["replay", "--json", "--plugin", plugin, state]);
    expect(fromFile.json[0]).toMatchObject({ format: "agentapi-state", agent: "acme", id: "acme-5e1f0c2a", state: "confirmed", rule: "turn", time: 7.3 });
    const fromStdin = await cli(["replay", "--json", "--plugin", plugin, "-"], readFileSync(state, "utf8"));
    expect(fromStdin.json[0]).toMatchObject({ file: "-", id: "acme-5e1f0c2a" });
  });

  it("ends quietly, exit 0, when its reader goes away, and says in one line when the output cannot be written", async () => {
    const fixture = join(FIXTURES, "amp/stream-basic/input.jsonl");
    const big = join(temp(), "big.jsonl");
    writeFileSync(big, readFileSync(fixture, "utf8").repeat(2000));
    const explained = await firstLineOnly(["explain", "--agent", "amp", big]);
    expect(explained).toMatchObject({ first: expect.stringMatching(/^L1 b0 +taken/) as unknown, code: 0, signal: null, stderr: "" });
    // With threads (--jobs), replay waits for them between files, and a failed write is reported
    // there; on one thread a small file is read without such a wait.
    const replayed = await firstLineOnly(["replay", "--agent", "amp", "--jobs", "2", ...Array<string>(20).fill(fixture)]);
    expect(replayed).toMatchObject({ first: expect.stringContaining(`${fixture}: amp T-`) as unknown, code: 0, signal: null, stderr: "" });
    const full = openSync("/dev/full", "w");
    try {
      const result = spawnSync(process.execPath, [CLI, "explain", "--agent", "amp", big], { stdio: ["ignore", full, "pipe"], encoding: "utf8" });
      expect([result.status, result.stderr]).toEqual([1, "sessionpin: cannot write the output: no space left on the device\n"]);
    } finally {
      closeSync(full);
    }
  });

  it("exits 1 when no ID is found and 2 on a missing file or bad flag", async () => {
    expect((await cli(["replay", join(FIXTURES, "amp/tui-only/input.txt")])).code).toBe(1);
    expect((await cli(["replay", join(temp(), "missing.cast")])).code).toBe(2);
    expect((await cli(["replay", "--format", "mp4", "x"])).code).toBe(2);
    expect((await cli(["replay", "--jobs", "0", "x"])).code).toBe(2);
  });

  it("replays every other file when one cannot be read: one line names it, exit 2", async () => {
    const missing = join(temp(), "missing.cast");
    const files = [join(FIXTURES, "amp/stream-basic/input.jsonl"), missing, dir, join(FIXTURES, "amp/lookalikes/input.jsonl")];
    for (const command of ["replay", "explain"]) {
      const done = await exec(process.execPath, [CLI, command, "--json", ...files]).then(() => undefined, (e: { code: number; stdout: string; stderr: string }) => e);
      expect(done?.code).toBe(2);
      expect(done?.stderr).toBe(`sessionpin: cannot read ${missing}: no such file or folder\nsessionpin: cannot read ${dir}: is a folder\n`);
      const lines = done?.stdout.split("\n").filter(Boolean).map((l) => JSON.parse(l) as Record<string, unknown>) ?? [];
      expect([...new Set(lines.map((l) => l["file"]))]).toEqual([files[0], files[3]]);
    }
    const results = (await cli(["replay", "--json", ...files])).json;
    expect(results.map((r) => [r["file"], r["id"]])).toEqual([[files[0], expected("amp/stream-basic")["id"]], [files[3], expected("amp/lookalikes")["id"]]]);
  });

  it("takes its progress line off the terminal before the result line, which starts a clean row", async () => {
    // Over the 64 MiB from which a progress line shows; no --agent, so every plugin reads it: slow
    // enough (about a second here) for the progress line to be on the screen when the result comes.
    const big = join(temp(), "big.jsonl");
    const id = "T-019f4d5e-6f70-7a8b-9c0d-1e2f3a4b5c6d";
    const block = Buffer.from(`${JSON.stringify({ type: "assistant", session_id: id, message: { text: "step ".repeat(40) } })}\n\x1b[1;32m  building\x1b[0m module\x1b[2K\r progress\n`.repeat(200));
    const fd = openSync(big, "w");
    for (let written = 0; written < 70e6; written += block.length) writeSync(fd, block);
    writeSync(fd, `${JSON.stringify({ type: "result", subtype: "success", session_id: id })}\n`);
    closeSync(fd);
    const driver = new PtyDriver([process.execPath, CLI, "replay", big], { cols: 300, rows: 24 });
    expect((await driver.exited).exitCode).toBe(0);
    const screen = driver.output.toString("utf8");
    const rows = screenRows(screen);
    const result = rows.find((row) => row.includes(id));
    expect(result).toMatch(new RegExp(`^${big}: amp ${id} confirmed \\(rule result, `));
    // Nothing of the progress line is left, and it was shown.
    expect(rows.filter((row) => row.includes("%"))).toEqual([]);
    expect(screen).toMatch(/big\.jsonl: \d+% \(\d+ of 70 MB\)/);
  }, 60_000);

  it("reads a file with worker threads (--jobs) and reports what one thread reads", async () => {
    const random = seeded(5);
    const files = [0, 1, 2].map((i) => {
      const path = join(temp(), `big${i}.raw`);
      writeFileSync(path, transcript(random, 3_000_000, "T-"));
      return path;
    });
    const one = await cli(["replay", "--json", "--agent", "amp", "--jobs", "1", ...files]);
    const many = await cli(["replay", "--json", "--agent", "amp", "--jobs", "3", ...files]);
    expect(one.json).toHaveLength(3);
    for (const result of one.json) expect(result).toMatchObject({ agent: "amp", id: expect.stringMatching(/^T-/) });
    expect(many.json).toEqual(one.json);
    expect(many.code).toBe(one.code);
  });

  it("with worker threads, still finds a confirmation far below a line whose bytes look confirming", async () => {
    // An Amp run whose WebFetch output ends a worker's first 64 KiB read, its result three reads
    // later, then the log of a test run: the result falls in the first of two stretches.
    const run = lookAlikeRuns(seeded(7), [{ before: 64 * 1024, after: 3 * 64 * 1024 }]);
    const log = Buffer.from(Array.from({ length: 10_000 }, (_, k) => ` ✓ test/unit/case-${k}.test.ts (3 tests) ${k % 90} ms\n`).join(""));
    const path = join(temp(), "run.log");
    writeFileSync(path, Buffer.concat([run, log]));
    const one = await cli(["replay", "--json", "--agent", "amp", "--jobs", "1", path]);
    expect(one.json[0]).toMatchObject({ state: "confirmed", rule: "result", line: run.toString("latin1").split("\n").length - 1 });
    expect((await cli(["replay", "--json", "--agent", "amp", "--jobs", "2", path])).json).toEqual(one.json);
  });

  it("takes an up-front marker for the plugin whose rule it names, and never an appended recording's marker of the command", async () => {
    const cast = join(temp(), "run.cast");
    const thread = "T-0f3c2a9e-5b7d-4e21-9c4a-8d6f1e2b3a40";
    const header = JSON.stringify({ version: 2, width: 80, height: 24 });
    writeFileSync(cast, `${[header, JSON.stringify([0.1, "m", "sessionpin: pi implement_login_flow1"]), JSON.stringify([0.2, "o", "hello\r\n"])].join("\n")}\n`);
    expect((await cli(["replay", "--json", "--agent", "pi", cast])).code).toBe(1);
    writeFileSync(cast, `${[header, JSON.stringify([0.1, "m", `sessionpin: threads-new ${thread}`])].join("\n")}\n`);
    const amp = await cli(["replay", "--json", "--agent", "amp", cast]);
    expect([amp.code, amp.json[0]?.["id"]]).toEqual([0, thread]);
  });

  it("names no line for an ID a marker gave, only its time", async () => {
    const cast = join(temp(), "run.cast");
    const thread = "T-0f3c2a9e-5b7d-4e21-9c4a-8d6f1e2b3a40";
    writeFileSync(cast, `${[JSON.stringify({ version: 2, width: 80, height: 24 }), JSON.stringify([0.0, "m", `sessionpin: threads-new ${thread}`])].join("\n")}\n`);
    const { code, lines } = await cli(["replay", "--agent", "amp", cast]);
    expect([code, lines]).toEqual([0, [`${cast}: amp ${thread} confirmed (rule threads-new, 0.00 s into the recording; cast)`]]);
  });
});

describe("explain", () => {
  const reasons = async (args: string[]): Promise<Array<Record<string, unknown>>> => (await cli(["explain", "--json", ...args])).json;

  it("shows grammar mismatches, look-alike fields and the taken ID", async () => {
    const bad = await reasons(["--agent", "amp", join(FIXTURES, "amp/bad-grammar/input.jsonl")]);
    // Every session_id of the fixture is refused: shell metacharacters, a leading dash, wrong case…
    const sessionIds = readFileSync(join(FIXTURES, "amp/bad-grammar/input.jsonl"), "utf8").split("\n").filter(Boolean)
      .map((line) => (JSON.parse(line) as { session_id: unknown }).session_id);
    const refused = bad.filter((e) => e["reason"] === "grammar mismatch" || e["reason"] === "not a string").map((e) => e["value"]);
    expect(refused).toEqual(sessionIds.map((id) => (typeof id === "string" ? id : JSON.stringify(id))));
    expect(refused).toContain("T-019f5bde-8d0b-781f-8415-6f90b0c4bdbf; rm -rf ~");
    expect(bad.some((e) => e["outcome"] === "taken")).toBe(false);
    const look = await reasons(["--agent", "amp", join(FIXTURES, "amp/lookalikes/input.jsonl")]);
    expect(look).toContainEqual(expect.objectContaining({ outcome: "refused", reason: "look-alike field", rule: "session_id" }));
    expect(look).toContainEqual(expect.objectContaining({ outcome: "taken", rule: "result", value: expected("amp/lookalikes")["id"] }));
  });

  it("shows an ID superseded by a later one, and a cut JSON line", async () => {
    const fork = await reasons(["--agent", "amp", join(FIXTURES, "amp/fork-new-id/input.jsonl")]);
    const superseded = fork.find((e) => e["reason"] === "superseded by a later ID");
    expect(superseded).toMatchObject({ line: 3, detail: `${expected("amp/fork-new-id")["id"]} on line 4` });
    const cut = await reasons(["--agent", "amp", join(FIXTURES, "amp/truncated-json/input.jsonl")]);
    expect(cut).toContainEqual(expect.objectContaining({ line: 3, reason: "invalid JSON" }));
  });

  it("shows IDs another agent's rules would take as wrong agent, and overlong lines", async () => {
    const wrong = await reasons(["--agent", "aider", join(FIXTURES, "amp/stream-basic/input.jsonl")]);
    expect(wrong).toContainEqual(expect.objectContaining({ plugin: "amp", rule: "result", reason: "wrong agent" }));
    const long = join(temp(), "long.txt");
    writeFileSync(long, `start\n${"x".repeat(2 * 1024 * 1024)}\nend\n`);
    expect(await reasons(["--agent", "amp", long])).toContainEqual(expect.objectContaining({ line: 2, reason: "line too long" }));
  });

  it("prints people a line per event with the rule and outcome", async () => {
    const { lines } = await cli(["explain", "--agent", "amp", join(FIXTURES, "amp/stream-basic/input.jsonl")]);
    expect(lines[0]).toMatch(/^L1 b0 +taken +amp\/system-init +provisional +T-[0-9a-f-]{36} +│ \{"type":"system"/);
  });
});

/** What a terminal shows of `text`, row by row: CR returns to column 0, ESC[K erases to the end. */
function screenRows(text: string): string[] {
  return text.split("\n").map((raw) => {
    let row = "";
    let column = 0;
    for (const part of raw.split(/(\r|\x1b\[K)/)) {
      if (part === "\r") column = 0;
      else if (part === "\x1b[K") row = row.slice(0, column);
      else {
        row = row.slice(0, column) + part + row.slice(column + part.length);
        column += part.length;
      }
    }
    return row;
  });
}

function pick(e: Record<string, unknown>): Record<string, unknown> {
  return { id: e["id"], state: e["state"], rule: e["rule"] };
}
