import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { cursor } from "../../src/agents/cursor.js";
import { judgeLine, matchesAny } from "../../src/engine/match.js";
import { pluginForCommand } from "../../src/agents/registry.js";
import { itSaysKinds } from "./kinds.js";

const ID = "e22f36ab-002e-4067-8a49-f6b5ccc38b24";
const OTHER = "5d0c8b3e-7f21-4a96-b4e8-2c9f1a7d6e30";

describe("cursor argv", () => {
  it("serves both executable names", () => {
    expect(pluginForCommand("/usr/local/bin/cursor-agent")).toBe(cursor);
    expect(pluginForCommand("agent")).toBe(cursor);
  });

  it("passes the cold prompt as a positional, and keeps the user's own", () => {
    expect(cursor.coldArgs(["--model", "gpt-5"], "fix it")).toEqual({ args: ["--model", "gpt-5", "fix it"], promptVia: "argv" });
    expect(cursor.coldArgs(["-p", "--output-format", "stream-json"], "- list")).toEqual({ args: ["-p", "--output-format", "stream-json", "--", "- list"], promptVia: "argv" });
    expect(cursor.coldArgs(["-p", "own prompt"], "fix it")).toEqual({ args: ["-p", "own prompt"], promptVia: "none" });
    expect(cursor.coldArgs([], undefined)).toEqual({ args: [], promptVia: "pty" });
  });

  it("resumes with --resume=<id>, without the prompt or another resume", () => {
    expect(cursor.warmArgs(["--model", "gpt-5", "fix the bug"], ID)).toEqual(["--model", "gpt-5", `--resume=${ID}`]);
    expect(cursor.warmArgs(["-p", "--output-format", "stream-json", "--force", "fix it"], ID)).toEqual(["-p", "--output-format", "stream-json", "--force", `--resume=${ID}`]);
    expect(cursor.warmArgs(["--resume", OTHER, "--continue", "--", "- prompt"], ID)).toEqual([`--resume=${ID}`]);
    expect(cursor.warmArgs([`--resume=${OTHER}`, "--api-key", "key-that-is-no-prompt"], ID)).toEqual(["--api-key", "key-that-is-no-prompt", `--resume=${ID}`]);
  });

});

describe("cursor kinds of invocation", () => {
  itSaysKinds(cursor, {
    none: [["--version"], ["-v"], ["--help"], ["-h"], ["--model", "gpt-5", "login"], ["create-chat"], ["status"], ["mcp", "list"]],
    caller: [
      [[`--resume=${ID}`], { id: ID, via: `--resume=${ID}` }],
      [["-p", "--resume", ID, "go on"], { id: ID, via: `--resume ${ID}` }],
      [["--resume"], { via: "--resume" }], // the latest
      [["--resume=-1"], { via: "--resume=-1" }],
      [["--continue"], { via: "--continue" }],
      [["ls"], { via: "ls" }], // a picker
      [["resume"], { via: "resume" }],
    ],
    pinned: [[], ["--model", "ls"], ["refactor the login"], ["resume the work"], ["--model", "resume"], ["-p", "--", "--resume"]],
  });
});

describe("cursor rules", () => {
  const json = (value: Record<string, unknown>) => ({ n: 1, text: JSON.stringify(value), json: value });

  it("takes every documented stream line's own session_id (provisional); only a successful result confirms", () => {
    expect(judgeLine(cursor, json({ type: "system", subtype: "init", apiKeySource: "login", session_id: ID }))).toEqual([
      { kind: "taken", rule: "system-init", id: ID, state: "provisional" },
    ]);
    expect(judgeLine(cursor, json({ type: "user", message: { content: [{ type: "text", text: OTHER }] }, session_id: ID }))).toEqual([
      { kind: "taken", rule: "message", id: ID, state: "provisional" },
    ]);
    expect(judgeLine(cursor, json({ type: "assistant", session_id: ID }))).toEqual([{ kind: "taken", rule: "message", id: ID, state: "provisional" }]);
    expect(judgeLine(cursor, json({ type: "tool_call", subtype: "started", call_id: OTHER, session_id: ID }))).toEqual([
      { kind: "taken", rule: "event", id: ID, state: "provisional" },
    ]);
    expect(judgeLine(cursor, json({ type: "result", subtype: "success", session_id: ID, request_id: OTHER }))).toEqual([
      { kind: "taken", rule: "result", id: ID, state: "confirmed" },
    ]);
    expect(judgeLine(cursor, json({ type: "result", subtype: "success", session_id: `${ID}x` }))).toEqual([
      { kind: "refused", rule: "result", reason: "grammar", value: `${ID}x` },
    ]);
    // A failed result, an unknown type, and IDs that are not the top-level session_id.
    expect(judgeLine(cursor, json({ type: "result", subtype: "error", is_error: true, session_id: OTHER }))).toEqual([]);
    expect(judgeLine(cursor, json({ type: "telemetry", session_id: OTHER }))).toEqual([]);
    expect(judgeLine(cursor, json({ type: "assistant", message: { session_id: OTHER } }))).toEqual([]);
  });

  it("takes the exit hint at column 0, with or without quotes, and nothing indented or glued", () => {
    const taken = { kind: "taken", rule: "exit-hint", id: ID, state: "provisional" };
    expect(judgeLine(cursor, { n: 1, text: `agent --resume=${ID}` })).toEqual([taken]);
    expect(judgeLine(cursor, { n: 1, text: `cursor-agent --resume=${ID}` })).toEqual([taken]);
    expect(judgeLine(cursor, { n: 1, text: `cursor-agent --resume="${ID}"` })).toEqual([taken]);
    expect(judgeLine(cursor, { n: 1, text: `agent --resume='${ID}' to continue` })).toEqual([taken]);
    for (const text of [
      `  Run cursor-agent --resume=${ID} to continue it.`,
      `chat ${ID} --resume=${ID}`,
      `agent --resume=${ID}0`,
      `agent --resume="${ID}`,
      `agent --resume ${ID}`,
      `my-agent --resume=${ID}`,
      `agent --resume=-1`,
    ]) expect(judgeLine(cursor, { n: 1, text }), text).toEqual([]);
  });

  it("keeps the pointer when Cursor is not logged in", () => {
    expect(matchesAny(cursor.transient, "Error: Authentication required. Please run 'agent login' first, or set CURSOR_API_KEY environment variable.")).toBe(true);
    expect(cursor.rejected).toEqual([]);
  });

  it("finds chats in ~/.cursor/chats/<md5(cwd)>/<uuid>/ and ~/.cursor/projects/<cwd>/agent-transcripts/<uuid>/", () => {
    const store = cursor.store!;
    const md5 = createHash("md5").update("/home/coder/project").digest("hex");
    expect(store.where({ home: "/home/coder", cwd: "/home/coder/project", env: {} }, new Date())).toEqual([
      { dir: `/home/coder/.cursor/chats/${md5}`, depth: 0 },
      { dir: "/home/coder/.cursor/projects/home-coder-project/agent-transcripts", depth: 0 },
    ]);
    const dotted = store.where({ home: "/h", cwd: "/srv/my.app", env: {} }, new Date()).map((entry) => entry.dir);
    expect(dotted.slice(1)).toEqual(["/h/.cursor/projects/srv-my.app/agent-transcripts", "/h/.cursor/projects/srv-my-app/agent-transcripts"]);
    expect(store.name.exec(ID)?.groups?.["id"]).toBe(ID);
    expect(store.name.exec("store.db")).toBeNull();
    expect(store.name.exec(`${ID}.bak`)).toBeNull();
    expect(store.name.exec(`${ID}.jsonl`)).toBeNull();
  });
});
