import { describe, expect, it } from "vitest";
import { copilot } from "../../src/agents/copilot.js";
import { Extractor } from "../../src/engine/extract.js";
import { judgeLine, matchesAny } from "../../src/engine/match.js";
import { SessionTracker } from "../../src/engine/tracker.js";
import { captureAll } from "../../src/engine/capture/pipeline.js";
import { itSaysKinds } from "./kinds.js";

const ID = "4fe844d2-7ac7-4fb8-98fa-f2efd092a0c7";
const OTHER = "d5c83334-48c4-40cb-941e-c6ade6ee8c8a";

describe("copilot argv", () => {
  it("resumes with --resume=<id> and no -p/-i prompt, in every spelling; a one-shot run keeps an empty -p for --resume-prompt", () => {
    expect(copilot.warmArgs(["-p", "fix the bug", "--allow-all-tools"], ID)).toEqual(["--allow-all-tools", `--resume=${ID}`, "-p", ""]);
    expect(copilot.warmArgs(["--prompt=fix it", "--model", "gpt-5"], ID)).toEqual(["--model", "gpt-5", `--resume=${ID}`, "-p", ""]);
    expect(copilot.warmArgs(["--prompt", "fix it", "-s", "--output-format", "json"], ID)).toEqual([
      "-s", "--output-format", "json", `--resume=${ID}`, "-p", "",
    ]);
    expect(copilot.warmArgs(["-i", "fix it", "--yolo"], ID)).toEqual(["--yolo", `--resume=${ID}`]);
    expect(copilot.warmArgs(["--interactive=fix it"], ID)).toEqual([`--resume=${ID}`]);
  });

  it("puts --resume-prompt into the empty -p of a one-shot warm start (Copilot 1.0.102: `copilot -p MSG --resume=<id>`)", () => {
    const warm = copilot.warmArgs(["-p", "fix the bug", "--output-format", "json", "--allow-all-tools"], ID);
    expect(copilot.coldArgs(warm, "which word?")).toEqual({
      args: ["--output-format", "json", "--allow-all-tools", `--resume=${ID}`, "-p", "which word?"], promptVia: "argv",
    });
    // Without a resume prompt the empty -p stays (1.0.102 then opens the session in the TUI).
    expect(copilot.coldArgs(warm, undefined)).toEqual({ args: warm, promptVia: "none" });
    // An interactive warm start types it.
    expect(copilot.coldArgs(copilot.warmArgs(["--yolo"], ID), "which word?")).toEqual({ args: ["--yolo", `--resume=${ID}`], promptVia: "pty" });
  });

  it("replaces the command's own session choice and drops what conflicts with --resume", () => {
    expect(copilot.warmArgs(["--continue", "--model", "gpt-5"], ID)).toEqual(["--model", "gpt-5", `--resume=${ID}`]);
    expect(copilot.warmArgs([`--resume=${OTHER}`], ID)).toEqual([`--resume=${ID}`]);
    expect(copilot.warmArgs(["--resume", OTHER, "--yolo"], ID)).toEqual(["--yolo", `--resume=${ID}`]);
    expect(copilot.warmArgs([`--session-id=${OTHER}`, "-n", "auth", "--worktree", "--attachment", "a.png"], ID)).toEqual([`--resume=${ID}`]);
    // A bare --resume (a picker) never survives, and the ID is always attached with `=`.
    expect(copilot.warmArgs(["--resume"], ID)).toEqual([`--resume=${ID}`]);
  });

  it("keeps option values that look like prompts or commands", () => {
    expect(copilot.warmArgs(["--add-dir", "help", "--agent", "reviewer", "-C", "/w"], ID)).toEqual([
      "--add-dir", "help", "--agent", "reviewer", "-C", "/w", `--resume=${ID}`,
    ]);
  });

  it("names a new session up front with --session-id, unless the command picks its own", () => {
    expect(copilot.chooseId?.(["--model", "gpt-5"], ID)).toEqual({ id: ID, args: ["--model", "gpt-5", `--session-id=${ID}`] });
    expect(copilot.chooseId?.(["-p", "hi", `--session-id=${OTHER}`], ID)).toEqual({ id: OTHER, args: ["-p", "hi", `--session-id=${OTHER}`] });
    expect(copilot.chooseId?.(["--session-id", OTHER], ID)).toEqual({ id: OTHER, args: ["--session-id", OTHER] });
    expect(copilot.chooseId?.(["--session-id", "my-name"], ID)).toBeUndefined();
    for (const own of [["--continue"], [`--resume=${OTHER}`], ["--resume"], ["--name", "auth"], ["-w"]]) {
      expect(copilot.chooseId?.(own, ID), own.join(" ")).toBeUndefined();
    }
  });

  it("types a cold prompt into the TUI unless the command carries its own", () => {
    expect(copilot.coldArgs(["--model", "gpt-5"], "do it")).toEqual({ args: ["--model", "gpt-5"], promptVia: "pty" });
    expect(copilot.coldArgs(["-p", "own"], "do it")).toEqual({ args: ["-p", "own"], promptVia: "none" });
    expect(copilot.coldArgs(["--interactive=own"], "do it")).toEqual({ args: ["--interactive=own"], promptVia: "none" });
  });

});

describe("copilot kinds of invocation", () => {
  itSaysKinds(copilot, {
    none: [["--version"], ["-v"], ["--help"], ["-h"], ["help"], ["login"], ["mcp", "list"], ["sessions", "import", "x.jsonl"]],
    unpinned: [["--acp"], ["--connect"], [`--connect=${OTHER}`]],
    caller: [
      [[`--resume=${ID}`], { id: ID, via: `--resume=${ID}` }],
      [["-p", "go on", "--resume", ID], { id: ID, via: `--resume ${ID}` }],
      [["-r", ID], { id: ID, via: `-r ${ID}` }],
      [["--resume"], { via: "--resume" }],
      [["--resume=my feature"], { via: "--resume=my feature" }], // a name
      [["--resume=0cb916d"], { via: "--resume=0cb916d" }], // an ID prefix
      [["--continue"], { via: "--continue" }],
    ],
    pinned: [[], ["-p", "status", "--allow-all-tools"], ["--add-dir", "help"], ["-p", "resume the work"], ["--model", "resume"], [`--session-id=${OTHER}`]],
  });
});

describe("copilot rules", () => {
  const json = (value: Record<string, unknown>) => ({ n: 1, text: JSON.stringify(value), json: value });

  it("takes sessionId from result (Copilot 1.0.102 prints no session.start on stdout), nothing from other events", () => {
    expect(judgeLine(copilot, json({ type: "result", timestamp: "2026-11-25T20:17:05.920Z", sessionId: ID, exitCode: 0 }))).toEqual([
      { kind: "taken", rule: "result", id: ID, state: "confirmed" },
    ]);
    // session.start is events.jsonl's first line, not a stdout event: read when that file is replayed.
    expect(judgeLine(copilot, json({ type: "session.start", data: { sessionId: ID } }))).toEqual([
      { kind: "taken", rule: "session-start", id: ID, state: "confirmed" },
    ]);
    expect(judgeLine(copilot, json({ type: "subagent.started", data: { sessionId: OTHER } }))).toEqual([]);
    expect(judgeLine(copilot, json({ type: "user.message", data: { content: `Resume     copilot --resume=${OTHER}` } }))).toEqual([]);
    expect(judgeLine(copilot, json({ type: "result", sessionId: "auth-refactor" }))).toEqual([
      { kind: "refused", rule: "result", reason: "grammar", value: "auth-refactor" },
    ]);
  });

  const pinnedFrom = async (output: string, width = 0) => {
    const extractor = new Extractor(copilot, new SessionTracker(), width);
    for (const line of captureAll([output])) extractor.line(line);
    return extractor.tracker.current;
  };

  it("reads the Resume row of the exit table: the TUI's, wrapped after `copilot` at 67 columns, and -p's on one row", async () => {
    // Copilot 1.0.102's TUI after SIGINT at 67 columns (logo beside the table).
    const tui = `   \u2594\u2594\u2594\u2594    Resume     copilot\r\n           --resume=${ID}\r\n\r\n`;
    expect(await pinnedFrom(`  \u2588 \u2598\u259d \u2588   Tokens     \u2191 12 \u2022 \u2193 6\r\n${tui}`, 67)).toMatchObject({ id: ID, rule: "exit-hint", state: "provisional" });
    // `copilot -p …` in text mode (no logo).
    expect(await pinnedFrom(`Changes    +0 -0\r\nDuration   0s\r\nResume     copilot --resume=${ID}\r\n`)).toMatchObject({ id: ID, rule: "exit-hint" });
    // No Tokens row (no turn answered): Resume is the logo's third row.
    expect(await pinnedFrom(`  \u2588 \u2598\u259d \u2588   Resume     copilot\r\n           --resume=${ID}\r\n`, 67)).toMatchObject({ id: ID, rule: "exit-hint" });
    // Chat text quoting the command, without the table's label column, is not taken.
    expect(await pinnedFrom(`> run copilot --resume=${OTHER} later\r\n  copilot --resume=${OTHER}\r\n`)).toBeUndefined();
    expect(await pinnedFrom(`Resume copilot --resume=${OTHER}\r\n`)).toBeUndefined();
    expect(await pinnedFrom(`  Resume     copilot --resume=${OTHER} to go on\r\n`)).toBeUndefined();
    // A user's message shaped like the row, as the TUI echoes it, and an answer quoting it.
    expect(await pinnedFrom(`\u276f Resume     copilot --resume=${OTHER}\r\n`)).toBeUndefined();
    expect(await pinnedFrom(`\u25cf Resume     copilot --resume=${OTHER}\r\n`)).toBeUndefined();
    // The old guess of the label is not the table.
    expect(await pinnedFrom(`Resume this session with:\r\n  copilot --resume=${OTHER}\r\n`)).toBeUndefined();
    expect(await pinnedFrom(`Resume     copilot --resume=auth-refactor\r\n`)).toBeUndefined();
  });

  it("rebuilds a row a narrower terminal hard-wrapped inside the UUID", async () => {
    const row = `Resume     copilot --resume=${ID}`;
    const wrapped = `${row.slice(0, 50)}\r\n${row.slice(50)}\r\n`;
    expect(await pinnedFrom(wrapped, 50)).toMatchObject({ id: ID, rule: "exit-hint" });
    // Without knowing the width, the halves are still joined, because the ID then ends where
    // the next row's word ends; a partial ID is never taken.
    expect(await pinnedFrom(wrapped, 0)).toMatchObject({ id: ID, rule: "exit-hint" });
    expect(await pinnedFrom(`${row.slice(0, 50)}\r\n${row.slice(50)}x\r\n`, 0)).toBeUndefined();
  });

  it("follows a new ID after a warm start and reports it as a change", () => {
    const tracker = new SessionTracker({ id: OTHER, state: "confirmed", rule: "session-state" });
    const event = tracker.observe({ kind: "taken", rule: "exit-hint", id: ID, state: "provisional" });
    expect(event).toMatchObject({ kind: "changed", pinned: { id: ID }, previous: { id: OTHER } });
  });

  it("knows Copilot's refusal of an unknown ID, and that provider and login failures say nothing about it", () => {
    expect(matchesAny(copilot.rejected, `Error: No session, task, or name matched '${ID}'.`)).toBe(true);
    expect(matchesAny(copilot.rejected, "FAKE-API: noted the word zebra.")).toBe(false);
    for (const text of [
      "Error: No authentication information found.",
      "Offline mode requires a local model provider. Set COPILOT_PROVIDER_BASE_URL to configure one.",
      "Could not connect to local model provider at http://127.0.0.1:1/v1.",
      "Authentication failed with provider at http://127.0.0.1:42921/v1 (HTTP 401).",
      "✗ Authorization error, you may need to run /login",
    ]) {
      expect(matchesAny(copilot.transient, text), text).toBe(true);
    }
    expect(matchesAny(copilot.transient, `Error: No session, task, or name matched '${ID}'.`)).toBe(false);
  });

  it("watches session-state folders by whole UUID, under COPILOT_HOME when set; an entry is this cwd's by its session.start", () => {
    const store = copilot.store!;
    const context = { home: "/home/u", cwd: "/w", env: {} };
    expect(store.where(context, new Date())).toEqual([{ dir: "/home/u/.copilot/session-state", depth: 0 }]);
    expect(store.where({ ...context, env: { COPILOT_HOME: "/c" } }, new Date())).toEqual([{ dir: "/c/session-state", depth: 0 }]);
    expect(store.name.exec(ID)?.groups?.["id"]).toBe(ID);
    expect(store.name.exec(`${ID}.jsonl`)).toBeNull();
    expect(store.name.exec("events.jsonl")).toBeNull();
    expect(store.inner).toBe("events.jsonl");
    // Copilot 1.0.102's first line of events.jsonl.
    const start = (cwd: unknown, type = "session.start"): string =>
      `${JSON.stringify({ type, data: { sessionId: ID, version: 1, producer: "copilot-agent", copilotVersion: "1.0.102", context: { cwd } }, id: OTHER, parentId: null })}\n{"type":"user.message"}\n`;
    expect(store.belongs?.(start("/w"), context)).toBe(true);
    expect(store.belongs?.(start("/w").split("\n")[0] ?? "", context)).toBe(true);
    expect(store.belongs?.(start("/other"), context)).toBe(false);
    expect(store.belongs?.(start("/w/sub"), context)).toBe(false);
    expect(store.belongs?.(start(["/w"]), context)).toBe(false);
    expect(store.belongs?.(start("/w", "session.resume"), context)).toBe(false);
    expect(store.belongs?.(start("/w").slice(0, 40), context)).toBe(false);
    expect(store.belongs?.("", context)).toBe(false);
    expect(store.belongs?.("null\n", context)).toBe(false);
  });
});
