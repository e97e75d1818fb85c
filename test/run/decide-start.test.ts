import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { agents } from "../../src/agents/registry.js";
import type { AgentPlugin } from "../../src/agents/types.js";
import type { Logger } from "../../src/log/logger.js";
import { writePointer } from "../../src/pointer/store.js";
import { decideStart, planContext, unpinnedStart } from "../../src/run/decide-start.js";
import type { StartQuestion } from "../../src/run/options.js";
import { useTempDir } from "../pointer/tempdir.js";

const tmp = useTempDir();
const ID = "0f3c2a9e-5b7d-4e21-9c4a-8d6f1e2b3a40";
const NOW = new Date("2026-11-25T12:00:00Z");
const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

/** A question about the next start of `plugin` in a project folder of a temp HOME, its pointer in the temp folder. */
function question(plugin: AgentPlugin, args: readonly string[] = [], o: { explicit?: boolean; prompt?: string; restoreHistory?: boolean } = {}): StartQuestion {
  const home = join(tmp.path, "home");
  const cwd = join(tmp.path, "project");
  mkdirSync(cwd, { recursive: true });
  return {
    agent: { command: plugin.name, args, plugin, cwd, env: { HOME: home }, restoreHistory: o.restoreHistory ?? false },
    message: { prompt: o.prompt, resumePrompt: "go on", messageId: "m-1" },
    pointer: { path: join(tmp.path, "state", "pointer.json"), explicit: o.explicit ?? false },
  };
}

async function pin(q: StartQuestion, cwd = q.agent.cwd): Promise<void> {
  await writePointer(q.pointer.path, { version: 1, agent: "claude", id: ID, state: "confirmed", cwd, capturedAt: NOW.toISOString(), source: { rule: "result" }, history: [] });
}

/** Claude Code's transcript of session `id`, where it keeps the project folder's sessions. */
function transcript(q: StartQuestion, id: string): void {
  const folder = join(q.agent.env["HOME"] ?? "", ".claude", "projects", q.agent.cwd.replace(/[^A-Za-z0-9]/g, "-"));
  mkdirSync(folder, { recursive: true });
  writeFileSync(join(folder, `${id}.jsonl`), "{}\n");
}

describe("decideStart", () => {
  it("starts cold with no pointer, giving the new session an ID of its own", async () => {
    const q = question(agents.claude, [], { prompt: "fix the build" });
    const { decision, read } = await decideStart(q, agents.claude, NOW);
    expect(read).toEqual({ kind: "missing" });
    expect(decision).toMatchObject({ mode: "cold", id: null, chosen: expect.stringMatching(UUID_V4) });
  });

  it("resumes the pointer's session while the agent's own store holds it", async () => {
    const q = question(agents.claude);
    await pin(q);
    transcript(q, ID);
    const { decision, read } = await decideStart(q, agents.claude, NOW);
    expect(read.kind).toBe("ok");
    expect(decision).toMatchObject({ mode: "warm", id: ID });
  });

  it("starts cold, setting the pointer aside, once the store has lost the session", async () => {
    const q = question(agents.claude);
    await pin(q);
    transcript(q, "7a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d");
    const { decision } = await decideStart(q, agents.claude, NOW);
    expect(decision).toMatchObject({ mode: "cold", setsAside: "gone" });
    expect(decision.reason).toContain(`session ${ID} is gone from claude's own store`);
  });

  it("refuses, with exit code 3, a pointer the user named that belongs to another folder", async () => {
    const q = question(agents.claude, [], { explicit: true });
    await pin(q, "/elsewhere");
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
