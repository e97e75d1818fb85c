/**
 * Real Claude Code, print mode (`claude -p … --output-format stream-json --verbose`), through
 * sessionpin at agentapi's 67x1190, against the fake Messages API. The fake API's record is the
 * proof: which session header each request carried and which turns it sent.
 */
import { existsSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { describe, expect, it } from "vitest";
import { Cleanup, cwdOf, exitOf, WAIT_MS } from "../e2e/support.js";
import type { Sandbox } from "../helpers/sandbox.js";
import { FakeAnthropic, userTexts } from "./fake-anthropic.js";
import { oneShot, repeatSendsNothing } from "./headless.js";
import { claudeEnv, jsonLines, pinned, rawText, realSandbox, replayOf, run, startsIn, UUID, versionOf, fakeApiPerTest } from "./support.js";

const cleanup = new Cleanup();
const api = fakeApiPerTest(cleanup, () => FakeAnthropic.start());

const STREAM = ["--output-format", "stream-json", "--verbose"];
const REMEMBER = "remember the word zebra";
const STALE = "0b5e8d1c-2f3a-4b6c-8d9e-0f1a2b3c4d5e";
/** Where Claude keeps a session's transcript: the store sessionpin checks before a warm start. */
const transcriptOf = (sb: Sandbox, id: string): string => join(sb.home, ".claude", "projects", cwdOf(sb).replace(/[^A-Za-z0-9]/g, "-"), `${id}.jsonl`);
const ASK = "which word?";

describe(`Claude Code ${pinned("@anthropic-ai/claude-code")} print mode`, () => {
  it("is the pinned version, found on PATH", () => {
    const sb = realSandbox(cleanup);
    expect(versionOf(sb, "claude")).toBe(`${pinned("@anthropic-ai/claude-code")} (Claude Code)`);
  });

  it("pins the session of a stream-json run; the next call's new message continues it, a repeated one sends nothing", async () => {
    const sb = realSandbox(cleanup, claudeEnv(api().url, "api-key"));

    // Cold: sessionpin names the session up front (--session-id) and the stream's `result` confirms it.
    const cast = join(sb.dir, "cold.cast");
    const cold = cleanup.driver(sb.sessionpin(run(sb, ["--record", cast], ["claude", "-p", REMEMBER, ...STREAM])));
    expect((await exitOf(cold, WAIT_MS * 4)).exitCode).toBe(0);
    const pointer = sb.readPointer();
    const id = String(pointer["id"]);
    expect(id).toMatch(UUID);
    // Confirmed by whichever comes first on a busy machine: the stream's result or the transcript.
    expect(pointer).toMatchObject({ agent: "claude", state: "confirmed", source: { rule: expect.stringMatching(/^(result|transcript)$/) as unknown }, history: [] });
    expect(startsIn(sb.readLog())).toEqual([["claude", "--session-id", id, "-p", REMEMBER, ...STREAM]]);
    // The real stream: init, assistant and result all carry the chosen ID.
    const events = jsonLines(rawText(cold));
    expect(events.find((e) => e["type"] === "system" && e["subtype"] === "init")?.["session_id"]).toBe(id);
    expect(events.find((e) => e["type"] === "result")).toMatchObject({ subtype: "success", is_error: false, session_id: id, result: "FAKE-API: noted the word zebra." });
    const first = api().conversation(REMEMBER);
    expect(first).toHaveLength(1);
    expect(first[0]?.sessionId).toBe(id);
    expect(first[0]?.stream).toBe(true);
    // The real stream alone, replayed offline, gives the same ID through the plugin's stream rules.
    expect(replayOf(sb, cast)).toMatchObject({ status: 0, result: { agent: "claude", id, state: "confirmed", rule: "result" } });

    // Warm: the new message in argv is a follow-up: sessionpin resumes the pinned ID in print mode
    // and delivers it. The fake API sees the same session header and the earlier turns, and so
    // "remembers" the word.
    const asked = cleanup.driver(sb.sessionpin(run(sb, [], ["claude", "-p", ASK, ...STREAM])));
    expect((await exitOf(asked, WAIT_MS * 4)).exitCode).toBe(0);
    expect(startsIn(sb.readLog()).at(-1)).toEqual(["claude", "-p", ...STREAM, "--resume", id, "--", ASK]);
    const resumed = api().conversation(ASK);
    expect(resumed).toHaveLength(1);
    expect(resumed[0]?.sessionId).toBe(id);
    expect(userTexts(resumed[0]?.messages ?? []).filter((t) => t !== "")).toEqual([REMEMBER, ASK]);
    expect(resumed[0]?.messages.map((m) => m.role).filter((r) => r !== "system")).toEqual(["user", "assistant", "user"]);
    expect(resumed[0]?.answer).toBe("FAKE-API: the word is zebra.");
    expect(jsonLines(rawText(asked)).find((e) => e["type"] === "result")).toMatchObject({ subtype: "success", session_id: id });
    expect(sb.readPointer()).toMatchObject({ id, state: "confirmed", messages: [{}, {}] });

    // The same call again (a retried step) sends nothing; with --resume-prompt that message goes instead.
    const requests = api().requests.length;
    const repeat = cleanup.driver(sb.sessionpin(run(sb, [], ["claude", "-p", ASK, ...STREAM])));
    expect((await exitOf(repeat, WAIT_MS * 4)).exitCode).toBe(4);
    expect(api().requests).toHaveLength(requests);
    const nudged = cleanup.driver(sb.sessionpin(run(sb, ["--resume-prompt", "which word? once more"], ["claude", "-p", ASK, ...STREAM])));
    expect((await exitOf(nudged, WAIT_MS * 4)).exitCode).toBe(0);
    expect(startsIn(sb.readLog()).at(-1)).toEqual(["claude", "-p", ...STREAM, "--resume", id, "--", "which word? once more"]);
    expect(userTexts(api().conversation("once more")[0]?.messages ?? []).filter((t) => t !== "")).toEqual([REMEMBER, ASK, "which word? once more"]);
  });

  it("sets aside a pinned session gone from Claude's transcripts before launch: the fresh session gets the new message, Claude is never asked to resume it", async () => {
    const sb = realSandbox(cleanup, claudeEnv(api().url, "api-key"));
    const cold = cleanup.driver(sb.sessionpin(run(sb, [], ["claude", "-p", REMEMBER, ...STREAM])));
    expect((await exitOf(cold, WAIT_MS * 4)).exitCode).toBe(0);
    // The transcript the real CLI wrote is where the store check looks.
    expect(existsSync(transcriptOf(sb, String(sb.readPointer()["id"])))).toBe(true);

    writeFileSync(sb.pointer, `${JSON.stringify({ ...sb.readPointer(), id: STALE }, null, 2)}\n`, { mode: 0o600 });
    const warm = cleanup.driver(sb.sessionpin(run(sb, [], ["claude", "-p", ASK, ...STREAM])));
    expect((await exitOf(warm, WAIT_MS * 4)).exitCode).toBe(0);
    expect(warm.text).not.toContain("No conversation found");
    const fresh = String(sb.readPointer()["id"]);
    expect(startsIn(sb.readLog()).at(-1)).toEqual(["claude", "--session-id", fresh, "-p", ASK, ...STREAM]);
    expect(startsIn(sb.readLog()).flat()).not.toContain(STALE);
    expect(sb.readLog()).toContain(`session ${STALE} is gone from claude's own store`);
    expect(sb.asideFiles("gone")).toHaveLength(1);
    const asked = api().conversation(ASK);
    expect(asked).toHaveLength(1);
    expect(asked[0]?.sessionId).toBe(fresh);
    expect(userTexts(asked[0]?.messages ?? []).filter((t) => t !== "")).toEqual([ASK]);
  });

  it("where sessionpin cannot tell (no transcripts of this folder), Claude's own refusal falls back in the same run, with the new message", async () => {
    const sb = realSandbox(cleanup, claudeEnv(api().url, "api-key"));
    const cold = cleanup.driver(sb.sessionpin(run(sb, [], ["claude", "-p", REMEMBER, ...STREAM])));
    expect((await exitOf(cold, WAIT_MS * 4)).exitCode).toBe(0);
    rmSync(dirname(transcriptOf(sb, String(sb.readPointer()["id"]))), { recursive: true });

    // Claude 2.1.330 looks the session up before it looks for a prompt: the plugin's rejection text.
    writeFileSync(sb.pointer, `${JSON.stringify({ ...sb.readPointer(), id: STALE }, null, 2)}\n`, { mode: 0o600 });
    const warm = cleanup.driver(sb.sessionpin(run(sb, [], ["claude", "-p", ASK, ...STREAM])));
    expect((await exitOf(warm, WAIT_MS * 4)).exitCode).toBe(0);

    // What 2.1.330 printed: the error line, then a stream `result` that says the same.
    expect(warm.text).toContain(`No conversation found with session ID: ${STALE}`);
    const events = jsonLines(rawText(warm));
    expect(events[0]).toMatchObject({ type: "result", subtype: "error_during_execution", is_error: true, session_id: STALE, errors: [`No conversation found with session ID: ${STALE}`] });

    // sessionpin set the stale pointer aside and started afresh in the same run, with the same
    // message: "which word?" reached Claude once, in a new session.
    const [resumeArgv, freshArgv] = startsIn(sb.readLog()).slice(-2);
    expect(resumeArgv).toEqual(["claude", "-p", ...STREAM, "--resume", STALE, "--", ASK]);
    const fresh = String(sb.readPointer()["id"]);
    expect(fresh).toMatch(UUID);
    expect(fresh).not.toBe(STALE);
    expect(freshArgv).toEqual(["claude", "--session-id", fresh, "-p", ASK, ...STREAM]);
    expect(sb.readLog()).toContain(`stored ID ${STALE} rejected: claude printed "No conversation found with session ID: ${STALE}"`);
    expect(sb.asideFiles("rejected")).toHaveLength(1);
    const pointer = sb.readPointer();
    expect(pointer).toMatchObject({ id: fresh, state: "confirmed" });
    expect((pointer["history"] as Array<{ id: string; reason: string }>).map((h) => h.id)).toEqual([STALE]);
    const asked = api().conversation(ASK);
    expect(asked).toHaveLength(1);
    expect(asked[0]?.sessionId).toBe(fresh);
    expect(userTexts(asked[0]?.messages ?? []).filter((t) => t !== "")).toEqual([ASK]);
    expect(asked[0]?.answer).toBe("FAKE-API: no word was given in this conversation.");
  });
});

describe(`Claude Code ${pinned("@anthropic-ai/claude-code")} headless conversations, one per key`, () => {
  const BOUND_MS = WAIT_MS * 4;
  const call = (sb: Sandbox, key: string, message: string) => oneShot(sb, key, ["claude", "-p", message, ...STREAM], { boundMs: BOUND_MS });

  it("three calls on one key continue one session, each request carrying every earlier turn; a repeat sends nothing; two keys stay apart", async () => {
    const sb = realSandbox(cleanup, claudeEnv(api().url, "api-key"));
    const thread = ["remember the word zebra", "remember the word yak", "which word?"];
    for (const [n, message] of thread.entries()) {
      const result = await call(sb, "thread-1", message);
      expect(result.code, result.stderr).toBe(0);
      const [request, ...more] = api().conversation(message).filter((r) => userTexts(r.messages).at(-1) === message);
      expect(more).toEqual([]);
      expect(userTexts(request?.messages ?? []).filter((t) => t !== "")).toEqual(thread.slice(0, n + 1));
    }
    expect(api().conversation("which word?")[0]?.answer).toBe("FAKE-API: the word is yak.");
    const sessionIds = new Set(thread.map((message) => api().conversation(message)[0]?.sessionId));
    expect(sessionIds.size).toBe(1);

    await repeatSendsNothing(() => call(sb, "thread-1", "which word?"), () => api().requests.length);

    const other = await call(sb, "thread-2", "which word?");
    expect(other.code, other.stderr).toBe(0);
    const fresh = api().conversation("which word?").filter((r) => !sessionIds.has(r.sessionId));
    expect(fresh).toHaveLength(1);
    expect(userTexts(fresh[0]?.messages ?? []).filter((t) => t !== "")).toEqual(["which word?"]);
    expect(fresh[0]?.answer).toBe("FAKE-API: no word was given in this conversation.");
  });
});
