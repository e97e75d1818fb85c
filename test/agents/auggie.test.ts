import { mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { auggie } from "../../src/agents/auggie.js";
import { Extractor } from "../../src/engine/extract.js";
import { judgeLine, matchesAny } from "../../src/engine/match.js";
import { captureAll } from "../../src/engine/capture/pipeline.js";
import { itSaysKinds } from "./kinds.js";

const ID = "2d7f4c1e-8a3b-4f69-9e02-5b1c7d3a6f84";

describe("auggie argv", () => {
  it("resumes the Coder module's command with --resume <id>, without --instruction or --continue", () => {
    const coder = [
      "--model", "sonnet4.5", "--mcp-config", "/h/.augment/coder_mcp.json", "--rules", "/h/.augment/rules.md",
      "--continue", "--instruction", "Fix the failing build", "--workspace-root", "/w",
    ];
    expect(auggie.warmArgs(coder, ID)).toEqual([
      "--model", "sonnet4.5", "--mcp-config", "/h/.augment/coder_mcp.json", "--rules", "/h/.augment/rules.md",
      "--workspace-root", "/w", "--resume", ID,
    ]);
  });

  it("drops every form of the task and an earlier session choice", () => {
    expect(auggie.warmArgs(["fix the bug", "-m", "gpt5"], ID)).toEqual(["-m", "gpt5", "--resume", ID]);
    expect(auggie.warmArgs(["-i", "fix it", "--instruction=fix it", "--queue", "then this"], ID)).toEqual(["--resume", ID]);
    expect(auggie.warmArgs(["-if", "task.md", "-c"], ID)).toEqual(["--resume", ID]);
    expect(auggie.warmArgs(["-r", "3c8a1f6e", "-w", "/w"], ID)).toEqual(["-w", "/w", "--resume", ID]);
    expect(auggie.warmArgs(["--resume"], ID)).toEqual(["--resume", ID]);
  });

  it("keeps print mode: 0.36.0 resumes headless with `--print --resume <id>` and a new instruction", () => {
    expect(auggie.warmArgs(["--print", "--output-format", "json", "remember the word zebra"], ID)).toEqual(["--print", "--output-format", "json", "--resume", ID]);
    const warm = auggie.warmArgs(["-p", "-q", "fix it"], ID);
    expect(auggie.coldArgs(warm, "which word?")).toEqual({ args: ["-p", "-q", "--resume", ID, "--instruction", "which word?"], promptVia: "argv" });
  });

  it("passes the cold prompt as --instruction unless the command carries its task", () => {
    expect(auggie.coldArgs(["--model", "gpt5"], "do it")).toEqual({ args: ["--model", "gpt5", "--instruction", "do it"], promptVia: "argv" });
    expect(auggie.coldArgs(["--instruction", "own"], "do it")).toEqual({ args: ["--instruction", "own"], promptVia: "none" });
    expect(auggie.coldArgs(["own task"], "do it")).toEqual({ args: ["own task"], promptVia: "none" });
    expect(auggie.coldArgs(["--model", "gpt5"], undefined)).toEqual({ args: ["--model", "gpt5"], promptVia: "pty" });
  });

});

describe("auggie kinds of invocation", () => {
  itSaysKinds(auggie, {
    none: [
      ["--version"], ["-v"], ["--help"], ["-h"], ["session", "list"], ["sessions", "delete"], ["mcp", "add", "x"], ["login"],
      ["token", "print"], ["tools"], ["--mcp"], ["session", "resume", "--help"],
    ],
    unpinned: [["--acp"], ["--dont-save-session"]],
    caller: [
      [["--resume", ID], { id: ID, via: `--resume ${ID}` }],
      [["--print", "-r", ID, "--instruction", "go on"], { id: ID, via: `-r ${ID}` }],
      [["--resume", ID.slice(0, 8)], { via: `--resume ${ID.slice(0, 8)}` }], // a prefix
      [["--resume"], { via: "--resume" }], // a picker
      [["-c"], { via: "-c" }],
      [["session", "resume", ID], { id: ID, via: `session resume ${ID}` }],
      [["session", "resume"], { via: "session resume" }],
      [["sessions", "continue"], { via: "sessions continue" }],
    ],
    pinned: [[], ["--instruction", "session"], ["explain the session code"], ["resume the work"], ["--model", "resume"], ["--instruction", "--resume"]],
  });
});

describe("auggie rules", () => {
  const pinnedFrom = async (output: string) => {
    const extractor = new Extractor(auggie);
    for (const line of captureAll([output])) extractor.line(line);
    return extractor.tracker.current;
  };

  it("takes the ID from 0.36.0's resume tip (two Ctrl+C) and from the older spellings", async () => {
    const tip = `\x1b[90m\u2728 Tip: Use 'auggie session continue' or 'auggie session resume ${ID}' to resume your session\x1b[39m\r\n`;
    expect(await pinnedFrom(tip)).toMatchObject({ id: ID, rule: "exit-resume-hint", state: "provisional" });
    expect(await pinnedFrom(`auggie --resume=${ID}\r\n`)).toMatchObject({ id: ID });
  });

  it("takes session_id from print mode's result line only", () => {
    const result = { type: "result", result: "done", is_error: false, subtype: "success", session_id: ID, num_turns: 0, request_id: "6ae59e45-734d-4b65-9d9d-506e1c90ba80" };
    expect(judgeLine(auggie, { n: 1, text: JSON.stringify(result), json: result })).toEqual([expect.objectContaining({ kind: "taken", id: ID, rule: "print-result", state: "provisional" })]);
    const other = { type: "progress", session_id: ID };
    expect(judgeLine(auggie, { n: 1, text: JSON.stringify(other), json: other })).toEqual([]);
  });

  it("never takes a prefix, a request ID or a bare UUID", async () => {
    expect(await pinnedFrom(`auggie --resume ${ID.slice(0, 8)}\r\n`)).toBeUndefined();
    expect(await pinnedFrom(`Request ID: ${ID}\r\nSession ${ID}\r\n`)).toBeUndefined();
  });

  it("rejects on 0.36.0's unknown-session text, in the TUI and in print mode", () => {
    expect(matchesAny(auggie.rejected, `Error: Failed to resume session: No session found matching '${ID}'.`)).toBe(true);
    expect(matchesAny(auggie.rejected, `\u274c Failed to initialize agent: Failed to resume session: No session found matching '${ID}'.`)).toBe(true);
    expect(matchesAny(auggie.rejected, "Run 'auggie session list' to see available sessions and their IDs")).toBe(false);
  });

  it("keeps the pointer on 0.36.0's network, auth and missing-instruction failures", () => {
    for (const text of [
      "Warning: Could not fetch tenant MCP server configurations: fetch failed (ECONNREFUSED: connect ECONNREFUSED 127.0.0.1:47199)",
      '\u274c API Error: "unavailable: fetch failed (ECONNREFUSED: connect ECONNREFUSED 127.0.0.1:47199)"',
      "\u274c Authentication failed: HTTP error: 401 Unauthorized",
      "   Run 'auggie login' to authenticate first.",
      "\u274c No auth provided. Please log in with `auggie login` or set the AUGMENT_SESSION_AUTH environment variable.",
      "\u274c Failed to initialize agent: No instruction provided. In text mode, provide an instruction via command line argument, --instruction-file, or stdin.",
    ]) {
      expect(matchesAny(auggie.transient, text), text).toBe(true);
    }
    expect(matchesAny(auggie.transient, `Error: Failed to resume session: No session found matching '${ID}'.`)).toBe(false);
  });
});

describe("auggie session store", () => {
  // A real 0.36.0 session file (fixtures/auggie/session-0360.json), written in /tmp/auggie-exp/project.
  const file = readFileSync(join(import.meta.dirname, "../../fixtures/auggie/session-0360.json"), "utf8");
  const context = (cwd: string) => ({ home: "/h", cwd, env: {} });
  const store = auggie.store;

  it("lists ~/.augment/sessions/<uuid>.json by whole ID", () => {
    expect(store?.where(context("/w"), new Date())).toEqual([{ dir: "/h/.augment/sessions", depth: 0 }]);
    expect(store?.name.exec("442b9830-da46-48cb-8ca1-28649c74ba90.json")?.groups?.["id"]).toBe("442b9830-da46-48cb-8ca1-28649c74ba90");
    expect(store?.name.exec("442b9830-da46-48cb-8ca1-28649c74ba90.json.tmp")).toBeNull();
    expect(store?.wholeId).toBe(true);
  });

  it("belongs to the folder its IDE state names, not to another one or a prefix of it", () => {
    expect(store?.belongs?.(file, context("/tmp/auggie-exp/project"))).toBe(true);
    expect(store?.belongs?.(file, context("/tmp/auggie-exp"))).toBe(false);
    expect(store?.belongs?.(file, context("/tmp/auggie-exp/project2"))).toBe(false);
    // Only the IDE state counts, not a folder named in the chat.
    const chat = file.replaceAll('"folder_root": "/tmp/auggie-exp/project"', '"folder_root": "/elsewhere"').replaceAll('"current_working_directory": "/tmp/auggie-exp/project"', '"current_working_directory": "/elsewhere"');
    expect(store?.belongs?.(chat.replace("remember the word zebra", "look at /tmp/auggie-exp/project"), context("/tmp/auggie-exp/project"))).toBe(false);
    // A head cut before the IDE state (a first message of over ~32 KiB) says nothing: not taken.
    expect(store?.belongs?.(file.slice(0, file.indexOf('"ide_state_node"')), context("/tmp/auggie-exp/project"))).toBe(false);
  });

  it("belongs to a subfolder of a git repository whose root the IDE state names (0.36.0 names the git root)", () => {
    const dir = mkdtempSync(join(tmpdir(), "auggie-store-"));
    try {
      mkdirSync(join(dir, "repo", ".git"), { recursive: true });
      mkdirSync(join(dir, "repo", "sub"), { recursive: true });
      mkdirSync(join(dir, "plain", "sub"), { recursive: true });
      const at = (root: string) => file.replaceAll("/tmp/auggie-exp/project", root);
      expect(store?.belongs?.(at(join(dir, "repo")), context(join(dir, "repo", "sub")))).toBe(true);
      expect(store?.belongs?.(at(join(dir, "repo")), context(join(dir, "repo")))).toBe(true);
      // An ancestor that is not the git root (no .git there) is another workspace.
      expect(store?.belongs?.(at(join(dir, "plain")), context(join(dir, "plain", "sub")))).toBe(false);
      expect(store?.belongs?.(at(join(dir, "repo", "sub")), context(join(dir, "repo")))).toBe(false);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
