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
import { RefusingApi } from "./refusing-api.js";
import { FakeAnthropic, userTexts } from "./fake-anthropic.js";
import { claudeEnv, closedPort, fakeApiPerTest, jsonLines, pinned, rawText, realSandbox, replayOf, run, startsIn, UUID } from "./support.js";

const cleanup = new Cleanup();
const api = fakeApiPerTest(cleanup, () => FakeAnthropic.start());

const STREAM = ["--output-format", "stream-json", "--verbose"];
const REMEMBER = "remember the word zebra";
const ASK = "which word?";
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

  it("keeps the pointer when a warm start cannot reach the API or the key is refused, and resumes it once the API answers", async () => {
    const sb = realSandbox(cleanup, claudeEnv(api().url, "api-key"));
    const cold = cleanup.driver(sb.sessionpin(run(sb, [], ["claude", "-p", REMEMBER, ...STREAM])));
    expect((await exitOf(cold, WAIT_MS * 4)).exitCode).toBe(0);
    const pointer = sb.readPointer();
    const id = String(pointer["id"]);
    expect(pointer).toMatchObject({ state: "confirmed", history: [] });

    // Plain print mode: its only output is the error line (with stream-json the failure is a
    // `result` line too, which confirms the session). No retries, so each failure ends at once
    // (the default is 10 retries with back-off).
    const refused = await RefusingApi.start(401);
    const offline = `http://127.0.0.1:${await closedPort()}`;
    const seen: Record<string, string> = {};
    try {
      for (const [name, url] of [["closed port", offline], ["401", refused.url]] as const) {
        const env = { ...sb.env, ANTHROPIC_BASE_URL: url, CLAUDE_CODE_MAX_RETRIES: "0" };
        const warm = cleanup.driver(sb.sessionpin(run(sb, ["--resume-prompt", ASK], ["claude", "-p", ASK]), { env }));
        expect((await exitOf(warm, WAIT_MS * 4)).exitCode, name).toBe(1);
        expect(startsIn(sb.readLog()).at(-1), name).toEqual(["claude", "-p", "--resume", id, "--", ASK]);
        seen[name] = rawText(warm);
        // Kept: not set aside, no fresh session started in its place.
        expect(sb.asideFiles("rejected"), name).toEqual([]);
        expect(sb.readPointer(), name).toMatchObject({ id, history: [] });
        expect(startsIn(sb.readLog()).filter((argv) => argv.includes("--session-id")), name).toHaveLength(1);
      }
      expect(refused.requests.length).toBeGreaterThan(0);
    } finally {
      await refused.close();
    }
    // What 2.1.330 said (the plugin's transient texts).
    expect(seen["closed port"]).toMatch(/^API Error: Connection refused — a firewall or proxy may be blocking it \(ECONNREFUSED\)/m);
    expect(seen["401"]).toMatch(/^Invalid API key · Fix external API key/m);

    // The API answers again: the same session resumes, with its first turn.
    const back = cleanup.driver(sb.sessionpin(run(sb, ["--resume-prompt", ASK], ["claude", "-p", ASK, ...STREAM])));
    expect((await exitOf(back, WAIT_MS * 4)).exitCode).toBe(0);
    const asked = api().conversation(ASK);
    expect(asked).toHaveLength(1);
    expect(asked[0]?.sessionId).toBe(id);
    // Claude kept the failed attempts' message in the session too (merged into one user turn).
    const texts = userTexts(asked[0]?.messages ?? []).filter((t) => t !== "");
    expect(texts[0]).toBe(REMEMBER);
    expect(texts.at(-1)).toContain(ASK);
    expect(asked[0]?.answer).toBe("FAKE-API: the word is zebra.");
  });
});
