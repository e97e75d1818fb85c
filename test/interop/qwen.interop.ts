/**
 * Real Qwen Code (0.24.4) through `sessionpin run`, offline, against the shared fake Chat
 * Completions API. What the fake API receives is the proof: a resumed session sends its earlier
 * turns again, and "which word?" is answered from them. Interactive runs are driven the agentapi
 * way (67x1190, vt100, `x\b` + bracketed paste + `\r` once the screen is quiet, SIGINT to stop).
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { PtyDriver } from "../../src/pty/driver.js";
import { Cleanup, cli, cwdOf, exitOf, waitUntil, WAIT_MS, writePointerByHand } from "../e2e/support.js";
import type { Sandbox } from "../helpers/sandbox.js";
import { FakeChat } from "./fake-chat.js";
import { userTexts } from "./fake-anthropic.js";
import { oneShot, repeatSendsNothing, type OneShotResult } from "./headless.js";
import { qwenChats, qwenEnv, qwenSessions, UNREACHABLE, writeQwenSettings } from "./qwen-support.js";
import { fakeApiPerTest, jsonLines, pinned, rawText, realSandbox, replayOf, run, settled, startsIn, UUID, versionOf } from "./support.js";

const cleanup = new Cleanup();
const api = fakeApiPerTest(cleanup, () => FakeChat.start());

const VERSION = pinned("@qwen-code/qwen-code");
const REMEMBER = "remember the word zebra";
const ASK = "which word?";
const YAK = "remember the word yak";
const NOTED = "FAKE-API: noted the word zebra.";
const KNOWN = "FAKE-API: the word is zebra.";
/** Qwen's empty input box (its placeholder). */
const READY = /Type your message or @path\/to\/file/;
/** A well-formed ID no session has. */
const STALE = "0badc0de-0000-4000-8000-000000000000";
/** Other CLIs run real agents on this 2-core machine at the same time: be generous, but bounded. */
const SLOW = WAIT_MS * 3;

function qwenSandbox(): Sandbox {
  const sb = realSandbox(cleanup, qwenEnv(api().url));
  writeQwenSettings(sb);
  return sb;
}

/** Qwen's screen once it answered `text` (the reply is shown after `◆︎`). */
const answered = (driver: PtyDriver, text: string): Promise<RegExpMatchArray> =>
  driver.waitFor(new RegExp(`◆\\S* ${text.replace(/[.?]/g, "\\$&")}`), SLOW);

/** agentapi's shutdown: SIGINT to sessionpin (it forwards it to Qwen's process group). */
async function stop(driver: PtyDriver): Promise<number> {
  driver.kill("SIGINT");
  return (await exitOf(driver, WAIT_MS * 2)).exitCode;
}

/** The chat completions that carried `ask` as their last user turn, with their user turns. */
function turnsBefore(ask: string): string[][] {
  return api().conversation(ask).filter((r) => userTexts(r.messages).at(-1) === ask).map((r) => userTexts(r.messages));
}

/** The assistant texts a request carried (earlier answers sent again). */
const assistantTexts = (ask: string): string[] =>
  api().conversation(ask).flatMap((r) => r.messages.filter((m) => m.role === "assistant").map((m) => (typeof m.content === "string" ? m.content : JSON.stringify(m.content))));

describe(`Qwen Code ${VERSION}`, () => {
  it("is the pinned version, found on PATH", () => {
    expect(versionOf(qwenSandbox(), "qwen")).toBe(VERSION);
  });

  it("interactive, agentapi-like: pins the ID it chose up front, confirms it by chats/<id>.jsonl, resumes it across a restart", { timeout: 120_000 }, async () => {
    const sb = qwenSandbox();
    const cast = join(sb.dir, "cold.cast");
    const cold = cleanup.driver(sb.sessionpin(run(sb, ["--prompt", REMEMBER, "--record", cast], ["qwen"])));
    await answered(cold, NOTED);
    const id = String(sb.readPointer()["id"]);
    expect(id).toMatch(UUID);
    // The TUI takes its prompt as -i (a positional would run once and exit).
    expect(startsIn(sb.readLog())).toEqual([["qwen", "--session-id", id, "-i", REMEMBER]]);
    await waitUntil(() => sb.readPointer()["state"] === "confirmed", "chats/<id>.jsonl to confirm the ID", SLOW);
    expect(sb.readPointer()).toMatchObject({ agent: "qwen", id, cwd: cwdOf(sb), source: { rule: "chats" }, history: [] });
    expect(existsSync(join(qwenChats(sb, cwdOf(sb)), `${id}.jsonl`))).toBe(true);
    expect(turnsBefore(REMEMBER)).toEqual([[REMEMBER]]);

    await settled(cold);
    expect(await stop(cold)).toBe(130);
    // Qwen's own hint on SIGINT, at column 0 in two rows, as the exit-hint rule expects it; then
    // the recording alone gives the ID. 0.24.4 relaunches itself (node cli.js → child → child),
    // and SIGINT to the group reaches them all: in about 1 run in 3 here the screen ends at
    // `Press Ctrl+C again to exit.` without the hint. Capture does not need it (the store).
    if (/^To continue this session, run$/m.test(cold.text)) {
      expect(cold.text).toMatch(new RegExp(`^To continue this session, run\\nqwen --resume ${id}$`, "m"));
      expect(replayOf(sb, cast)).toMatchObject({ status: 0, result: { agent: "qwen", id, rule: "exit-hint" } });
    }
    expect(cold.text).not.toMatch(new RegExp(`qwen --resume (?!${id})`));

    // Restart: the same command line, resumed without the prompt.
    const warm = cleanup.driver(sb.sessionpin(run(sb, ["--prompt", REMEMBER], ["qwen"])));
    await waitUntil(() => startsIn(sb.readLog()).length > 1, "the warm start");
    expect(startsIn(sb.readLog()).at(-1)).toEqual(["qwen", "--resume", id]);
    // A warm start takes seconds to draw the old conversation; agentapi types once it is still.
    await warm.waitFor(READY, SLOW);
    await warm.waitFor(new RegExp(NOTED.replace(/\./g, "\\.")), SLOW);
    await settled(warm, 2_000, SLOW);
    const before = api().completions().filter((r) => userTexts(r.messages).at(-1) === REMEMBER).length;
    warm.sendMessage(ASK);
    await answered(warm, KNOWN);
    // The question reached the API together with the first conversation's turn and its answer;
    // the task prompt was not sent again.
    expect(turnsBefore(ASK)).toEqual([[REMEMBER, ASK]]);
    expect(assistantTexts(ASK).join("\n")).toContain(NOTED);
    expect(api().completions().filter((r) => userTexts(r.messages).at(-1) === REMEMBER)).toHaveLength(before);

    await settled(warm, 2_000, SLOW);
    expect(await stop(warm)).toBe(130);
    expect(warm.text).not.toMatch(new RegExp(`qwen --resume (?!${id})`));
    expect(sb.readPointer()).toMatchObject({ id, state: "confirmed", history: [] });
    expect(sb.asideFiles("rejected")).toEqual([]);
    expect(qwenSessions(sb, cwdOf(sb))).toEqual([id]);
  });

  it("headless (-o stream-json, -p): the ID is the stream's session_id, confirmed; --resume-prompt continues it", { timeout: 120_000 }, async () => {
    const sb = qwenSandbox();
    const cold = cleanup.driver(sb.sessionpin(run(sb, ["--prompt", REMEMBER], ["qwen", "-o", "stream-json"])));
    expect((await exitOf(cold, SLOW)).exitCode).toBe(0);
    const id = String(sb.readPointer()["id"]);
    expect(startsIn(sb.readLog())).toEqual([["qwen", "--session-id", id, "-o", "stream-json", "-p", REMEMBER]]);
    const lines = jsonLines(rawText(cold));
    expect(lines.find((l) => l["type"] === "system" && l["subtype"] === "init")?.["session_id"]).toBe(id);
    expect(lines.find((l) => l["type"] === "result")).toMatchObject({ subtype: "success", session_id: id, result: NOTED });
    expect(sb.readPointer()).toMatchObject({ agent: "qwen", id, state: "confirmed" });
    expect(qwenSessions(sb, cwdOf(sb))).toEqual([id]);

    const warm = cleanup.driver(sb.sessionpin(run(sb, ["--prompt", REMEMBER, "--resume-prompt", ASK], ["qwen", "-o", "stream-json"])));
    expect((await exitOf(warm, SLOW)).exitCode).toBe(0);
    expect(startsIn(sb.readLog()).at(-1)).toEqual(["qwen", "-o", "stream-json", "--resume", id, "-p", ASK]);
    expect(jsonLines(rawText(warm)).find((l) => l["type"] === "result")).toMatchObject({ subtype: "success", session_id: id, result: KNOWN });
    expect(turnsBefore(ASK)).toEqual([[REMEMBER, ASK]]);
    expect(sb.readPointer()).toMatchObject({ id, state: "confirmed" });
  });

  it("headless with the command's own choice of session (-c, nothing to continue): the ID comes from the output and the store", { timeout: 120_000 }, async () => {
    const sb = qwenSandbox();
    const driver = cleanup.driver(sb.sessionpin(run(sb, [], ["qwen", "-c", "-p", REMEMBER, "-o", "stream-json"])));
    expect((await exitOf(driver, SLOW)).exitCode).toBe(0);
    // sessionpin named nothing: -c picks the session.
    expect(startsIn(sb.readLog())).toEqual([["qwen", "-c", "-p", REMEMBER, "-o", "stream-json"]]);
    const streamed = jsonLines(rawText(driver)).find((l) => l["type"] === "system" && l["subtype"] === "init")?.["session_id"];
    expect(streamed).toMatch(UUID);
    expect(sb.readPointer()).toMatchObject({ agent: "qwen", id: streamed, state: "confirmed" });
    expect(qwenSessions(sb, cwdOf(sb))).toEqual([streamed]);
    expect(sb.readLog()).toMatch(new RegExp(`captured provisional ${streamed} \\(rule system-init[,)]`));
  });

  it("interactive, stale ID where sessionpin cannot tell (no chats folder yet): the real TUI refuses it, sessionpin sets the pointer aside and starts a fresh session with the prompt", { timeout: 120_000 }, async () => {
    const sb = qwenSandbox();
    writePointerByHand(sb, { agent: "qwen", id: STALE, source: { rule: "chats" } });
    expect(existsSync(qwenChats(sb, cwdOf(sb)))).toBe(false);
    const driver = cleanup.driver(sb.sessionpin(run(sb, ["--prompt", REMEMBER], ["qwen"])));
    await answered(driver, NOTED);
    expect(driver.text).toContain(`No saved session found with ID ${STALE}. Run \`qwen --resume\` without an ID to choose from existing sessions.`);
    const id = String(sb.readPointer()["id"]);
    expect(id).toMatch(UUID);
    expect(id).not.toBe(STALE);
    expect(startsIn(sb.readLog())).toEqual([["qwen", "--resume", STALE], ["qwen", "--session-id", id, "-i", REMEMBER]]);
    expect(sb.readLog()).not.toContain("own store");
    expect(sb.asideFiles("rejected")).toHaveLength(1);
    expect((sb.readPointer()["history"] as Array<{ id: string }>).map((h) => h.id)).toEqual([STALE]);
    expect(turnsBefore(REMEMBER)).toEqual([[REMEMBER]]);
    await waitUntil(() => sb.readPointer()["state"] === "confirmed", "the fresh session's chats file", SLOW);
    await settled(driver, 2_000, SLOW);
    expect(await stop(driver)).toBe(130);
  });

  it("headless, stale ID gone from the chats folder (which holds this folder's other session): set aside before launch, Qwen is never asked to resume it, the fresh session gets the message", { timeout: 120_000 }, async () => {
    const sb = qwenSandbox();
    const cold = cleanup.driver(sb.sessionpin(run(sb, [], ["qwen", "-p", REMEMBER])));
    expect((await exitOf(cold, SLOW)).exitCode).toBe(0);
    const first = String(sb.readPointer()["id"]);
    // The folder the store check looks in is the one the real CLI wrote the cold session to.
    expect(qwenSessions(sb, cwdOf(sb))).toEqual([first]);
    writePointerByHand(sb, { agent: "qwen", id: STALE, source: { rule: "chats" } });
    const driver = cleanup.driver(sb.sessionpin(run(sb, [], ["qwen", "-p", ASK])));
    expect((await exitOf(driver, SLOW)).exitCode).toBe(0);
    expect(driver.text).not.toContain("No saved session found");
    expect(startsIn(sb.readLog()).flat()).not.toContain(STALE);
    expect(sb.readLog()).toContain(`session ${STALE} is gone from qwen's own store (looked in ${qwenChats(sb, cwdOf(sb))})`);
    expect(sb.asideFiles("gone")).toHaveLength(1);
    expect(sb.asideFiles("rejected")).toEqual([]);
    const id = String(sb.readPointer()["id"]);
    expect([STALE, first]).not.toContain(id);
    expect(startsIn(sb.readLog()).at(-1)).toEqual(["qwen", "--session-id", id, "-p", ASK]);
    // The fresh session got the message alone: it never saw the cold run's word.
    expect(turnsBefore(ASK)).toEqual([[ASK]]);
    await waitUntil(() => sb.readPointer()["state"] === "confirmed", "the fresh session's chats file", SLOW);
    expect(qwenSessions(sb, cwdOf(sb))).toEqual([first, id].sort());
  });

  it("headless, stale ID where sessionpin cannot tell (no chats folder yet): refused on stderr (exit 1), the fresh run gets the task prompt in the same sessionpin run", { timeout: 120_000 }, async () => {
    const sb = qwenSandbox();
    writePointerByHand(sb, { agent: "qwen", id: STALE, source: { rule: "chats" } });
    expect(existsSync(qwenChats(sb, cwdOf(sb)))).toBe(false);
    // The pointer knows no message, so the command's own is new to the session: the warm start
    // delivers it (a follow-up), not the resume prompt.
    const driver = cleanup.driver(sb.sessionpin(run(sb, ["--prompt", REMEMBER, "--resume-prompt", ASK], ["qwen", "-p", REMEMBER])));
    expect((await exitOf(driver, SLOW)).exitCode).toBe(0);
    const id = String(sb.readPointer()["id"]);
    expect(startsIn(sb.readLog())).toEqual([["qwen", "--resume", STALE, "-p", REMEMBER], ["qwen", "--session-id", id, "-p", REMEMBER]]);
    expect(driver.text).toContain(`No saved session found with ID ${STALE}.`);
    expect(sb.readLog()).not.toContain("own store");
    expect(driver.text).toContain(NOTED);
    expect(sb.asideFiles("rejected")).toHaveLength(1);
    expect(sb.readPointer()).toMatchObject({ id, state: "confirmed" });
    expect(turnsBefore(ASK)).toEqual([]);
    expect(turnsBefore(REMEMBER)).toEqual([[REMEMBER]]);
  });

  it("headless warm start while the model API is unreachable or refuses (closed port, 401): the pointer is kept", { timeout: 120_000 }, async () => {
    const sb = qwenSandbox();
    const cold = cleanup.driver(sb.sessionpin(run(sb, ["--prompt", REMEMBER], ["qwen", "-p", REMEMBER])));
    expect((await exitOf(cold, SLOW)).exitCode).toBe(0);
    const id = String(sb.readPointer()["id"]);
    expect(sb.readPointer()).toMatchObject({ id, state: "confirmed" });

    // Nothing listens on the port (see UNREACHABLE): 0.24.4 prints
    // `[API Error: Connection error. (cause: fetch failed)]` and exits 1, within the fallback window.
    const offline = cleanup.driver(sb.sessionpin(run(sb, ["--prompt", REMEMBER, "--resume-prompt", ASK], ["qwen", "-p", REMEMBER]), { env: { ...sb.env, OPENAI_BASE_URL: UNREACHABLE } }));
    expect((await exitOf(offline, SLOW)).exitCode).toBe(1);
    expect(startsIn(sb.readLog()).at(-1)).toEqual(["qwen", "--resume", id, "-p", ASK]);
    expect(offline.text).toContain("[API Error: Connection error. (cause: fetch failed)]");
    expect(startsIn(sb.readLog())).toHaveLength(2);
    expect(sb.asideFiles("rejected")).toEqual([]);
    expect(sb.readPointer()).toMatchObject({ id, state: "confirmed" });

    // The API refuses the key.
    api().refuseWith = 401;
    const refused = cleanup.driver(sb.sessionpin(run(sb, ["--prompt", REMEMBER, "--resume-prompt", ASK], ["qwen", "-p", REMEMBER])));
    expect((await exitOf(refused, SLOW)).exitCode).toBe(1);
    expect(refused.text).toMatch(/\[API Error: 401 /);
    expect(startsIn(sb.readLog())).toHaveLength(3);
    expect(sb.asideFiles("rejected")).toEqual([]);
    expect(sb.readPointer()).toMatchObject({ id, state: "confirmed" });

    // Back online, the same session goes on.
    api().refuseWith = undefined;
    const back = cleanup.driver(sb.sessionpin(run(sb, ["--prompt", REMEMBER, "--resume-prompt", ASK], ["qwen", "-p", REMEMBER])));
    expect((await exitOf(back, SLOW)).exitCode).toBe(0);
    expect(back.text).toContain(KNOWN);
    // The answer is the proof: the word came from an earlier turn of the same request. (After the
    // failed attempts 0.24.4 sends the old turns merged into one user message:
    // "remember the word zebra\n\nwhich word?".)
    const resumed = api().completions().filter((r) => r.answer === KNOWN);
    expect(resumed).toHaveLength(1);
    expect(userTexts(resumed[0]?.messages ?? []).join("\n")).toContain(REMEMBER);
  });

  it("interactive: follows /clear to the new session (a new chats/<id>.jsonl) and resumes that one after a restart", { timeout: 120_000 }, async () => {
    const sb = qwenSandbox();
    const cold = cleanup.driver(sb.sessionpin(run(sb, ["--prompt", REMEMBER], ["qwen"])));
    await answered(cold, NOTED);
    const first = String(sb.readPointer()["id"]);
    await waitUntil(() => sb.readPointer()["state"] === "confirmed", "chats/<id>.jsonl to confirm the ID", SLOW);
    await settled(cold, 2_000, SLOW);

    // 0.24.4's /clear starts a new session; its file appears once it has a turn.
    cold.sendMessage("/clear");
    await settled(cold, 2_000, SLOW);
    cold.sendMessage(YAK);
    await answered(cold, "FAKE-API: noted the word yak.");
    const cleared = await waitUntil(() => {
      const id = String(sb.readPointer()["id"]);
      return id !== first ? id : undefined;
    }, "the pointer to follow /clear", SLOW);
    expect(cleared).toMatch(UUID);
    expect(qwenSessions(sb, cwdOf(sb))).toEqual([first, cleared].sort());
    const followed = `qwen now reports ${cleared} instead of ${first}: pointer follows, old ID kept in history`;
    await waitUntil(() => sb.readLog().includes(followed), "the log line of the follow");
    // The cleared session starts empty: the zebra turn is not sent with the yak one.
    expect(turnsBefore(YAK)).toEqual([[YAK]]);
    await settled(cold, 2_000, SLOW);
    expect(await stop(cold)).toBe(130);
    const pointer = sb.readPointer();
    expect(pointer).toMatchObject({ id: cleared, state: "confirmed" });
    expect((pointer["history"] as Array<{ id: string }>).map((h) => h.id)).toEqual([first]);

    const warm = cleanup.driver(sb.sessionpin(run(sb, ["--prompt", REMEMBER], ["qwen"])));
    await waitUntil(() => startsIn(sb.readLog()).length > 1, "the warm start");
    expect(startsIn(sb.readLog()).at(-1)).toEqual(["qwen", "--resume", cleared]);
    await warm.waitFor(READY, SLOW);
    await settled(warm, 2_000, SLOW);
    warm.sendMessage(ASK);
    await answered(warm, "FAKE-API: the word is yak.");
    expect(turnsBefore(ASK)).toEqual([[YAK, ASK]]);
    await settled(warm, 2_000, SLOW);
    expect(await stop(warm)).toBe(130);
    expect(sb.readPointer()).toMatchObject({ id: cleared });
  });

  it("interactive warm start while the model API is unreachable: the TUI shows the error and stays; the pointer is kept", { timeout: 120_000 }, async () => {
    const sb = qwenSandbox();
    const cold = cleanup.driver(sb.sessionpin(run(sb, ["--prompt", REMEMBER], ["qwen", "-p", REMEMBER])));
    expect((await exitOf(cold, SLOW)).exitCode).toBe(0);
    const id = String(sb.readPointer()["id"]);

    const warm = cleanup.driver(sb.sessionpin(run(sb, ["--prompt", REMEMBER], ["qwen"]), { env: { ...sb.env, OPENAI_BASE_URL: UNREACHABLE } }));
    await warm.waitFor(READY, SLOW);
    expect(startsIn(sb.readLog()).at(-1)).toEqual(["qwen", "--resume", id]);
    await settled(warm, 2_000, SLOW);
    warm.sendMessage(ASK);
    await warm.waitFor(/✕ \[API Error: Connection error\. \(cause: fetch failed\)\]/, SLOW);
    await settled(warm, 2_000, SLOW);
    expect(await stop(warm)).toBe(130);
    expect(startsIn(sb.readLog())).toHaveLength(2);
    expect(sb.asideFiles("rejected")).toEqual([]);
    expect(sb.readPointer()).toMatchObject({ id, state: "confirmed", history: [] });
    expect(api().conversation(ASK)).toEqual([]);
  });
});

describe(`Qwen Code ${VERSION} headless conversations, one per key`, () => {
  /** One call of a CI job or chat bridge: no TTY, stdin closed; a loaded 2-core machine runs 0.24.4 in 5–20 s. */
  const BOUND_MS = WAIT_MS * 4;
  const call = async (sb: Sandbox, key: string, message: string): Promise<OneShotResult> => {
    const result = await oneShot(sb, key, ["qwen", "-p", message, "--output-format", "stream-json"], { boundMs: BOUND_MS });
    console.log(`qwen ${VERSION}, key ${key}, ${JSON.stringify(message)}: exit ${String(result.code)} in ${result.ms} ms`);
    return result;
  };
  /** The session a call's stream named (its `result` line, `success` only). */
  const resultOf = (result: OneShotResult): Record<string, unknown> | undefined => jsonLines(result.stdout).find((l) => l["type"] === "result");

  it("three calls on one key continue one session, each request carrying every earlier turn; a repeat sends nothing; two keys stay apart", async () => {
    const sb = qwenSandbox();
    const thread = [REMEMBER, YAK, ASK];
    const sessions = new Set<unknown>();
    for (const [n, message] of thread.entries()) {
      const result = await call(sb, "thread-1", message);
      expect(result.code, result.stderr).toBe(0);
      expect(resultOf(result)).toMatchObject({ subtype: "success" });
      sessions.add(resultOf(result)?.["session_id"]);
      // The fake API saw this message as a turn once, after every earlier message of the thread and its answer.
      expect(turnsBefore(message)).toEqual([thread.slice(0, n + 1)]);
      // …and the earlier answers (this turn's own request, not the side calls that quote it).
      const turn = api().completions().filter((r) => userTexts(r.messages).at(-1) === message);
      const earlier = turn.flatMap((r) => r.messages.filter((m) => m.role === "assistant").map((m) => (typeof m.content === "string" ? m.content : JSON.stringify(m.content))));
      expect(earlier).toEqual(thread.slice(0, n).map((m) => m.replace("remember the word", "FAKE-API: noted the word") + "."));
    }
    expect(api().completions().filter((r) => userTexts(r.messages).at(-1) === ASK).map((r) => r.answer)).toEqual(["FAKE-API: the word is yak."]);
    expect(sessions.size).toBe(1);
    const [id] = [...sessions];
    expect(id).toMatch(UUID);
    expect(qwenSessions(sb, cwdOf(sb))).toEqual([id]);

    // A retried step: the message the session already had is not sent again, Qwen is not started.
    await repeatSendsNothing(() => call(sb, "thread-1", ASK), () => api().requests.length);

    // Another thread in the same folder: a conversation of its own, which knows no word.
    const other = await call(sb, "thread-2", ASK);
    expect(other.code, other.stderr).toBe(0);
    const otherId = resultOf(other)?.["session_id"];
    expect(otherId).toMatch(UUID);
    expect(otherId).not.toBe(id);
    expect(turnsBefore(ASK)).toEqual([[REMEMBER, YAK, ASK], [ASK]]);
    expect(resultOf(other)).toMatchObject({ subtype: "success", result: "FAKE-API: no word was given in this conversation." });

    // What a bridge reads to map its threads to sessions.
    const listed = JSON.parse(cli(sb, ["sessions", "--json"]).stdout) as Array<Record<string, unknown>>;
    expect(listed.map((row) => [row["key"], row["id"], row["messages"]]).sort()).toEqual([["thread-1", id, 3], ["thread-2", otherId, 1]]);
  }, 6 * WAIT_MS * 4);
});
