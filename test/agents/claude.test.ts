import { describe, expect, it } from "vitest";
import { claude } from "../../src/agents/claude.js";
import { judgeLine, matchesAny } from "../../src/engine/match.js";
import { itSaysKinds } from "./kinds.js";

const ID = "9ca906aa-a771-42ef-bd10-d5a75d7b5502";
const FRESH = "4b2d8e6f-1a3c-4e5b-9d7f-0c2e4a6b8d1f";
const context = { home: "/home/coder", cwd: "/home/coder/my_project.v2", env: {} };

describe("claude argv", () => {
  it("passes the cold prompt as a positional after --, and keeps the user's own", () => {
    expect(claude.coldArgs(["--model", "sonnet"], "fix it")).toEqual({ args: ["--model", "sonnet", "--", "fix it"], promptVia: "argv" });
    expect(claude.coldArgs(["-p", "--output-format", "stream-json", "--verbose"], "- list files")).toEqual({
      args: ["-p", "--output-format", "stream-json", "--verbose", "--", "- list files"], promptVia: "argv",
    });
    // A variadic option takes every word up to the next option, so they are not a prompt.
    expect(claude.coldArgs(["--add-dir", "../lib", "../docs"], "go")).toEqual({ args: ["--add-dir", "../lib", "../docs", "--", "go"], promptVia: "argv" });
    expect(claude.coldArgs(["-p", "own prompt"], "fix it")).toEqual({ args: ["-p", "own prompt"], promptVia: "none" });
    expect(claude.coldArgs(["--", "own prompt"], "fix it")).toEqual({ args: ["--", "own prompt"], promptVia: "none" });
    expect(claude.coldArgs(["--model", "sonnet"], undefined)).toEqual({ args: ["--model", "sonnet"], promptVia: "pty" });
  });

  it("names a cold session with --session-id, unless the user chose a session already", () => {
    expect(claude.chooseId?.(["--model", "sonnet", "--", "fix it"], FRESH)).toEqual({
      id: FRESH, args: ["--session-id", FRESH, "--model", "sonnet", "--", "fix it"],
    });
    for (const args of [["--resume", ID], ["-r", ID], ["-c"], ["--continue"], ["--session-id", ID], ["--session-id=" + ID], ["--from-pr", "42"]]) {
      expect(claude.chooseId?.(args, FRESH), args.join(" ")).toBeUndefined();
    }
    // With --fork-session, --session-id names the fork.
    expect(claude.chooseId?.(["--resume", ID, "--fork-session"], FRESH)).toEqual({ id: FRESH, args: ["--session-id", FRESH, "--resume", ID, "--fork-session"] });
  });

  it("resumes with --resume <id> at the end, without the prompt or another choice of session", () => {
    expect(claude.warmArgs(["--model", "sonnet", "fix the bug"], ID)).toEqual(["--model", "sonnet", "--resume", ID]);
    expect(claude.warmArgs(["-p", "fix the bug", "--output-format", "stream-json", "--verbose"], ID)).toEqual([
      "-p", "--output-format", "stream-json", "--verbose", "--resume", ID,
    ]);
    expect(claude.warmArgs(["--session-id", FRESH, "--", "- a prompt", "more"], ID)).toEqual(["--resume", ID]);
    expect(claude.warmArgs(["-c", "--permission-mode", "plan", "-r", FRESH], ID)).toEqual(["--permission-mode", "plan", "--resume", ID]);
    expect(claude.warmArgs(["--add-dir", "../lib", "../docs", "-w", "fix-login", "--fork-session"], ID)).toEqual([
      "--add-dir", "../lib", "../docs", "-w", "fix-login", "--fork-session", "--resume", ID,
    ]);
    // An option's value that looks like a prompt stays with its option.
    expect(claude.warmArgs(["--append-system-prompt", "be brief", "--model=opus"], ID)).toEqual(["--append-system-prompt", "be brief", "--model=opus", "--resume", ID]);
  });

});

describe("claude kinds of invocation", () => {
  itSaysKinds(claude, {
    none: [["--version"], ["-v"], ["--help"], ["-h"], ["mcp", "list"], ["--model", "opus", "doctor"], ["plugins"], ["stop", "a1"], ["-p", "hi", "--help"]],
    unpinned: [
      ["-p", "--no-session-persistence", "hi"], ["--bg", "fix it"], ["--background", "--resume", ID], ["--cloud", "fix it"],
      ["--desktop", "--continue"], ["attach", "a1"],
    ],
    caller: [
      [["--resume", ID], { id: ID, via: `--resume ${ID}` }],
      [["-r", ID, "-p", "and now?"], { id: ID, via: `-r ${ID}` }],
      [[`--resume=${ID}`], { id: ID, via: `--resume=${ID}` }],
      [["--resume"], { via: "--resume" }],
      [["-r", "my task"], { via: "-r my task" }], // a name or a search term
      [["--resume", ID.toUpperCase()], { via: `--resume ${ID.toUpperCase()}` }],
      [["-c"], { via: "-c" }],
      [["--continue", "-p", "go on"], { via: "--continue" }],
      [["--from-pr", "42"], { via: "--from-pr 42" }],
      [["--teleport"], { via: "--teleport" }],
      // A fork is a new session: only its own --session-id names it.
      [["--resume", ID, "--fork-session"], { via: `--resume ${ID} --fork-session` }],
      [["-c", "--fork-session", "--session-id", FRESH], { id: FRESH, via: "-c --fork-session" }],
    ],
    pinned: [
      [], ["--model", "sonnet"], ["-p", "update the docs"], ["--debug", "doctor"], // `doctor` is --debug's filter
      ["resume the work"], ["--model", "resume"], ["-p", "--", "--resume", ID], ["--session-id", FRESH],
    ],
  });
});

describe("claude rules", () => {
  const json = (value: Record<string, unknown>) => ({ n: 1, text: JSON.stringify(value), json: value });
  const text = (value: string) => ({ n: 1, text: value });

  it("takes session_id from init and messages (provisional), and only a successful result confirms", () => {
    expect(judgeLine(claude, json({ type: "system", subtype: "init", session_id: ID }))).toEqual([{ kind: "taken", rule: "system-init", id: ID, state: "provisional" }]);
    expect(judgeLine(claude, json({ type: "assistant", session_id: ID, uuid: FRESH }))).toEqual([{ kind: "taken", rule: "message", id: ID, state: "provisional" }]);
    expect(judgeLine(claude, json({ type: "result", subtype: "success", session_id: ID }))).toEqual([{ kind: "taken", rule: "result", id: ID, state: "confirmed" }]);
    const rejected = { type: "result", subtype: "error_during_execution", is_error: true, session_id: ID, errors: [`No conversation found with session ID: ${ID}`] };
    expect(judgeLine(claude, json(rejected))).toEqual([]);
    expect(matchesAny(claude.rejected, JSON.stringify(rejected))).toBe(true);
  });

  it("takes the own session_id of hook, status, rate-limit and stream_event lines (provisional), never of other types", () => {
    const event = [{ kind: "taken", rule: "event", id: ID, state: "provisional" }];
    // Claude 2.1.98 (fixtures/claude/stream-2.1.98-hooks-rate-limit): hook lines come before init.
    expect(judgeLine(claude, json({ type: "system", subtype: "hook_started", hook_id: FRESH, uuid: FRESH, session_id: ID }))).toEqual(event);
    expect(judgeLine(claude, json({ type: "system", subtype: "hook_response", hook_id: FRESH, exit_code: 0, session_id: ID }))).toEqual(event);
    expect(judgeLine(claude, json({ type: "system", subtype: "status", status: "requesting", uuid: FRESH, session_id: ID }))).toEqual(event);
    expect(judgeLine(claude, json({ type: "rate_limit_event", rate_limit_info: { status: "allowed", session_id: FRESH }, uuid: FRESH, session_id: ID }))).toEqual(event);
    expect(judgeLine(claude, json({ type: "stream_event", event: { type: "message_start", message: { session_id: FRESH } }, session_id: ID }))).toEqual(event);
    expect(judgeLine(claude, json({ type: "rate_limit_event", rate_limit_info: { status: "allowed" } }))).toEqual([]);
    expect(judgeLine(claude, json({ type: "telemetry", session_id: FRESH }))).toEqual([]);
    expect(judgeLine(claude, json({ type: "system", subtype: "a_future_subtype", session_id: FRESH }))).toEqual([]);
    expect(judgeLine(claude, json({ type: "control_response", response: { subtype: "success" }, session_id: FRESH }))).toEqual([]);
  });

  it("reads the exit hint at column 0 by its length, whatever follows, and never a quoted name", () => {
    const taken = (line: string) => judgeLine(claude, text(line)).filter((v) => v.kind === "taken").map((v) => ("id" in v ? v.id : ""));
    expect(taken(`claude --resume ${ID}`)).toEqual([ID]);
    expect(taken(`claude --resume ${ID}e REPL`)).toEqual([ID]);
    expect(taken(`claude --resume ${ID}it the REPL`)).toEqual([ID]);
    expect(taken(`claude --worktree fix-login --resume ${ID}`)).toEqual([ID]);
    expect(taken(`claude --resume "${ID}"`)).toEqual([]);
    expect(taken(`claude --resume "my task"`)).toEqual([]);
    expect(taken(`  claude --resume ${ID}`)).toEqual([]);
    expect(taken(`❯ run claude --resume ${ID}`)).toEqual([]);
    expect(taken(`claude --resume ${ID.toUpperCase()}`)).toEqual([]);
    expect(taken(`Session ID: ${ID}`)).toEqual([ID]);
    expect(taken(`  Session ID:             ${ID}`)).toEqual([ID]);
    expect(taken(`⏺ The Session ID: ${ID}`)).toEqual([]);
  });

  it("knows the rejection and the failures that say nothing about the ID", () => {
    expect(matchesAny(claude.rejected, `No conversation found with session ID: ${ID}`)).toBe(true);
    expect(matchesAny(claude.rejected, `Error: Session ID ${ID} is already in use.`)).toBe(true);
    expect(matchesAny(claude.rejected, "Error: Input must be provided either through stdin or as a prompt argument when using --print")).toBe(false);
    expect(matchesAny(claude.transient, "Error: Input must be provided either through stdin or as a prompt argument when using --print")).toBe(true);
    expect(matchesAny(claude.transient, "Error: No deferred tool marker found in the resumed session. Provide a prompt to continue the conversation.")).toBe(true);
  });

  it("keeps the pointer on the network, auth and limit failures 2.1.330 and public reports print", () => {
    for (const text of [
      "API Error: Connection refused — a firewall or proxy may be blocking it (ECONNREFUSED)",
      "Invalid API key · Fix external API key",
      "Invalid API key · Please run /login",
      "API Error: Request rejected (429) · This request would exceed your account's rate limit. Please try again later.",
      "You've hit your limit · resets 1pm (Europe/Lisbon)",
      "You've hit your session limit · resets 8:30am (America/Los_Angeles)",
      `{"type":"result","subtype":"success","is_error":true,"result":"Invalid API key · Fix external API key","session_id":"${ID}"}`,
    ]) {
      expect(matchesAny(claude.transient, text), text).toBe(true);
      expect(matchesAny(claude.rejected, text), text).toBe(false);
    }
    expect(matchesAny(claude.transient, `No conversation found with session ID: ${ID}`)).toBe(false);
    expect(matchesAny(claude.transient, "API Error: 400 duplicate tool_use ID in conversation history.")).toBe(false);
  });
});

describe("claude session store", () => {
  it("looks in projects/<cwd with every non-alphanumeric as '-'> for <uuid>.jsonl", () => {
    const store = claude.store!;
    expect(store.where(context, new Date())).toEqual([{ dir: "/home/coder/.claude/projects/-home-coder-my-project-v2", depth: 0 }]);
    expect(store.name.exec(`${ID}.jsonl`)?.groups?.["id"]).toBe(ID);
    expect(store.name.exec(`${ID}.json`)).toBeNull();
    expect(store.name.exec(`agent-${ID}.jsonl`)).toBeNull();
    expect(store.wholeId).toBe(true);
  });

  it("reads sessionId from sessions/<pid>.json, and follows CLAUDE_CONFIG_DIR", () => {
    expect(claude.pidFile?.path(4242, context)).toBe("/home/coder/.claude/sessions/4242.json");
    expect(claude.pidFile?.field).toBe("sessionId");
    const moved = { ...context, env: { CLAUDE_CONFIG_DIR: "/srv/claude" } };
    expect(claude.pidFile?.path(7, moved)).toBe("/srv/claude/sessions/7.json");
    expect(claude.store?.where(moved, new Date())[0]?.dir).toBe("/srv/claude/projects/-home-coder-my-project-v2");
  });
});
