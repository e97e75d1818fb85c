import { describe, expect, it } from "vitest";
import { judgeLine, matchesAny } from "../../src/engine/match.js";
import { pluginForCommand } from "../../src/agents/registry.js";
import { qwen } from "../../src/agents/qwen.js";
import { itSaysKinds } from "./kinds.js";

const ID = "9ca906aa-a771-42ef-bd10-d5a75d7b5502";
const FRESH = "4b2d8e6f-1a3c-4e5b-9d7f-0c2e4a6b8d1f";
const context = { home: "/home/coder", cwd: "/home/coder/my_project.v2", env: {} };

describe("qwen argv", () => {
  it("is the built-in plugin of the `qwen` executable", () => {
    expect(pluginForCommand("/usr/local/bin/qwen")).toBe(qwen);
  });

  it("gives the TUI its cold prompt as -i (a positional is one-shot), one-shot runs as -p, and keeps the user's own", () => {
    expect(qwen.coldArgs(["--model", "fake"], "fix it")).toEqual({ args: ["--model", "fake", "-i", "fix it"], promptVia: "argv" });
    expect(qwen.coldArgs(["-o", "stream-json"], "- list files")).toEqual({ args: ["-o", "stream-json", "-p", "- list files"], promptVia: "argv" });
    expect(qwen.coldArgs(["--output-format=json"], "go")).toEqual({ args: ["--output-format=json", "-p", "go"], promptVia: "argv" });
    // A variadic option takes every word up to the next option, so they are not a prompt.
    expect(qwen.coldArgs(["--add-dir", "../lib", "../docs"], "go")).toEqual({ args: ["--add-dir", "../lib", "../docs", "-i", "go"], promptVia: "argv" });
    expect(qwen.coldArgs(["-p", "own prompt"], "fix it")).toEqual({ args: ["-p", "own prompt"], promptVia: "none" });
    expect(qwen.coldArgs(["-i", "own prompt"], "fix it")).toEqual({ args: ["-i", "own prompt"], promptVia: "none" });
    expect(qwen.coldArgs(["own prompt"], "fix it")).toEqual({ args: ["own prompt"], promptVia: "none" });
    expect(qwen.coldArgs(["--model", "fake"], undefined)).toEqual({ args: ["--model", "fake"], promptVia: "pty" });
  });

  it("names a cold session with --session-id, unless the command chose a session already", () => {
    expect(qwen.chooseId?.(["-i", "fix it"], FRESH)).toEqual({ id: FRESH, args: ["--session-id", FRESH, "-i", "fix it"] });
    expect(qwen.chooseId?.(["--session-id", ID], FRESH)).toEqual({ id: ID, args: ["--session-id", ID] });
    expect(qwen.chooseId?.(["--session-id", "my-name"], FRESH)).toBeUndefined();
    for (const args of [["--resume", ID], ["-r", ID], ["-r"], ["-c"], ["--continue"], ["--resume", ID, "--fork-session"]]) {
      expect(qwen.chooseId?.(args, FRESH), args.join(" ")).toBeUndefined();
    }
  });

  it("resumes with --resume <id> at the end, without the prompt or another choice of session", () => {
    expect(qwen.warmArgs(["--model", "fake", "-i", "fix the bug"], ID)).toEqual(["--model", "fake", "--resume", ID]);
    expect(qwen.warmArgs(["--session-id", FRESH, "--approval-mode", "yolo"], ID)).toEqual(["--approval-mode", "yolo", "--resume", ID]);
    expect(qwen.warmArgs(["-c", "--fork-session", "-r", FRESH, "--add-dir", "../lib", "../docs"], ID)).toEqual(["--add-dir", "../lib", "../docs", "--resume", ID]);
    // One-shot runs keep their mode as an empty -p, which a --resume-prompt fills.
    expect(qwen.warmArgs(["-p", "fix the bug", "-o", "stream-json"], ID)).toEqual(["-o", "stream-json", "-p", "", "--resume", ID]);
    expect(qwen.warmArgs(["fix the bug"], ID)).toEqual(["-p", "", "--resume", ID]);
    expect(qwen.coldArgs(qwen.warmArgs(["-p", "fix the bug"], ID), "which word?")).toEqual({ args: ["--resume", ID, "-p", "which word?"], promptVia: "argv" });
    expect(qwen.coldArgs(qwen.warmArgs(["--model", "fake"], ID), "which word?")).toEqual({ args: ["--model", "fake", "--resume", ID, "-i", "which word?"], promptVia: "argv" });
    // An option's value that looks like a prompt stays with its option.
    expect(qwen.warmArgs(["--append-system-prompt", "be brief", "--model=fake"], ID)).toEqual(["--append-system-prompt", "be brief", "--model=fake", "--resume", ID]);
  });

});

describe("qwen kinds of invocation", () => {
  itSaysKinds(qwen, {
    none: [["--version"], ["-v"], ["--help"], ["-h"], ["sessions", "list"], ["mcp"], ["review", "run"], ["-l"]],
    unpinned: [["--acp"], ["serve"], ["--no-chat-recording", "-p", "hi"], ["--chat-recording=false"]],
    caller: [
      [["--resume", ID], { id: ID, via: `--resume ${ID}` }],
      [["-r", ID, "-p", "go on"], { id: ID, via: `-r ${ID}` }],
      [["--resume"], { via: "--resume" }], // a picker
      [["--resume", "my-task"], { via: "--resume my-task" }],
      [["-c", "-p", "go on", "-o", "stream-json"], { via: "-c" }],
      [["--continue"], { via: "--continue" }],
      [["--resume", ID, "--fork-session"], { via: `--resume ${ID} --fork-session` }], // a new session
      // `-p` takes no word that starts with "-" (0.24.4: the ID went to --resume): a picker.
      [["-p", "--resume"], { via: "--resume" }],
    ],
    pinned: [[], ["update the docs"], ["-p", "mcp"], ["--model", "fake"], ["resume the work"], ["--session-id", FRESH]],
  });
});

describe("qwen rules", () => {
  const json = (value: Record<string, unknown>) => ({ n: 1, text: JSON.stringify(value), json: value });
  const text = (value: string) => ({ n: 1, text: value });

  it("takes session_id from init and messages (provisional); only a successful result confirms", () => {
    expect(judgeLine(qwen, json({ type: "system", subtype: "init", session_id: ID }))).toEqual([{ kind: "taken", rule: "system-init", id: ID, state: "provisional" }]);
    expect(judgeLine(qwen, json({ type: "assistant", session_id: ID }))).toEqual([{ kind: "taken", rule: "message", id: ID, state: "provisional" }]);
    expect(judgeLine(qwen, json({ type: "result", subtype: "success", session_id: ID }))).toEqual([{ kind: "taken", rule: "result", id: ID, state: "confirmed" }]);
    expect(judgeLine(qwen, json({ type: "result", subtype: "error_during_execution", session_id: ID }))).toEqual([]);
    expect(judgeLine(qwen, json({ type: "stream_event", session_id: ID }))).toEqual([]);
  });

  it("reads the exit hint across its two rows, and only after its label", () => {
    const [verdict] = judgeLine(qwen, text(`qwen --resume ${ID}`), { text: "To continue this session, run", fullRow: false });
    expect(verdict).toEqual({ kind: "taken", rule: "exit-hint", id: ID, state: "provisional" });
    // The /quit summary: one row, wrapped at 67 columns before the ID.
    expect(judgeLine(qwen, text(`  ${ID}`), { text: "  To continue this session, run qwen --resume", fullRow: false })).toEqual([verdict]);
    expect(judgeLine(qwen, text(`  ◆︎ Run qwen --resume ${ID} here.`))).toEqual([]);
    expect(judgeLine(qwen, text(`codex resume ${ID}`), { text: "To continue this session, run", fullRow: false })).toEqual([]);
  });

  it("rejects on the unknown-ID text only; API failures are transient", () => {
    expect(matchesAny(qwen.rejected, `No saved session found with ID ${ID}. Run \`qwen --resume\` without an ID to choose from existing sessions.`)).toBe(true);
    expect(matchesAny(qwen.rejected, "[API Error: Connection error. (cause: fetch failed)]")).toBe(false);
    for (const line of ["[API Error: Connection error. (cause: fetch failed)]", "  ✕ [API Error: 401 fake chat API: refused] (Press", "No input provided via stdin. Input can be provided by piping data into gemini or using the --prompt option."]) {
      expect(matchesAny(qwen.transient, line), line).toBe(true);
    }
    expect(matchesAny(qwen.transient, `No saved session found with ID ${ID}.`)).toBe(false);
  });
});

describe("qwen store", () => {
  const store = qwen.store;
  it("is projects/<cwd, non-alphanumerics as ->/chats under ~/.qwen, QWEN_HOME or QWEN_RUNTIME_DIR", () => {
    expect(store?.where(context, new Date())).toEqual([{ dir: "/home/coder/.qwen/projects/-home-coder-my-project-v2/chats", depth: 0 }]);
    expect(store?.where({ ...context, env: { QWEN_HOME: "/q" } }, new Date())).toEqual([{ dir: "/q/projects/-home-coder-my-project-v2/chats", depth: 0 }]);
    expect(store?.where({ ...context, env: { QWEN_HOME: "/q", QWEN_RUNTIME_DIR: "/r" } }, new Date())).toEqual([{ dir: "/r/projects/-home-coder-my-project-v2/chats", depth: 0 }]);
  });

  it("takes <uuid>.jsonl, not the runtime file written before any turn", () => {
    expect(store?.name.exec(`${ID}.jsonl`)?.groups?.["id"]).toBe(ID);
    expect(store?.name.exec(`${ID}.runtime.json`)).toBeNull();
    expect(store?.wholeId).toBe(true);
  });

  it("belongs to the cwd its lines name (two folders can share a sanitized name)", () => {
    const line = JSON.stringify({ uuid: FRESH, parentUuid: null, sessionId: ID, type: "user", cwd: context.cwd, version: "0.24.4" });
    expect(store?.belongs?.(`${line}\n`, context)).toBe(true);
    expect(store?.belongs?.(`${line.replace(context.cwd, "/home/coder/my/project/v2")}\n`, context)).toBe(false);
    expect(store?.belongs?.("", context)).toBe(false);
  });
});
