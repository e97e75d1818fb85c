import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { codex } from "../../src/agents/codex.js";
import { Extractor } from "../../src/engine/extract.js";
import { judgeLine, matchesAny } from "../../src/engine/match.js";
import { SessionTracker } from "../../src/engine/tracker.js";
import { captureAll } from "../../src/engine/capture/pipeline.js";
import type { Verdict } from "../../src/engine/match.js";
import type { Candidate } from "../../src/engine/source.js";
import { systemClock } from "../../src/clock.js";
import { StoreWatch } from "../../src/engine/store-watch.js";
import { itSaysKinds } from "./kinds.js";

const ID = "019fed6b-1b81-7500-a93d-bd1f2143f03e";
const OTHER = "7d3e9a41-2c58-4f0b-b6e7-19a8c5d2f304";
const text = (t: string) => ({ n: 1, text: t });
const json = (o: Record<string, unknown>) => ({ n: 1, text: JSON.stringify(o), json: o });
const taken = (verdicts: Verdict[]) => verdicts.flatMap((v) => (v.kind === "taken" ? [[v.rule, v.id, v.state]] : []));

describe("codex argv", () => {
  it("resumes interactively with `resume <id>` after the options, the prompt and its images dropped", () => {
    expect(codex.warmArgs(["-m", "o3", "fix the bug"], ID)).toEqual(["-m", "o3", "resume", ID]);
    expect(codex.warmArgs(["--sandbox", "workspace-write", "-i", "shot.png", "--search", "--", "-fix it"], ID)).toEqual([
      "--sandbox", "workspace-write", "--search", "resume", ID,
    ]);
    // -p is Codex's profile, not a prompt flag; option values are never taken for the prompt.
    expect(codex.warmArgs(["-p", "work", "-c", "model=o3", "-C", "exec"], ID)).toEqual(["-p", "work", "-c", "model=o3", "-C", "exec", "resume", ID]);
  });

  it("resumes exec mode with `exec [opts] resume <id>` and no prompt, options kept on their side of exec", () => {
    expect(codex.warmArgs(["exec", "--json", "fix the bug"], ID)).toEqual(["exec", "--json", "resume", ID]);
    expect(codex.warmArgs(["-c", "model=o3", "e", "--json", "--skip-git-repo-check", "-o", "last.txt", "-i", "a.png", "do it"], ID)).toEqual([
      "-c", "model=o3", "exec", "--json", "--skip-git-repo-check", "-o", "last.txt", "resume", ID,
    ]);
  });

  it("passes the cold prompt as Codex's positional prompt, unless the command has one", () => {
    expect(codex.coldArgs(["-m", "o3"], "do it")).toEqual({ args: ["-m", "o3", "do it"], promptVia: "argv" });
    expect(codex.coldArgs(["exec", "--json"], "do it")).toEqual({ args: ["exec", "--json", "do it"], promptVia: "argv" });
    expect(codex.coldArgs(["exec", "--json"], "-v is broken")).toEqual({ args: ["exec", "--json", "--", "-v is broken"], promptVia: "argv" });
    expect(codex.coldArgs(["exec", "own task"], "do it")).toEqual({ args: ["exec", "own task"], promptVia: "none" });
    expect(codex.coldArgs(["own task"], "do it")).toEqual({ args: ["own task"], promptVia: "none" });
    expect(codex.coldArgs(["exec"], undefined)).toEqual({ args: ["exec"], promptVia: "pty" });
  });

  it("reads the message of a resume after its session, or all of it after --last", () => {
    expect(codex.invocation(["resume", ID, "go on"])).toEqual({ message: "go on", oneShot: false });
    expect(codex.invocation(["exec", "--json", "resume", "--last", "go on"])).toEqual({ message: "go on", oneShot: true });
    expect(codex.invocation(["exec", "next step", "resume", "--last"])).toEqual({ message: "next step", oneShot: true });
    expect(codex.invocation(["exec", "resume", ID])).toEqual({ message: undefined, oneShot: true });
  });
});

describe("codex kinds of invocation", () => {
  itSaysKinds(codex, {
    none: [
      ["--version"], ["-V"], ["--help"], ["-h"], ["exec", "--help"], ["resume", "--help"], ["login"], ["mcp", "list"], ["apply"],
      ["review"], ["exec", "review"], ["exec", "help"], ["hi", "login"], // clap takes a command after a one-word prompt
    ],
    unpinned: [["exec", "--ephemeral", "go"]],
    caller: [
      [["resume", ID], { id: ID, via: `resume ${ID}` }],
      [["-m", "o3", "resume", ID, "go on"], { id: ID, via: `resume ${ID}` }],
      [["exec", "--json", "resume", ID, "go on"], { id: ID, via: `exec resume ${ID}` }],
      [["resume", "--last"], { via: "resume --last" }],
      [["exec", "resume", "--last", "go on"], { via: "exec resume --last" }],
      [["exec", "next step", "resume", "--last"], { via: "exec resume --last" }],
      [["resume"], { via: "resume" }], // a picker
      [["resume", "fix-login"], { via: "resume fix-login" }], // a thread name
      [["resume", ID.slice(0, 8)], { via: `resume ${ID.slice(0, 8)}` }],
      [["fork", ID], { via: `fork ${ID}` }], // a new session
      [["exec", "fork", ID, "go"], { via: `exec fork ${ID}` }],
    ],
    pinned: [
      [], ["exec", "--json", "go"], ["-m", "o3", "resume the work"], ["--", "login"], ["-C", "login"], ["-m", "resume"],
      ["exec", "--", "resume", ID], ["-c", "model=resume"],
    ],
  });
});

describe("codex rules", () => {
  it("takes thread_id from thread.started only, provisional", () => {
    expect(taken(judgeLine(codex, json({ type: "thread.started", thread_id: ID })))).toEqual([["thread-started", ID, "provisional"]]);
    expect(judgeLine(codex, json({ type: "turn.completed", thread_id: OTHER, usage: {} }))).toEqual([]);
    expect(judgeLine(codex, json({ type: "item.completed", item: { type: "agent_message", thread_id: OTHER, text: `session id: ${OTHER}` } }))).toEqual([]);
    expect(judgeLine(codex, json({ type: "session_meta", payload: { id: OTHER, parent_thread_id: OTHER } }))).toEqual([]);
  });

  it("reads the banner, the exit hint and the /status Session row, never Forked from", () => {
    expect(taken(judgeLine(codex, text(`session id: ${ID}`)))).toEqual([["session-banner", ID, "provisional"]]);
    expect(taken(judgeLine(codex, text(`To continue this session, run codex resume ${ID}`)))).toEqual([["exit-hint", ID, "confirmed"]]);
    expect(taken(judgeLine(codex, text(`│  Session:                   ${ID}     │`)))).toEqual([["status-session", ID, "provisional"]]);
    expect(judgeLine(codex, text(`│  Forked from:               ${ID}     │`))).toEqual([]);
    // Mid-sentence look-alikes are not labels.
    expect(judgeLine(codex, text(`The log says the session id: ${ID}`))).toEqual([]);
    expect(judgeLine(codex, text(`• to continue this session, run codex resume ${ID} later`))).toEqual([]);
    expect(judgeLine(codex, text(`${ID}`))).toEqual([]);
  });

  it("never takes words for IDs (a peer stored 'management' and 'found')", () => {
    const lines = [
      "ERROR: No saved session found with ID management.",
      "session id: management", "session id: found", "Session:  found",
      "To continue this session, run codex resume management",
      "To continue this session, run codex resume found",
      `To continue this session, run codex resume fix-login-${ID.slice(0, 8)}`,
    ];
    const extractor = new Extractor(codex);
    for (const line of lines) expect(taken(extractor.line(text(line)).verdicts), line).toEqual([]);
    expect(extractor.tracker.current).toBeUndefined();
    for (const bad of ["management", "found", ID.toUpperCase(), `${ID}0`, ID.slice(1), `{${ID}}`]) expect(codex.grammar.test(bad), bad).toBe(false);
  });

  it("rebuilds the exit hint wrapped at 67 columns, inside the ID or before it", async () => {
    const head = `To continue this session, run codex resume ${ID.slice(0, 24)}`;
    expect(head).toHaveLength(67);
    for (const screen of [`${head}\r\n${ID.slice(24)}\r\n`, `To continue this session, run codex resume\r\n${ID}\r\n`]) {
      const extractor = new Extractor(codex, new SessionTracker(), 67);
      for (const line of captureAll([Buffer.from(screen)])) extractor.line(line);
      expect(extractor.tracker.current).toMatchObject({ id: ID, state: "confirmed", rule: "exit-hint" });
    }
  });

  it("follows a new thread after a warm start: the tracker reports the change", () => {
    const extractor = new Extractor(codex, new SessionTracker({ id: OTHER, state: "confirmed", rule: "rollout" }));
    const { events } = extractor.line(json({ type: "thread.started", thread_id: ID }));
    expect(events).toEqual([{ kind: "changed", pinned: expect.objectContaining({ id: ID, state: "provisional" }), previous: expect.objectContaining({ id: OTHER }) }]);
  });

  it("knows the rejection texts, and that a missing prompt says nothing about the ID", () => {
    for (const line of [
      `ERROR: No saved session found with ID ${ID}.`,
      `Error: thread/resume: thread/resume failed: no rollout found for thread id ${ID} (code -32600)`,
      `thread not loaded: ${ID}`,
    ]) expect(matchesAny(codex.rejected, line), line).toBe(true);
    const noPrompt = "No prompt provided. Either specify one as an argument or pipe the prompt into stdin.";
    expect(matchesAny(codex.transient, noPrompt)).toBe(true);
    expect(matchesAny(codex.rejected, noPrompt)).toBe(false);
  });
});

describe("codex rollout store", () => {
  const dirs: string[] = [];
  afterEach(() => dirs.splice(0).forEach((dir) => rmSync(dir, { recursive: true, force: true })));

  function home(): string {
    const dir = mkdtempSync(join(tmpdir(), "codex-store-"));
    dirs.push(dir);
    return dir;
  }
  const meta = (payload: Record<string, unknown>) => JSON.stringify({ timestamp: "2026-11-02T09:14:03.342Z", type: "session_meta", payload });

  it("looks in today's and yesterday's local day folders under $CODEX_HOME or ~/.codex", () => {
    const now = new Date(2026, 0, 1, 0, 5); // just after local midnight
    expect(codex.store?.where({ home: "/h", cwd: "/w", env: {} }, now)).toEqual([
      { dir: "/h/.codex/sessions/2026/01/01", depth: 0 },
      { dir: "/h/.codex/sessions/2025/12/31", depth: 0 },
    ]);
    expect(codex.store?.where({ home: "/h", cwd: "/w", env: { CODEX_HOME: "/c" } }, now)[0]).toEqual({ dir: "/c/sessions/2026/01/01", depth: 0 });
  });

  it("takes this folder's main rollouts, not another folder's or a subagent's", () => {
    const store = codex.store!;
    const context = { home: "/h", cwd: "/w", env: {} };
    expect(store.name.exec(`rollout-2026-11-02T09-14-03-${ID}.jsonl`)?.groups?.["id"]).toBe(ID);
    expect(store.name.exec(`rollout-2026-11-02T09-14-03-${ID}.jsonl.tmp`)).toBeNull();
    expect(store.belongs?.(meta({ id: ID, cwd: "/w", source: "exec", thread_source: "user" }), context)).toBe(true);
    expect(store.belongs?.(meta({ id: ID, cwd: "/elsewhere", source: "cli" }), context)).toBe(false);
    expect(store.belongs?.(meta({ id: ID, cwd: "/w", source: { subagent: { thread_spawn: { parent_thread_id: OTHER } } }, thread_source: "subagent" }), context)).toBe(false);
    expect(store.belongs?.(meta({ id: ID, cwd: "/w", source: "cli", parent_thread_id: OTHER }), context)).toBe(false);
    expect(store.belongs?.('{"type":"session_meta","payload":{"id":"', context)).toBe(false);
  });

  it("through the core's StoreWatch: a rollout that appears for this folder is taken, not older ones, other folders' or subagents'", () => {
    const dir = home();
    const now = new Date();
    const day = join(dir, ".codex", "sessions", String(now.getFullYear()), String(now.getMonth() + 1).padStart(2, "0"), String(now.getDate()).padStart(2, "0"));
    mkdirSync(day, { recursive: true });
    const rollout = (id: string, payload: Record<string, unknown>) => writeFileSync(join(day, `rollout-2026-11-02T09-14-03-${id}.jsonl`), `${meta({ id, ...payload })}\n`);
    rollout(OTHER, { cwd: "/w", source: "cli" }); // an earlier run's
    const seen: Candidate[] = [];
    const watch = new StoreWatch(codex, { home: dir, cwd: "/w", env: {} }, systemClock, () => undefined, (v) => seen.push(v));
    watch.before();
    watch.start(process.pid);
    rollout("1b9e0c52-6f3a-4d27-8e41-c0a9d7b3f615", { cwd: "/elsewhere", source: "cli" });
    rollout("2c0f1d63-7a4b-4e38-9f52-d1b0e8c4a726", { cwd: "/w", source: { subagent: "review" }, thread_source: "subagent" });
    rollout(ID, { cwd: "/w", source: "cli", thread_source: "user" });
    watch.stop(process.pid);
    expect(seen).toEqual([{ source: "store", rule: "rollout", state: "confirmed", value: ID }]);
  });

  it("through the core's StoreWatch: a rollout whose first line carries 200 KB of base instructions is taken", () => {
    const dir = home();
    const now = new Date();
    const day = join(dir, ".codex", "sessions", String(now.getFullYear()), String(now.getMonth() + 1).padStart(2, "0"), String(now.getDate()).padStart(2, "0"));
    mkdirSync(day, { recursive: true });
    const seen: Candidate[] = [];
    const watch = new StoreWatch(codex, { home: dir, cwd: "/w", env: {} }, systemClock, () => undefined, (v) => seen.push(v));
    watch.before();
    watch.start(process.pid);
    // As 0.169 writes it, with instructions a config gave instead of its own 21 KB.
    const base = { text: "Follow the house style. ".repeat(200_000 / 24) };
    writeFileSync(join(day, `rollout-2026-11-02T09-14-03-${ID}.jsonl`), `${meta({ id: ID, cwd: "/w", source: "cli", base_instructions: base })}\n`);
    watch.stop(process.pid);
    expect(seen).toEqual([{ source: "store", rule: "rollout", state: "confirmed", value: ID }]);
  });
});
