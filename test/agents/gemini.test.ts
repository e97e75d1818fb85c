import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { Extractor } from "../../src/engine/extract.js";
import { gemini } from "../../src/agents/gemini.js";
import { judgeLine, matchesAny } from "../../src/engine/match.js";
import { captureAll } from "../../src/engine/capture/pipeline.js";
import { itSaysKinds } from "./kinds.js";

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
    expect(gemini.warmArgs(["--prompt-interactive", "fix it", "--approval-mode=yolo", "--session-id", FRESH], ID)).toEqual([
      "--approval-mode=yolo", "--resume", ID,
    ]);
    // `-i` with a positional: interactive, so the TUI resumes.
    expect(gemini.warmArgs(["-i", "x", "--include-directories", "../lib", "explain", "this"], ID)).toEqual([
      "--include-directories", "../lib", "--resume", ID,
    ]);
    // An old `-r latest` / `--resume 3` is replaced, never doubled.
    expect(gemini.warmArgs(["-r", "latest", "-y"], ID)).toEqual(["-y", "--resume", ID]);
  });

  it("keeps a one-shot command one-shot: `-p \"\"`, filled from --resume-prompt by coldArgs", () => {
    // 0.61 runs `-p MSG` and a positional prompt (without -i) headless even in a PTY; without the
    // `-p` the warm start would open a TUI nobody types into.
    expect(gemini.warmArgs(["-m", "gemini-2.5-pro", "-p", "fix the build", "-o", "stream-json"], ID)).toEqual([
      "-m", "gemini-2.5-pro", "-o", "stream-json", "--resume", ID, "-p", "",
    ]);
    expect(gemini.warmArgs(["--prompt=fix it", "--include-directories", "../lib"], ID)).toEqual([
      "--include-directories", "../lib", "--resume", ID, "-p", "",
    ]);
    expect(gemini.warmArgs(["explain", "this"], ID)).toEqual(["--resume", ID, "-p", ""]);
    expect(gemini.warmArgs(["--resume", "3", "--", "-not a flag"], ID)).toEqual(["--resume", ID, "-p", ""]);
    // The headless resume 0.61 runs: `gemini --resume <id> -p MSG`.
    const warm = gemini.warmArgs(["-p", "fix the build", "-o", "stream-json"], ID);
    expect(gemini.coldArgs(warm, "which word?")).toEqual({ args: ["-o", "stream-json", "--resume", ID, "-p", "which word?"], promptVia: "argv" });
    // Always `-p MSG`: 0.61 treats `--prompt=MSG` differently (see coldArgs).
    expect(gemini.coldArgs(["--prompt=", "--resume", ID], "go on")).toEqual({ args: ["-p", "go on", "--resume", ID], promptVia: "argv" });
    // Without a message the empty `-p` stays: 0.61 then exits 42 "No input provided via stdin." (transient).
    expect(gemini.coldArgs(warm, undefined)).toEqual({ args: warm, promptVia: "pty" });
  });

  it("hands the TUI the prompt as --prompt-interactive=… unless the command carries its own", () => {
    // Typed in, 0.61 loses it when it reads the Enter within 40 ms of the paste (a newline then).
    expect(gemini.coldArgs(["-m", "flash"], "fix it")).toEqual({ args: ["-m", "flash", "--prompt-interactive=fix it"], promptVia: "argv" });
    expect(gemini.coldArgs(["-m", "flash"], "-v is not a flag")).toEqual({ args: ["-m", "flash", "--prompt-interactive=-v is not a flag"], promptVia: "argv" });
    expect(gemini.coldArgs(["-m", "flash"], undefined)).toEqual({ args: ["-m", "flash"], promptVia: "pty" });
    expect(gemini.coldArgs(["-p", "own"], "fix it")).toEqual({ args: ["-p", "own"], promptVia: "none" });
    expect(gemini.coldArgs(["-i", "own"], "fix it")).toEqual({ args: ["-i", "own"], promptVia: "none" });
    expect(gemini.coldArgs(["explain", "this"], "fix it")).toEqual({ args: ["explain", "this"], promptVia: "none" });
    // A value is not a positional prompt.
    expect(gemini.coldArgs(["-m", "flash", "-o", "json"], "fix it").promptVia).toBe("argv");
    // A warm TUI start with --resume-prompt types it: with --resume, 0.61 may send an
    // --prompt-interactive message before the session's history is loaded.
    expect(gemini.coldArgs(gemini.warmArgs(["-m", "flash"], ID), "go on")).toEqual({ args: ["-m", "flash", "--resume", ID], promptVia: "pty" });
  });

});

describe("gemini kinds of invocation", () => {
  itSaysKinds(gemini, {
    none: [
      ["--version"], ["-v"], ["--help"], ["-h"], ["mcp", "list"], ["extensions", "install", "x"], ["skill", "list"],
      ["--list-sessions"], ["--delete-session", "2"], ["-l"],
    ],
    unpinned: [["--acp"], ["--experimental-acp", "-m", "flash"]],
    caller: [
      [["--resume", ID], { id: ID, via: `--resume ${ID}` }],
      [["-r", ID, "-p", "go on", "-o", "stream-json"], { id: ID, via: `-r ${ID}` }],
      [["-r", "latest"], { via: "-r latest" }],
      [["--resume", "5"], { via: "--resume 5" }],
      [["--resume"], { via: "--resume" }],
      [["--resume", ID.slice(0, 8)], { via: `--resume ${ID.slice(0, 8)}` }],
      [["--session-file", "chat.json"], { via: "--session-file chat.json" }],
    ],
    pinned: [[], ["update the docs"], ["-m", "mcp"], ["resume the work"], ["-m", "resume"], ["-p", "--resume"], ["--session-id", ID]],
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

  it("at agentapi's 67 columns, takes the ID from the hard-wrapped Session ID row already (real 0.61.0 /quit box)", async () => {
    // 0.61.0 puts the value at column 29 and breaks the UUID after 35 characters.
    const real = "aac5cd4c-90be-48b3-8da1-402f41c34933";
    const extractor = new Extractor(gemini, undefined, 67);
    const lines = captureAll([readFileSync(join(FIXTURES, "tui-0.61-quit-box-67", "input.txt"))]);
    const first = lines.map((line) => ({ line, taken: extractor.line(line).verdicts.filter((v) => v.kind === "taken") }))
      .find(({ taken }) => taken.length > 0);
    expect(first?.line.text).toMatch(/^│\s+3\s+│$/);
    expect(extractor.tracker.current).toMatchObject({ id: real, state: "provisional", rule: "exit-box" });
  });

  it("knows Gemini's refusal of an ID from a failure that says nothing about it", () => {
    expect(matchesAny(gemini.rejected, `Error resuming session: Invalid session identifier "${ID}".`)).toBe(true);
    expect(matchesAny(gemini.rejected, "Error resuming session: No previous sessions found for this project.")).toBe(true);
    expect(matchesAny(gemini.rejected, "Tip: Resume a previous session using gemini --resume or /resume")).toBe(false);
    // Texts of 0.61.0, seen by test/interop/gemini.interop.ts.
    const transient = [
      "Invalid auth method selected.",
      "Please set an Auth method in your /home/u/.gemini/settings.json or specify one of the following environment variables before running: GEMINI_API_KEY",
      "Gemini CLI is not running in a trusted directory. To proceed, either use `--skip-trust`, set the `GEMINI_CLI_TRUST_WORKSPACE=true` environment variable, or trust this directory in interactive mode.",
      "No input provided via stdin. Input can be provided by piping data into gemini or using the --prompt option.",
      'Error when talking to Gemini API Full report available at: /tmp/gemini-client-error-Turn.run-sendMessageStream-2026-11-25T20-19-52-329Z.json _ApiError: {"error":{"code":401,"message":"API key not valid","status":"UNAUTHENTICATED"}}',
      "Attempt 1 failed. Retrying with backoff... Error: exception TypeError: fetch failed sending request",
    ];
    for (const line of transient) {
      expect(matchesAny(gemini.transient, line), line).toBe(true);
      expect(matchesAny(gemini.rejected, line), line).toBe(false);
    }
    // A session that merely mentions the words is not an auth failure.
    expect(matchesAny(gemini.transient, "Invalid auth method selected")).toBe(false);
  });
});

describe("gemini session store", () => {
  const store = gemini.store!;

  it("looks only in this cwd's chats folder: ~/.gemini/tmp/<slug>/chats, the slug from projects.json, else the basename's", () => {
    const now = new Date();
    const home = mkdtempSync(join(tmpdir(), "gemini-store-"));
    try {
      // No registry yet (before 0.61's first run in the folder): the slug it will claim.
      expect(store.where({ home, cwd: "/w/My Project_2", env: {} }, now)).toEqual([{ dir: join(home, ".gemini/tmp/my-project-2/chats"), depth: 0 }]);
      expect(store.where({ home: "/h", cwd: "/w/proj", env: { GEMINI_CLI_HOME: "/g" } }, now)).toEqual([{ dir: "/g/.gemini/tmp/proj/chats", depth: 0 }]);
      expect(store.where({ home, cwd: "/", env: {} }, now)).toEqual([{ dir: join(home, ".gemini/tmp/project/chats"), depth: 0 }]);
      // A second folder with the same basename got `proj-1`: only projects.json tells.
      mkdirSync(join(home, ".gemini"), { recursive: true });
      writeFileSync(join(home, ".gemini", "projects.json"), JSON.stringify({ projects: { "/a/proj": "proj", "/b/proj": "proj-1", "/c/x": "../escape" } }));
      expect(store.where({ home, cwd: "/b/proj", env: {} }, now)).toEqual([{ dir: join(home, ".gemini/tmp/proj-1/chats"), depth: 0 }]);
      expect(store.where({ home, cwd: "/a/proj", env: {} }, now)).toEqual([{ dir: join(home, ".gemini/tmp/proj/chats"), depth: 0 }]);
      expect(store.where({ home, cwd: "/c/x", env: {} }, now)).toEqual([{ dir: join(home, ".gemini/tmp/x/chats"), depth: 0 }]);
      // A registry being rewritten (not JSON) does not throw.
      writeFileSync(join(home, ".gemini", "projects.json"), "{\"projects\":");
      expect(store.where({ home, cwd: "/b/proj", env: {} }, now)).toEqual([{ dir: join(home, ".gemini/tmp/proj/chats"), depth: 0 }]);
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
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
