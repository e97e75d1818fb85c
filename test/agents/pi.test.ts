import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { judgeLine, matchesAny, type Verdict } from "../../src/engine/match.js";
import { pi, piSessionDir } from "../../src/agents/pi.js";
import { pluginForCommand, pluginNamed } from "../../src/agents/registry.js";
import { itSaysKinds } from "./kinds.js";

const ID = "01a2146c-39fd-7693-b02b-2fd75dc63855";
const OTHER = "019f3c88-0b14-7d29-a6e5-3f7c1b9d4e02";
const json = (o: Record<string, unknown>) => ({ n: 1, text: JSON.stringify(o), json: o });
const taken = (verdicts: Verdict[]) => verdicts.flatMap((v) => (v.kind === "taken" ? [[v.rule, v.id, v.state]] : []));

describe("pi plugin", () => {
  it("is built in, chosen by the `pi` executable", () => {
    expect(pluginForCommand("/usr/local/bin/pi")).toBe(pi);
    expect(pluginNamed("pi")).toBe(pi);
  });

  it("keeps one session folder per working folder under ~/.pi/agent/sessionpin, beside pi's own sessions root", () => {
    expect(piSessionDir({ home: "/home/coder", cwd: "/home/coder/project" })).toBe("/home/coder/.pi/agent/sessionpin/--home-coder-project--");
    expect(pi.store?.where({ home: "/h", cwd: "/w/p", env: {} }, new Date())).toEqual([{ dir: "/h/.pi/agent/sessionpin/--w-p--", depth: 0 }]);
  });
});

describe("pi argv (0.73.1)", () => {
  let dir: string;
  beforeEach(() => {
    vi.stubEnv("HOME", "/home/coder");
    dir = piSessionDir({ home: "/home/coder", cwd: process.cwd() });
  });
  afterEach(() => vi.unstubAllEnvs());

  it("gives a cold start its own --session-dir, first, and the prompt as pi's positional message", () => {
    expect(pi.coldArgs(["--model", "fake/m"], "do it")).toEqual({ args: ["--session-dir", dir, "--model", "fake/m", "do it"], promptVia: "argv" });
    expect(pi.coldArgs(["--mode", "json", "-p"], "do it")).toEqual({ args: ["--session-dir", dir, "--mode", "json", "-p", "do it"], promptVia: "argv" });
    expect(pi.coldArgs(["own task", "@notes.md"], "do it")).toEqual({ args: ["--session-dir", dir, "own task", "@notes.md"], promptVia: "none" });
    expect(pi.coldArgs(["-c", "--thinking", "high"], undefined)).toEqual({ args: ["--session-dir", dir, "--thinking", "high"], promptVia: "pty" });
    // 0.73.1 reads `--` as an extension flag that swallows the next word: such prompts are typed.
    expect(pi.coldArgs([], "-v is broken")).toEqual({ args: ["--session-dir", dir], promptVia: "pty" });
    expect(pi.coldArgs([], "@home is wrong")).toEqual({ args: ["--session-dir", dir], promptVia: "pty" });
    // A one-shot run reads nothing typed: one space in front makes 0.73.1 take it as the message.
    expect(pi.coldArgs(["-p"], "-v is broken")).toEqual({ args: ["--session-dir", dir, "-p", " -v is broken"], promptVia: "argv" });
    expect(pi.coldArgs(["--mode", "json"], "@home is wrong")).toEqual({ args: ["--session-dir", dir, "--mode", "json", " @home is wrong"], promptVia: "argv" });
    expect(pi.coldArgs(["-p", "--session-dir", dir, "--session", ID], "-which word?")).toEqual({ args: ["-p", "--session-dir", dir, "--session", ID, " -which word?"], promptVia: "argv" });
    expect(pi.coldArgs(["--session-dir", "/mine"], undefined)).toEqual({ args: ["--session-dir", "/mine"], promptVia: "pty" });
  });

  it("resumes with --session-dir <dir> --session <id>, without prompt, @files or other session picks", () => {
    expect(pi.warmArgs(["--model", "fake/m", "fix the bug", "@src/a.ts"], ID)).toEqual(["--model", "fake/m", "--session-dir", dir, "--session", ID]);
    expect(pi.warmArgs(["-c", "--mode", "json", "-p"], ID)).toEqual(["--mode", "json", "-p", "--session-dir", dir, "--session", ID]);
    expect(pi.warmArgs(["--session-dir", "/mine", "-t", "read,ls"], ID)).toEqual(["-t", "read,ls", "--session-dir", "/mine", "--session", ID]);
    // `--resume` takes no value in pi: the next word is a message, dropped with it.
    expect(pi.warmArgs(["-r", "hello"], ID)).toEqual(["--session-dir", dir, "--session", ID]);
  });

});

describe("pi kinds of invocation", () => {
  itSaysKinds(pi, {
    none: [
      ["--version"], ["-v"], ["--help"], ["-h"], ["install", "npm:x"], ["uninstall", "x"], ["config"], ["list"], ["--list-models"],
      ["--export", "s.jsonl"],
    ],
    unpinned: [["--mode", "rpc"], ["--no-session", "-p", "hi"]],
    caller: [
      [["--session", ID], { id: ID, via: `--session ${ID}` }],
      [["--mode", "json", "-p", "--session", ID, "go on"], { id: ID, via: `--session ${ID}` }],
      [["--session", ID.slice(0, 8)], { via: `--session ${ID.slice(0, 8)}` }], // a partial UUID
      [["--session", "/tmp/s.jsonl"], { via: "--session /tmp/s.jsonl" }],
      [["-c"], { via: "-c" }],
      [["--continue", "What did we discuss?"], { via: "--continue" }],
      [["-r"], { via: "-r" }], // a picker
      [["--fork", ID], { via: `--fork ${ID}` }], // a new session
    ],
    // A package command counts only as the very first argument.
    pinned: [[], ["fix the bug"], ["--model", "fake/m", "install the deps"], ["--mode", "json", "-p", "go"], ["resume the work"], ["--model", "resume"]],
  });
});

describe("pi rules (0.73.1)", () => {
  it("takes the id of the json-mode session header only, provisional", () => {
    expect(taken(judgeLine(pi, json({ type: "session", version: 3, id: ID, timestamp: "t", cwd: "/w" })))).toEqual([["session-header", ID, "provisional"]]);
    expect(judgeLine(pi, json({ type: "message", id: "a1b2c3d4", parentId: null, sessionId: OTHER }))).toEqual([]);
    expect(judgeLine(pi, json({ type: "agent_start" }))).toEqual([]);
    expect(judgeLine(pi, { n: 1, text: `session ${ID}` })).toEqual([]);
  });

  it("knows the rejection text, and the provider failures as transient", () => {
    expect(matchesAny(pi.rejected, `No session found matching '${ID}'`)).toBe(true);
    expect(matchesAny(pi.rejected, "No session found")).toBe(false);
    for (const text of ["401 fake chat API: refused", "Connection error.", "Request timed out."]) {
      expect(matchesAny(pi.transient, text), text).toBe(true);
      expect(matchesAny(pi.rejected, text), text).toBe(false);
    }
    for (const text of [`No session found matching '${ID}'`, "A connection error. Was it?", "FAKE-API: noted the word zebra."]) {
      expect(matchesAny(pi.transient, text), text).toBe(false);
    }
  });

  it("files sessions as <timestamp>_<id>.jsonl with the header on line 1", () => {
    const store = pi.store!;
    expect(store.name.exec(`2026-11-25T20-47-20-359Z_${ID}.jsonl`)?.groups?.["id"]).toBe(ID);
    expect(store.name.exec(`2026-11-25T20-47-20-359Z_${ID}.jsonl.tmp`)).toBeNull();
    // The head of a session file 0.73.1 wrote (cwd /tmp/ompx/fx/w).
    const real = readFileSync(join(import.meta.dirname, "../../fixtures/pi/session-file-0731.jsonl"), "utf8");
    expect(store.belongs?.(real, { home: "/h", cwd: "/tmp/ompx/fx/w", env: {} })).toBe(true);
    expect(store.belongs?.(real, { home: "/h", cwd: "/elsewhere", env: {} })).toBe(false);
    expect(store.belongs?.("", { home: "/h", cwd: "/tmp/ompx/fx/w", env: {} })).toBe(false);
  });
});
