/**
 * Real Claude Code, print mode with a SessionStart hook, through sessionpin at agentapi's 67x1190,
 * against the fake Messages API. What the real stream writes before `init` (hook lines), and that
 * the plugin takes the session from them; and that the same real lines, hard-wrapped at 67
 * columns the way agentapi's state file keeps a screen, still pin the session on replay.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { Cleanup, exitOf, WAIT_MS } from "../e2e/support.js";
import { FakeAnthropic } from "./fake-anthropic.js";
import { claudeEnv, fakeApiPerTest, jsonLines, pinned, rawText, realSandbox, replayOf, run, UUID } from "./support.js";

const cleanup = new Cleanup();
const api = fakeApiPerTest(cleanup, () => FakeAnthropic.start());

const STREAM = ["--output-format", "stream-json", "--verbose"];
const REMEMBER = "remember the word zebra";
const WIDTH = 67;

/** A line cut into rows of the screen's width, as a screen snapshot holds it. */
const rows = (line: string): string[] => line.match(new RegExp(`.{1,${WIDTH}}`, "gsu")) ?? [];

describe(`Claude Code ${pinned("@anthropic-ai/claude-code")} stream lines before init`, () => {
  it("writes hook lines with its own session_id before init; cut after them, or wrapped at 67 columns, they pin the session", async () => {
    const sb = realSandbox(cleanup, claudeEnv(api().url, "api-key"));
    // A SessionStart hook in the sandbox's user settings: Claude reports it in the stream.
    mkdirSync(join(sb.home, ".claude"), { recursive: true });
    writeFileSync(join(sb.home, ".claude", "settings.json"), JSON.stringify({
      hooks: { SessionStart: [{ hooks: [{ type: "command", command: "echo hook-ok" }] }] },
    }));
    const cold = cleanup.driver(sb.sessionpin(run(sb, [], ["claude", "-p", REMEMBER, ...STREAM])));
    expect((await exitOf(cold, WAIT_MS * 4)).exitCode).toBe(0);
    const id = String(sb.readPointer()["id"]);
    expect(id).toMatch(UUID);
    // The fake API received the turn under that session: the stream below is this session's.
    expect(api().conversation(REMEMBER)[0]?.sessionId).toBe(id);

    // The PTY wraps nothing (the terminal does, visually): one JSON object per line.
    const lines = rawText(cold).split("\n").filter((line) => line.startsWith("{"));
    const events = jsonLines(lines.join("\n"));
    const initAt = events.findIndex((e) => e["type"] === "system" && e["subtype"] === "init");
    const before = events.slice(0, initAt);
    expect(before.map((e) => `${String(e["type"])}/${String(e["subtype"])}`)).toEqual(expect.arrayContaining(["system/hook_started", "system/hook_response"]));
    for (const event of before) expect(event["session_id"]).toBe(id);

    // Only the lines before init (a run killed while its hooks ran): the hook lines pin the session.
    const cut = join(sb.dir, "before-init.jsonl");
    writeFileSync(cut, lines.slice(0, initAt).join("\n") + "\n");
    expect(replayOf(sb, cut)).toMatchObject({ status: 0, result: { agent: "claude", id, state: "provisional", rule: "event" } });

    // The whole real stream as agentapi's state file keeps a 67-column screen: every line longer
    // than the screen is cut into rows. Replayed, the rows are joined again and the result confirms.
    const screen = lines.flatMap(rows);
    expect(screen.length).toBeGreaterThan(lines.length);
    const state = join(sb.dir, "agentapi-state.json");
    writeFileSync(state, JSON.stringify({
      version: 1,
      messages: [{ id: 0, message: `$ claude -p ${REMEMBER}\n${screen.join("\n")}`, role: "agent", time: "2026-11-25T20:00:00Z" }],
      initial_prompt: REMEMBER,
      initial_prompt_sent: true,
    }));
    expect(replayOf(sb, state)).toMatchObject({ status: 0, result: { format: "agentapi-state", agent: "claude", id, state: "confirmed", rule: "result" } });
    // Kept for fixtures/claude (the real lines before init, and where each line ends).
    if (process.env["DRIFT_KEEP"]) writeFileSync(process.env["DRIFT_KEEP"], lines.join("\n") + "\n");
  });
});
