import { describe, expect, it } from "vitest";
import { copilot } from "../../src/agents/copilot.js";
import { Extractor } from "../../src/engine/extract.js";
import { judgeLine, matchesAny } from "../../src/engine/match.js";
import { SessionTracker } from "../../src/engine/tracker.js";
import { captureAll } from "../../src/engine/capture/pipeline.js";

const ID = "4fe844d2-7ac7-4fb8-98fa-f2efd092a0c7";
const OTHER = "d5c83334-48c4-40cb-941e-c6ade6ee8c8a";

describe("copilot argv", () => {
  it("resumes with --resume=<id> and no -p/-i prompt, in every spelling", () => {
    expect(copilot.warmArgs(["-p", "fix the bug", "--allow-all-tools"], ID)).toEqual(["--allow-all-tools", `--resume=${ID}`]);
    expect(copilot.warmArgs(["--prompt=fix it", "--model", "gpt-5"], ID)).toEqual(["--model", "gpt-5", `--resume=${ID}`]);
    expect(copilot.warmArgs(["--prompt", "fix it", "-s", "--output-format", "json"], ID)).toEqual([
      "-s", "--output-format", "json", `--resume=${ID}`,
    ]);
    expect(copilot.warmArgs(["-i", "fix it", "--yolo"], ID)).toEqual(["--yolo", `--resume=${ID}`]);
    expect(copilot.warmArgs(["--interactive=fix it"], ID)).toEqual([`--resume=${ID}`]);
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
    expect(copilot.passthrough?.(["--add-dir", "help"])).toBeUndefined();
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

  it("runs subcommands, ACP, help, version and remote connections transparently", () => {
    for (const args of [["help"], ["login"], ["mcp", "list"], ["--acp"], ["--version"], ["-h"], ["--connect"], [`--connect=${OTHER}`]]) {
      expect(copilot.passthrough?.(args), args.join(" ")).toMatch(/./);
    }
    expect(copilot.passthrough?.([])).toBeUndefined();
    expect(copilot.passthrough?.(["-p", "status", "--allow-all-tools"])).toBeUndefined();
  });
});

describe("copilot rules", () => {
  const json = (value: Record<string, unknown>) => ({ n: 1, text: JSON.stringify(value), json: value });

  it("takes data.sessionId from session.start and sessionId from result, nothing from other events", () => {
    expect(judgeLine(copilot, json({ type: "session.start", data: { sessionId: ID } }))).toEqual([
      { kind: "taken", rule: "session-start", id: ID, state: "provisional" },
    ]);
    expect(judgeLine(copilot, json({ type: "result", sessionId: ID, exitCode: 0 }))).toEqual([
      { kind: "taken", rule: "result", id: ID, state: "confirmed" },
    ]);
    expect(judgeLine(copilot, json({ type: "subagent.started", data: { sessionId: OTHER } }))).toEqual([]);
    expect(judgeLine(copilot, json({ type: "user.message", data: { content: `Resume this session with: copilot --resume=${OTHER}` } }))).toEqual([]);
    expect(judgeLine(copilot, json({ type: "session.start", data: { sessionId: "auth-refactor" } }))).toEqual([
      { kind: "refused", rule: "session-start", reason: "grammar", value: "auth-refactor" },
    ]);
  });

  const pinnedFrom = async (output: string, width = 0) => {
    const extractor = new Extractor(copilot, new SessionTracker(), width);
    for (const line of await captureAll([output])) extractor.line(line);
    return extractor.tracker.current;
  };

  it("reads the exit hint only after its label, on the same row or the next", async () => {
    expect(await pinnedFrom(`Resume this session with:\r\n  copilot --resume=${ID}\r\n`)).toMatchObject({ id: ID, rule: "exit-hint", state: "provisional" });
    expect(await pinnedFrom(`Resume this session with:\r\n\r\n  copilot --resume=${ID}\r\n`)).toMatchObject({ id: ID });
    expect(await pinnedFrom(`Resume this session with: copilot --resume=${ID}\r\n`)).toMatchObject({ id: ID });
    // Chat text quoting the command, without the label, is not taken.
    expect(await pinnedFrom(`> run copilot --resume=${OTHER} later\r\n  copilot --resume=${OTHER}\r\n`)).toBeUndefined();
    expect(await pinnedFrom(`Resume this session with:\r\n  copilot --resume=auth-refactor\r\n`)).toBeUndefined();
  });

  it("rebuilds a hint the TUI hard-wrapped inside the UUID at 67 columns", async () => {
    const row = `Resume this session with: copilot --resume=${ID}`;
    const wrapped = `${row.slice(0, 67)}\r\n${row.slice(67)}\r\n`;
    expect(row.slice(0, 67)).toHaveLength(67);
    expect(await pinnedFrom(wrapped, 67)).toMatchObject({ id: ID, rule: "exit-hint" });
    // Without knowing the width, the halves are still joined, because the ID then ends where
    // the next row's word ends; a partial ID is never taken.
    expect(await pinnedFrom(wrapped, 0)).toMatchObject({ id: ID, rule: "exit-hint" });
    expect(await pinnedFrom(`${row.slice(0, 67)}\r\n${row.slice(67)}x\r\n`, 0)).toBeUndefined();
  });

  it("follows a new ID after a warm start and reports it as a change", () => {
    const tracker = new SessionTracker({ id: OTHER, state: "confirmed", rule: "session-state" });
    const event = tracker.observe({ kind: "taken", rule: "exit-hint", id: ID, state: "provisional" });
    expect(event).toMatchObject({ kind: "changed", pinned: { id: ID }, previous: { id: OTHER } });
  });

  it("knows Copilot 1.0.49+'s refusal of an unknown ID, and that a login failure says nothing about it", () => {
    expect(matchesAny(copilot.rejected, `Error: No session, task, or name matched '${ID}'.`)).toBe(true);
    expect(matchesAny(copilot.rejected, "Copilot: noted (1 messages in this session)")).toBe(false);
    expect(matchesAny(copilot.transient, "✗ Authorization error, you may need to run /login")).toBe(true);
  });

  it("watches session-state folders by whole UUID, under COPILOT_HOME when set, to confirm only", () => {
    const store = copilot.store!;
    const context = { home: "/home/u", cwd: "/w", env: {} };
    expect(store.where(context, new Date())).toEqual([{ dir: "/home/u/.copilot/session-state", depth: 0 }]);
    expect(store.where({ ...context, env: { COPILOT_HOME: "/c" } }, new Date())).toEqual([{ dir: "/c/session-state", depth: 0 }]);
    expect(store.name.exec(ID)?.groups?.["id"]).toBe(ID);
    expect(store.name.exec(`${ID}.jsonl`)).toBeNull();
    expect(store.name.exec("events.jsonl")).toBeNull();
    expect(store.belongs?.("", context)).toBe(false);
  });
});
