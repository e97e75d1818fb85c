import { describe, expect, it } from "vitest";
import { auggie } from "../../src/agents/auggie.js";
import { Extractor } from "../../src/engine/extract.js";
import { judgeLine, matchesAny } from "../../src/engine/match.js";
import { captureAll } from "../../src/engine/capture/pipeline.js";

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

  it("drops every form of the task, print mode and an earlier session choice", () => {
    expect(auggie.warmArgs(["fix the bug", "-m", "gpt5"], ID)).toEqual(["-m", "gpt5", "--resume", ID]);
    expect(auggie.warmArgs(["--print", "--quiet", "--instruction=fix it"], ID)).toEqual(["--resume", ID]);
    expect(auggie.warmArgs(["-if", "task.md", "-c"], ID)).toEqual(["--resume", ID]);
    expect(auggie.warmArgs(["--command", "code-review", "--resume", "3c8a1f6e"], ID)).toEqual(["--resume", ID]);
    expect(auggie.warmArgs(["--resume"], ID)).toEqual(["--resume", ID]);
  });

  it("passes the cold prompt as --instruction unless the command carries its task", () => {
    expect(auggie.coldArgs(["--model", "gpt5"], "do it")).toEqual({ args: ["--model", "gpt5", "--instruction", "do it"], promptVia: "argv" });
    expect(auggie.coldArgs(["--instruction", "own"], "do it")).toEqual({ args: ["--instruction", "own"], promptVia: "none" });
    expect(auggie.coldArgs(["own task"], "do it")).toEqual({ args: ["own task"], promptVia: "none" });
    expect(auggie.coldArgs(["--model", "gpt5"], undefined)).toEqual({ args: ["--model", "gpt5"], promptVia: "pty" });
  });

  it("runs subcommands and protocol modes transparently, but not a task that names one", () => {
    for (const args of [["session", "list"], ["mcp", "add", "x"], ["login"], ["--acp"], ["--mcp"], ["--version"]]) {
      expect(auggie.passthrough?.(args), args.join(" ")).toMatch(/./);
    }
    expect(auggie.passthrough?.(["--instruction", "session"])).toBeUndefined();
    expect(auggie.passthrough?.(["explain the session code"])).toBeUndefined();
  });
});

describe("auggie rules", () => {
  const pinnedFrom = async (output: string) => {
    const extractor = new Extractor(auggie);
    for (const line of await captureAll([output])) extractor.line(line);
    return extractor.tracker.current;
  };

  it("takes the ID from the resume command shown when a session closes", async () => {
    expect(await pinnedFrom(`To resume this session, run:\r\n  auggie --resume ${ID}\r\n`)).toMatchObject({ id: ID, rule: "exit-resume-hint", state: "provisional" });
    expect(await pinnedFrom(`auggie --resume=${ID}\r\n`)).toMatchObject({ id: ID });
    expect(await pinnedFrom(`Resume with: auggie session resume ${ID}\r\n`)).toMatchObject({ id: ID });
  });

  it("never takes a prefix, a request ID, a bare UUID or JSON output", async () => {
    expect(await pinnedFrom(`auggie --resume ${ID.slice(0, 8)}\r\n`)).toBeUndefined();
    expect(await pinnedFrom(`Request ID: ${ID}\r\nSession ${ID}\r\n`)).toBeUndefined();
    const json = { result: "done", session_id: ID };
    expect(judgeLine(auggie, { n: 1, text: `auggie --resume ${ID}`, json })).toEqual([]);
  });

  it("keeps the pointer on a missing login", () => {
    expect(matchesAny(auggie.transient, "You are not currently logged in to Augment. Run auggie login.")).toBe(true);
    expect(auggie.rejected).toEqual([]);
  });
});
