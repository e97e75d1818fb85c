import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { agents } from "../../src/agents/registry.js";
import type { AgentPlugin } from "../../src/agents/types.js";
import type { Logger } from "../../src/log/logger.js";
import { decideStart, planContext, unpinnedStart } from "../../src/run/decide-start.js";
import type { StartQuestion } from "../../src/run/options.js";
import { useTempDir } from "../pointer/tempdir.js";
import { claudeTranscript, ID, NOW, pinClaude, question as startQuestion } from "./start-support.js";

const tmp = useTempDir();
const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const question = (plugin: AgentPlugin, args: readonly string[] = [], o: Parameters<typeof startQuestion>[3] = {}): StartQuestion => startQuestion(tmp.path, plugin, args, o);

describe("decideStart", () => {
  it("starts cold with no pointer, giving the new session an ID of its own", async () => {
    const q = question(agents.claude, [], { prompt: "fix the build" });
    const { decision, read } = await decideStart(q, agents.claude, NOW);
    expect(read).toEqual({ kind: "missing" });
    expect(decision).toMatchObject({ mode: "cold", id: null, chosen: expect.stringMatching(UUID_V4) });
  });

  it("resumes the pointer's session while the agent's own store holds it", async () => {
    const q = question(agents.claude);
    await pinClaude(q);
    claudeTranscript(q, ID);
    const { decision, read } = await decideStart(q, agents.claude, NOW);
    expect(read.kind).toBe("ok");
    expect(decision).toMatchObject({ mode: "warm", id: ID });
  });

  it("starts cold, setting the pointer aside, once the store has lost the session", async () => {
    const q = question(agents.claude);
    await pinClaude(q);
    claudeTranscript(q, "7a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d");
    const { decision } = await decideStart(q, agents.claude, NOW);
    expect(decision).toMatchObject({ mode: "cold", setsAside: "gone" });
    expect(decision.reason).toContain(`session ${ID} is gone from claude's own store`);
  });

  it("refuses, with exit code 3, a pointer the user named that belongs to another folder", async () => {
    const q = question(agents.claude, [], { explicit: true });
    await pinClaude(q, "/elsewhere");
    const { decision } = await decideStart(q, agents.claude, NOW);
    expect(decision.mode).toBe("refused");
    expect(decision.mode === "refused" && decision.error.exitCode).toBe(3);
  });
});

describe("planContext", () => {
  it("hands decide() the message, the pointer and a fresh UUID at every call", () => {
    const q = question(agents.claude, [], { prompt: "fix the build", explicit: true });
    const context = planContext(q);
    expect(context).toMatchObject({ cwd: q.agent.cwd, prompt: "fix the build", resumePrompt: "go on", messageId: "m-1", pointerPath: q.pointer.path, explicitPointer: true });
    const [a, b] = [context.fresh(), context.fresh()];
    expect(a).toMatch(UUID_V4);
    expect(a).not.toBe(b);
  });
});

describe("unpinnedStart", () => {
  const why = { reason: "aider keeps no session IDs", conversation: true };
  function log(): Logger & { lines: string[] } {
    const lines: string[] = [];
    return { lines, info: (m) => void lines.push(m), warn: (m) => void lines.push(`warn ${m}`), close: () => undefined };
  }

  it("adds the agent's restore-history flag when asked and its history file is there, and says so", () => {
    const q = question(agents.aider, ["--model", "x"], { restoreHistory: true });
    writeFileSync(join(q.agent.cwd, ".aider.chat.history.md"), "# aider chat\n");
    const heard = log();
    expect(unpinnedStart(q, why, heard)).toMatchObject({ mode: "unpinned", args: ["--model", "x", "--restore-chat-history"], promptVia: "none" });
    expect(heard.lines).toEqual([".aider.chat.history.md exists: adding --restore-chat-history"]);
  });

  it("adds nothing without the file, or when not asked, and then delivers the prompt as a cold start would", () => {
    const q = question(agents.aider, [], { restoreHistory: true, prompt: "fix it" });
    const heard = log();
    expect(unpinnedStart(q, why, heard)).toMatchObject({ args: [], promptVia: "pty", prompt: "fix it" });
    expect(heard.lines).toEqual([`no .aider.chat.history.md in ${q.agent.cwd}: nothing to restore`]);
    writeFileSync(join(q.agent.cwd, ".aider.chat.history.md"), "# aider chat\n");
    const quiet = log();
    expect(unpinnedStart(question(agents.aider, [], { prompt: "fix it" }), why, quiet).args).toEqual([]);
    expect(quiet.lines).toEqual([]);
  });

  it("types nothing into an invocation that opens no conversation", () => {
    const q = question(agents.claude, ["--version"], { prompt: "fix it" });
    expect(unpinnedStart(q, { reason: "`claude --version` opens no conversation", conversation: false })).toMatchObject({ args: ["--version"], promptVia: "none", prompt: undefined, conversation: false });
  });
});
