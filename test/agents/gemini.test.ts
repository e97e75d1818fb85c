import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { Extractor } from "../../src/engine/extract.js";
import { gemini } from "../../src/agents/gemini.js";
import { judgeLine, matchesAny } from "../../src/engine/match.js";
import { captureAll } from "../../src/engine/capture/pipeline.js";

const ID = "d5c83334-48c4-40cb-941e-c6ade6ee8c8a";
const FRESH = "9ca906aa-a771-42ef-bd10-d5a75d7b5502";
const FIXTURES = join(import.meta.dirname, "../../fixtures/gemini");

describe("gemini argv", () => {
  it("names a new session up front with --session-id, unless the command already picks one", () => {
    expect(gemini.chooseId?.([], FRESH)).toEqual({ id: FRESH, args: ["--session-id", FRESH] });
    expect(gemini.chooseId?.(["-m", "flash", "-i", "fix it"], FRESH)).toEqual({
      id: FRESH, args: ["-m", "flash", "-i", "fix it", "--session-id", FRESH],
    });
    // Never after `--`, where it would be read as prompt text.
    expect(gemini.chooseId?.(["-m", "pro", "--", "-p is not a flag here"], FRESH)?.args).toEqual([
      "-m", "pro", "--session-id", FRESH, "--", "-p is not a flag here",
    ]);
    for (const own of [["--session-id", ID], ["--session-id=mine"], ["--resume", ID], ["-r"], ["-r", "latest"]]) {
      expect(gemini.chooseId?.(own, FRESH)).toBeUndefined();
    }
  });

  it("resumes with --resume <id>, dropping every prompt form and any session choice of its own", () => {
    expect(gemini.warmArgs([], ID)).toEqual(["--resume", ID]);
    expect(gemini.warmArgs(["-m", "gemini-2.5-pro", "-p", "fix the build", "-o", "stream-json"], ID)).toEqual([
      "-m", "gemini-2.5-pro", "-o", "stream-json", "--resume", ID,
    ]);
    expect(gemini.warmArgs(["--prompt-interactive", "fix it", "--approval-mode=yolo", "--session-id", FRESH], ID)).toEqual([
      "--approval-mode=yolo", "--resume", ID,
    ]);
    expect(gemini.warmArgs(["--prompt=fix it", "-i", "x", "--include-directories", "../lib", "explain", "this"], ID)).toEqual([
      "--include-directories", "../lib", "--resume", ID,
    ]);
    // An old `-r latest` / `--resume 3` is replaced, never doubled.
    expect(gemini.warmArgs(["-r", "latest", "-y"], ID)).toEqual(["-y", "--resume", ID]);
    expect(gemini.warmArgs(["--resume", "3", "--", "-not a flag"], ID)).toEqual(["--resume", ID]);
  });

  it("types the prompt into the TUI unless the command carries its own", () => {
    expect(gemini.coldArgs(["-m", "flash"], "fix it")).toEqual({ args: ["-m", "flash"], promptVia: "pty" });
    expect(gemini.coldArgs(["-p", "own"], "fix it")).toEqual({ args: ["-p", "own"], promptVia: "none" });
    expect(gemini.coldArgs(["-i", "own"], "fix it")).toEqual({ args: ["-i", "own"], promptVia: "none" });
    expect(gemini.coldArgs(["explain", "this"], "fix it")).toEqual({ args: ["explain", "this"], promptVia: "none" });
    // A value is not a positional prompt.
    expect(gemini.coldArgs(["-m", "flash", "-o", "json"], "fix it").promptVia).toBe("pty");
  });

  it("runs subcommands and session listings transparently", () => {
    expect(gemini.passthrough?.(["mcp", "list"])).toMatch(/subcommand/);
    expect(gemini.passthrough?.(["extensions", "install", "x"])).toMatch(/subcommand/);
    expect(gemini.passthrough?.(["--list-sessions"])).toMatch(/starts no conversation/);
    expect(gemini.passthrough?.(["--delete-session", "2"])).toMatch(/starts no conversation/);
    expect(gemini.passthrough?.(["-v"])).toBeDefined();
    expect(gemini.passthrough?.(["update the docs"])).toBeUndefined();
    expect(gemini.passthrough?.(["-m", "mcp"])).toBeUndefined();
    expect(gemini.passthrough?.([])).toBeUndefined();
  });
});

describe("gemini rules", () => {
  const json = (value: Record<string, unknown>) => ({ n: 1, text: JSON.stringify(value), json: value });
  const text = (value: string) => ({ n: 1, text: value });

  it("takes session_id from the init event only", () => {
    expect(judgeLine(gemini, json({ type: "init", timestamp: "t", session_id: ID, model: "m" }))).toEqual([
      { kind: "taken", rule: "init", id: ID, state: "provisional" },
    ]);
    expect(judgeLine(gemini, json({ type: "result", status: "success", session_id: ID }))).toEqual([]);
    expect(judgeLine(gemini, json({ session_id: ID, error: { code: 41 } }))).toEqual([]);
    expect(judgeLine(gemini, json({ type: "init", session_id: ID.toUpperCase() }))).toEqual([
      { kind: "refused", rule: "init", reason: "grammar", value: ID.toUpperCase() },
    ]);
  });

  it("reads the exit box's Session ID row and resume hint, with or without a space or a border", () => {
    const taken = [{ kind: "taken", rule: "exit-box", id: ID, state: "provisional" }];
    expect(judgeLine(gemini, text(`│  Session ID:                 ${ID}  │`))).toEqual(taken);
    expect(judgeLine(gemini, text(`│  To resume this session: gemini --resume ${ID}  │`))).toEqual(taken);
    // Claude-style glued screen text after the ID does not hide it.
    expect(judgeLine(gemini, text(`To resume this session: gemini --resume ${ID}REPL`))).toEqual(taken);
    // A full 67-column row is joined to the next without a space.
    const before = { text: "│  To resume this session: gemini --resume                        │", fullRow: true };
    expect(judgeLine(gemini, text(`│  ${ID}                           │`), before)).toEqual(taken);
  });

  it("never takes an unlabelled UUID, a name, or the old footer without an ID", () => {
    for (const line of [
      `The build ${ID} failed`, "Tip: Resume a previous session using gemini --resume or /resume",
      "Session ID:                 my-feature-branch", "gemini --resume latest", `gemini -r ${ID}`,
      `session_id ${ID}`,
    ]) {
      expect(judgeLine(gemini, text(line)).filter((v) => v.kind === "taken")).toEqual([]);
    }
  });

  it("at agentapi's 67 columns, takes the ID from the hard-wrapped Session ID row already", async () => {
    const extractor = new Extractor(gemini, undefined, 67);
    const lines = await captureAll([readFileSync(join(FIXTURES, "tui-exit-box-67", "input.txt"))]);
    const first = lines.map((line) => ({ line, taken: extractor.line(line).verdicts.filter((v) => v.kind === "taken") }))
      .find(({ taken }) => taken.length > 0);
    expect(first?.line.text).toMatch(/^│\s+c8a\s+│$/);
    expect(extractor.tracker.current).toMatchObject({ id: ID, state: "provisional", rule: "exit-box" });
  });

  it("knows Gemini's refusal of an ID from a failure that says nothing about it", () => {
    expect(matchesAny(gemini.rejected, `Error resuming session: Invalid session identifier "${ID}".`)).toBe(true);
    expect(matchesAny(gemini.rejected, "Error resuming session: No previous sessions found for this project.")).toBe(true);
    expect(matchesAny(gemini.rejected, "Tip: Resume a previous session using gemini --resume or /resume")).toBe(false);
    const auth = "Please set an Auth method in your /home/u/.gemini/settings.json or specify one of the following environment variables before running: GEMINI_API_KEY";
    expect(matchesAny(gemini.transient, auth)).toBe(true);
    expect(matchesAny(gemini.rejected, auth)).toBe(false);
  });
});

describe("gemini session store", () => {
  const store = gemini.store!;

  it("looks in ~/.gemini/tmp/<project>/chats, or under GEMINI_CLI_HOME", () => {
    const now = new Date();
    expect(store.where({ home: "/home/u", cwd: "/w", env: {} }, now)).toEqual([{ dir: "/home/u/.gemini/tmp", depth: 2 }]);
    expect(store.where({ home: "/home/u", cwd: "/w", env: { GEMINI_CLI_HOME: "/g" } }, now)).toEqual([{ dir: "/g/.gemini/tmp", depth: 2 }]);
  });

  it("reads the first 8 characters of the ID from a session file name, to confirm only", () => {
    expect(store.wholeId).toBe(false);
    expect(store.name.exec("session-2026-02-22T10-31-d5c83334.jsonl")?.groups?.["id"]).toBe("d5c83334");
    expect(store.name.exec("session-2025-11-02T09-15-d5c83334.json")?.groups?.["id"]).toBe("d5c83334");
    for (const other of ["logs.json", `${ID}.jsonl`, "checkpoint-d5c83334.json", "session-d5c83334.jsonl.tmp", "chats"]) {
      expect(store.name.exec(other)).toBeNull();
    }
  });
});
