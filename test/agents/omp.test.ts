import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { judgeLine, matchesAny, type Verdict } from "../../src/engine/match.js";
import { omp, ompSessionDir } from "../../src/agents/omp.js";
import { itSaysKinds } from "./kinds.js";

const ID = "019f3d10-5a2e-7c41-b8f3-6d0e9a2c7b15";
const NANOID = "k3Jd9_Qz7LmP2xWv-R8tY";
const OTHER = "019f3c88-0b14-7d29-a6e5-3f7c1b9d4e02";
const json = (o: Record<string, unknown>) => ({ n: 1, text: JSON.stringify(o), json: o });
const taken = (verdicts: Verdict[]) => verdicts.flatMap((v) => (v.kind === "taken" ? [[v.rule, v.id, v.state]] : []));

describe("omp session folder", () => {
  it("is one folder per working folder under ~/.omp/agent/sessionpin, outside omp's own sessions root", () => {
    expect(ompSessionDir({ home: "/home/coder", cwd: "/home/coder/project" })).toBe("/home/coder/.omp/agent/sessionpin/--home-coder-project--");
    expect(ompSessionDir({ home: "/h", cwd: "/srv/a:b/c" })).toBe("/h/.omp/agent/sessionpin/--srv-a-b-c--");
    expect(omp.store?.where({ home: "/h", cwd: "/w/p", env: {} }, new Date())).toEqual([{ dir: "/h/.omp/agent/sessionpin/--w-p--", depth: 0 }]);
  });
});

describe("omp argv", () => {
  let dir: string;
  beforeEach(() => {
    vi.stubEnv("HOME", "/home/coder");
    dir = ompSessionDir({ home: "/home/coder", cwd: process.cwd() });
  });
  afterEach(() => vi.unstubAllEnvs());

  it("gives a cold start its own --session-dir, first, and the prompt as omp's positional message", () => {
    expect(omp.coldArgs(["--model", "sonnet"], "do it")).toEqual({ args: ["--session-dir", dir, "--model", "sonnet", "do it"], promptVia: "argv" });
    expect(omp.coldArgs(["--mode", "json"], "-v is broken")).toEqual({ args: ["--session-dir", dir, "--mode", "json", "--", "-v is broken"], promptVia: "argv" });
    expect(omp.coldArgs(["own task", "@notes.md"], "do it")).toEqual({ args: ["--session-dir", dir, "own task", "@notes.md"], promptVia: "none" });
    expect(omp.coldArgs(["-c", "--model", "sonnet"], undefined)).toEqual({ args: ["--session-dir", dir, "--model", "sonnet"], promptVia: "pty" });
    // A folder the user chose stands.
    expect(omp.coldArgs(["--session-dir", "/mine"], undefined)).toEqual({ args: ["--session-dir", "/mine"], promptVia: "pty" });
  });

  it("resumes with --session-dir <dir> --session <id>, without prompt, @files or other session picks", () => {
    expect(omp.warmArgs(["--model", "sonnet", "fix the bug", "@src/a.ts"], ID)).toEqual(["--model", "sonnet", "--session-dir", dir, "--session", ID]);
    expect(omp.warmArgs(["-c", "--mode", "json", "--", "-x"], ID)).toEqual(["--mode", "json", "--session-dir", dir, "--session", ID]);
    expect(omp.warmArgs(["--session-dir", "/mine", "--thinking", "high"], NANOID)).toEqual(["--thinking", "high", "--session-dir", "/mine", "--session", NANOID]);
    // A value that looks like a message stays with its option.
    expect(omp.warmArgs(["--system-prompt", "be brief", "-p"], ID)).toEqual(["--system-prompt", "be brief", "-p", "--session-dir", dir, "--session", ID]);
  });

});

describe("omp kinds of invocation", () => {
  itSaysKinds(omp, {
    none: [
      ["--version"], ["-v"], ["--help"], ["-h"], ["help"], ["commit"], ["config", "list"], ["--model", "x", "stats"], ["q", "weather"],
      ["--export", "s.jsonl"], ["--profile", "work", "--alias", "omp-work"],
    ],
    unpinned: [["--mode", "rpc"], ["--mode", "acp"], ["acp"], ["join", "abc"], ["--no-session"]],
    caller: [
      [["--session", ID], { id: ID, via: `--session ${ID}` }],
      [["-r", NANOID, "-p", "go on"], { id: NANOID, via: `-r ${NANOID}` }],
      [["--resume"], { via: "--resume" }], // a picker
      [["-r", "abc"], { via: "-r abc" }], // an ID prefix
      [["-c"], { via: "-c" }],
      [["--fork", ID], { via: `--fork ${ID}` }], // a new session
      [["--from-claude"], { via: "--from-claude" }],
    ],
    pinned: [[], ["fix the bug"], ["launch", "fix it"], ["--mode", "json", "go"], ["--model", "commit"], ["resume the work"], ["--model", "resume"]],
  });
});

describe("omp rules", () => {
  it("takes the id of the json-mode session header only, provisional", () => {
    expect(taken(judgeLine(omp, json({ type: "session", version: 3, id: ID, timestamp: "t", cwd: "/w", parentSession: OTHER })))).toEqual([["session-header", ID, "provisional"]]);
    expect(taken(judgeLine(omp, json({ type: "session", version: 2, id: NANOID, cwd: "/w" })))).toEqual([["session-header", NANOID, "provisional"]]);
    expect(judgeLine(omp, json({ type: "message", id: "a1b2c3d4", parentId: null, sessionId: OTHER }))).toEqual([]);
    expect(judgeLine(omp, { n: 1, text: `session ${ID}` })).toEqual([]);
  });

  it("refuses IDs omp could not be given: a leading '-' would make `--session` open the picker", () => {
    for (const bad of [`-${NANOID.slice(1)}`, NANOID.slice(1), `${NANOID}a`, ID.toUpperCase(), "found", "management", `${ID}-0`]) {
      expect(omp.grammar.test(bad), bad).toBe(false);
    }
  });

  it("knows the rejection text for --session/--resume/--fork", () => {
    expect(matchesAny(omp.rejected, `Session "${ID}" not found.`)).toBe(true);
    expect(matchesAny(omp.rejected, "Session not found")).toBe(false);
  });

  it("knows 18.2.3's provider failures as transient, and they are not rejections", () => {
    for (const text of [
      "401 fake chat API: refused",
      "ECONNREFUSED: Unable to connect. Is the computer able to access the url?",
      "Error: 503 upstream unavailable",
    ]) {
      expect(matchesAny(omp.transient, text), text).toBe(true);
      expect(matchesAny(omp.rejected, text), text).toBe(false);
    }
    for (const text of [`Error: Session "${ID}" not found.`, "The word is 401.", "Working...", "fake chat API: refused (type=authentication_error param=invalid_api_key)"]) {
      expect(matchesAny(omp.transient, text), text).toBe(false);
    }
  });

  it("files sessions as <timestamp>_<id>.jsonl; the header is found on line 2, after 18.2.3's title line", () => {
    const store = omp.store!;
    expect(store.name.exec(`2026-11-22T22-10-31-056Z_${ID}.jsonl`)?.groups?.["id"]).toBe(ID);
    expect(store.name.exec(`2026-11-22T22-10-31-056Z_${NANOID}.jsonl`)?.groups?.["id"]).toBe(NANOID);
    expect(store.name.exec(`2026-11-22T22-10-31-056Z_${ID}`)).toBeNull();
    // The head of a session file 18.2.3 wrote (cwd /tmp/ompx/fx/w): title line, header, entries.
    const real = readFileSync(join(import.meta.dirname, "../../fixtures/omp/session-file-1823.jsonl"), "utf8");
    expect(real.split("\n", 1)[0]).toMatch(/^\{"type":"title"/);
    expect(store.belongs?.(real, { home: "/h", cwd: "/tmp/ompx/fx/w", env: {} })).toBe(true);
    expect(store.belongs?.(real, { home: "/h", cwd: "/tmp/ompx/fx", env: {} })).toBe(false);
    const context = { home: "/h", cwd: "/w", env: {} };
    expect(store.belongs?.(JSON.stringify({ type: "session", version: 3, id: ID, cwd: "/w" }), context)).toBe(true);
    expect(store.belongs?.(JSON.stringify({ type: "session", version: 3, id: ID, cwd: "/x" }), context)).toBe(false);
    expect(store.belongs?.("not json", context)).toBe(false);
    expect(store.belongs?.("", context)).toBe(false);
    // Only title lines may come first: a header after any other entry is not this file's.
    const after = (first: Record<string, unknown>) => `${JSON.stringify(first)}\n${JSON.stringify({ type: "session", id: ID, cwd: "/w" })}\n`;
    expect(store.belongs?.(after({ type: "title", v: 1, title: "", pad: "   " }), context)).toBe(true);
    expect(store.belongs?.(after({ type: "message", id: "a1b2c3d4" }), context)).toBe(false);
    // A title line torn mid-write (the poll reads while omp writes): not yet.
    expect(store.belongs?.(`{"type":"title","v":1,"ti`, context)).toBe(false);
  });
});
