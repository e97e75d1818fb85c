/**
 * Real pi (@mariozechner/pi-coding-agent, on Node) through sessionpin at agentapi's 67x1190,
 * against the fake Chat Completions API (a provider in $HOME/.pi/agent/models.json, PI_OFFLINE=1).
 * What the fake API receives (the earlier turns of a resumed session) proves which session a run
 * continued.
 */
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { PtyDriver } from "../../src/demo/driver.js";
import { piSessionDir } from "../../src/agents/pi.js";
import { Cleanup, cwdOf, exitOf, pointerExists, waitUntil, WAIT_MS, writePointerByHand } from "../e2e/support.js";
import type { Sandbox } from "../helpers/sandbox.js";
import { FakeChat } from "./fake-chat.js";
import { oneShot } from "./headless.js";
import { sessionsByKey, startsOf } from "./keyed-sessions.js";
import { answers, ASK, asked, headLines, KNOWN, MODEL, NOTED, piEnv, REMEMBER, sessionFiles, stop, THREAD, THREAD_ANSWERS, writePiConfig } from "./pi-family-support.js";
import { closedPort, fakeApiPerTest, jsonLines, pinned, rawText, realSandbox, replayOf, run, settled, startsIn, UUID, versionOf } from "./support.js";

const cleanup = new Cleanup();
const api = fakeApiPerTest(cleanup, () => FakeChat.start());

const VERSION = pinned("@mariozechner/pi-coding-agent");
const PI = ["pi", ...MODEL];

function piSandbox(): Sandbox {
  const sb = realSandbox(cleanup, piEnv);
  writePiConfig(sb, api().url);
  return sb;
}

const dirOf = (sb: Sandbox): string => piSessionDir({ home: sb.home, cwd: cwdOf(sb) });

/** The screen once pi drew the fake API's answer `text`. */
const answered = (driver: PtyDriver, text: string): Promise<RegExpMatchArray> => driver.waitFor(new RegExp(text.replace(/[.?]/g, "\\$&")), WAIT_MS * 4);

/** The pinned ID once the pointer holds a confirmed one (other than `not`). */
const confirmedPin = (sb: Sandbox, not?: string): Promise<string> =>
  waitUntil(() => {
    const pointer = pointerExists(sb) ? sb.readPointer() : undefined;
    return pointer !== undefined && pointer["state"] === "confirmed" && pointer["id"] !== not ? String(pointer["id"]) : undefined;
  }, "a confirmed pin", WAIT_MS * 2);

describe(`pi ${VERSION}`, () => {
  it("is the pinned version, found on PATH", () => {
    const sb = piSandbox();
    expect(versionOf(sb, "pi")).toBe(VERSION);
  });

  it("interactive, agentapi-like: the session file pins the ID; a restart resumes it and the next message carries the first turns", async () => {
    const sb = piSandbox();
    const cold = cleanup.driver(sb.sessionpin(run(sb, ["--prompt", REMEMBER], PI)));
    await answered(cold, NOTED);
    const id = await confirmedPin(sb);
    expect(id).toMatch(UUID);
    expect(startsIn(sb.readLog())).toEqual([["pi", "--session-dir", dirOf(sb), ...MODEL, REMEMBER]]);
    expect(sb.readPointer()).toMatchObject({ agent: "pi", id, cwd: cwdOf(sb), source: { rule: "session-file" }, history: [] });
    // 0.73.1's session file starts with the header.
    const [file, ...others] = sessionFiles(dirOf(sb));
    expect(others).toEqual([]);
    expect(file).toMatch(new RegExp(`^\\d{4}-\\d\\d-\\d\\dT[\\d-]+Z_${id}\\.jsonl$`));
    expect(headLines(join(dirOf(sb), file ?? ""), 1)[0]).toMatchObject({ type: "session", id, cwd: cwdOf(sb) });
    expect(api().conversation(REMEMBER)).toHaveLength(1);
    await settled(cold);
    const coldExit = await stop(cold);

    const warm = cleanup.driver(sb.sessionpin(run(sb, ["--prompt", REMEMBER], PI)));
    await waitUntil(() => startsIn(sb.readLog()).length === 2, "the warm start");
    expect(startsIn(sb.readLog())[1]).toEqual([...PI, "--session-dir", dirOf(sb), "--session", id]);
    await warm.waitFor(new RegExp(NOTED.replace(/\./g, "\\.")), WAIT_MS * 2);
    await settled(warm);
    expect(api().conversation(REMEMBER)).toHaveLength(1);
    warm.sendMessage(ASK);
    await answered(warm, KNOWN);
    const [request, ...more] = api().conversation(ASK);
    expect(more).toEqual([]);
    expect(asked(request)).toEqual([REMEMBER, ASK]);
    expect(answers(request)).toEqual([NOTED]);
    await settled(warm);
    const warmExit = await stop(warm);
    // 0.73.1's TUI has no SIGINT handler and dies of the signal, the same both times: no rejection.
    expect(warmExit.exitCode).toBe(coldExit.exitCode);
    expect(sb.readPointer()).toMatchObject({ id, state: "confirmed", history: [] });
    expect(sessionFiles(dirOf(sb))).toEqual([file]);
    expect(sb.asideFiles("rejected")).toEqual([]);
  });

  it("headless `--mode json -p`: the header on stdout pins the ID, the session file confirms it; the next run's new message continues it, a repeated one sends nothing unless --resume-prompt is given", async () => {
    const sb = piSandbox();
    const cast = join(sb.dir, "json.cast");
    const command = [...PI, "--mode", "json", "-p"];
    const cold = cleanup.driver(sb.sessionpin(run(sb, ["--prompt", REMEMBER, "--record", cast], command)));
    expect((await exitOf(cold, WAIT_MS * 4)).exitCode).toBe(0);
    const events = jsonLines(rawText(cold));
    expect(events[0]).toMatchObject({ type: "session", version: 3, id: expect.stringMatching(UUID) as unknown, cwd: cwdOf(sb) });
    const id = String(events[0]?.["id"]);
    expect(startsIn(sb.readLog())).toEqual([["pi", "--session-dir", dirOf(sb), ...MODEL, "--mode", "json", "-p", REMEMBER]]);
    expect(sb.readLog()).toMatch(new RegExp(`captured provisional ${id} \\(rule session-header, line 1\\)`));
    expect(await confirmedPin(sb)).toBe(id);
    expect(sb.readPointer()).toMatchObject({ agent: "pi", id, source: { rule: "session-file" } });
    expect(replayOf(sb, cast)).toMatchObject({ status: 0, result: { agent: "pi", id, state: "provisional", rule: "session-header" } });

    // Warm: the message in argv is new to the session, a follow-up: pi resumes it in the same
    // mode and gets the message in its argv.
    const warm = cleanup.driver(sb.sessionpin(run(sb, [], [...command, ASK])));
    expect((await exitOf(warm, WAIT_MS * 4)).exitCode).toBe(0);
    expect(startsIn(sb.readLog())[1]).toEqual([...command, "--session-dir", dirOf(sb), "--session", id, ASK]);
    expect(jsonLines(rawText(warm))[0]).toMatchObject({ type: "session", id });
    const [request, ...more] = api().conversation(ASK);
    expect(more).toEqual([]);
    expect(asked(request)).toEqual([REMEMBER, ASK]);
    expect(answers(request)).toEqual([NOTED]);
    expect(request?.answer).toBe(KNOWN);
    expect(sb.readPointer()).toMatchObject({ id, state: "confirmed", history: [], messages: [{}, {}] });

    // The same run again (a retried step): pi is not started and nothing reaches the API (exit 4);
    // with --resume-prompt, that message is delivered instead.
    const requests = api().requests.length;
    const repeat = cleanup.driver(sb.sessionpin(run(sb, [], [...command, ASK])));
    expect((await exitOf(repeat, WAIT_MS * 4)).exitCode).toBe(4);
    expect(api().requests).toHaveLength(requests);
    expect(startsIn(sb.readLog())).toHaveLength(2);
    const nudged = cleanup.driver(sb.sessionpin(run(sb, ["--resume-prompt", `${ASK} once more`], [...command, ASK])));
    expect((await exitOf(nudged, WAIT_MS * 4)).exitCode).toBe(0);
    expect(startsIn(sb.readLog())[2]).toEqual([...command, "--session-dir", dirOf(sb), "--session", id, `${ASK} once more`]);
    expect(asked(api().conversation(`${ASK} once more`)[0])).toEqual([REMEMBER, ASK, `${ASK} once more`]);
    expect(sb.readPointer()).toMatchObject({ id, state: "confirmed", history: [], messages: [{}, {}, {}] });
  });

  it("a stale ID: pi refuses it, sessionpin sets the pointer aside and starts a fresh session with the prompt in the same run", async () => {
    const sb = piSandbox();
    const stale = "01a2145e-bf00-73cb-b3e6-ed06bac459d9";
    writePointerByHand(sb, { agent: "pi", id: stale, source: { rule: "session-file" } });
    const driver = cleanup.driver(sb.sessionpin(run(sb, ["--prompt", REMEMBER], PI)));
    await answered(driver, NOTED);
    expect(driver.text).toContain(`No session found matching '${stale}'`);
    expect(startsIn(sb.readLog())).toEqual([
      [...PI, "--session-dir", dirOf(sb), "--session", stale],
      ["pi", "--session-dir", dirOf(sb), ...MODEL, REMEMBER],
    ]);
    expect(sb.asideFiles("rejected")).toHaveLength(1);
    const id = await confirmedPin(sb, stale);
    expect(id).toMatch(UUID);
    expect((sb.readPointer()["history"] as Array<{ id: string }>).map((h) => h.id)).toEqual([stale]);
    expect(api().conversation(REMEMBER)).toHaveLength(1);
    await settled(driver);
    await stop(driver);
  });

  it("a provider refusing with 401 on a warm -p follow-up: pi exits 1, the pointer is kept and the message not counted, so the retried call delivers it", async () => {
    const sb = piSandbox();
    const command = [...PI, "-p"];
    const cold = cleanup.driver(sb.sessionpin(run(sb, ["--prompt", REMEMBER], command)));
    expect((await exitOf(cold, WAIT_MS * 4)).exitCode).toBe(0);
    const id = await confirmedPin(sb);
    api().refuseWith = 401;
    const warm = cleanup.driver(sb.sessionpin(run(sb, [], [...command, ASK])));
    expect((await exitOf(warm, WAIT_MS * 4)).exitCode).toBe(1);
    expect(startsIn(sb.readLog())[1]).toEqual([...command, "--session-dir", dirOf(sb), "--session", id, ASK]);
    expect(warm.text).toMatch(/^401 fake chat API: refused$/m);
    expect(startsIn(sb.readLog())).toHaveLength(2);
    // Kept, and the follow-up is not counted as had: pi took no turn with it.
    expect(sb.readPointer()).toMatchObject({ id, state: "confirmed", history: [], messages: [{}] });
    expect(sb.asideFiles("rejected")).toEqual([]);

    // So the retried step delivers it, once the provider is back.
    api().refuseWith = undefined;
    const retried = cleanup.driver(sb.sessionpin(run(sb, [], [...command, ASK])));
    expect((await exitOf(retried, WAIT_MS * 4)).exitCode).toBe(0);
    expect(startsIn(sb.readLog())[2]).toEqual(startsIn(sb.readLog())[1]);
    // 0.73.1 kept the refused turn's message in its session file, so the retried request carries
    // it twice, and the first answer only.
    const [request, ...more] = api().conversation(ASK).filter((r) => r.answer !== undefined);
    expect(more).toEqual([]);
    expect(asked(request)).toEqual([REMEMBER, ASK, ASK]);
    expect(answers(request)).toEqual([NOTED]);
    expect(request?.answer).toBe(KNOWN);
    expect(sb.readPointer()).toMatchObject({ id, state: "confirmed", history: [], messages: [{}, {}] });
  });

  it("a provider at a closed port on a warm -p follow-up (a fallback window that outlasts pi's retries): `Connection error.` keeps the pointer", async () => {
    const sb = piSandbox();
    const command = [...PI, "-p"];
    const cold = cleanup.driver(sb.sessionpin(run(sb, ["--prompt", REMEMBER], command)));
    expect((await exitOf(cold, WAIT_MS * 4)).exitCode).toBe(0);
    const id = await confirmedPin(sb);
    writePiConfig(sb, `http://127.0.0.1:${await closedPort()}/v1`);
    const warm = cleanup.driver(sb.sessionpin(run(sb, ["--fallback-window", "90"], [...command, ASK])));
    expect((await exitOf(warm, 80_000)).exitCode).toBe(1);
    expect(startsIn(sb.readLog())[1]).toEqual([...command, "--session-dir", dirOf(sb), "--session", id, ASK]);
    expect(warm.text).toMatch(/^Connection error\.$/m);
    expect(sb.readPointer()).toMatchObject({ id, state: "confirmed", history: [], messages: [{}] });
    expect(sb.asideFiles("rejected")).toEqual([]);
  }, 120_000);
});

describe(`pi ${VERSION} headless conversations, one per key`, () => {
  // Generous for a busy 2-core machine: a call took 1–4 s here.
  const BOUND_MS = WAIT_MS * 4;
  const call = (sb: Sandbox, key: string, message: string) => oneShot(sb, key, [...PI, "-p", message], { boundMs: BOUND_MS });

  it("three `pi -p MSG` calls on one key continue one session, each request carrying every earlier turn; a repeat sends nothing; two keys stay apart", async () => {
    const sb = piSandbox();
    const times: number[] = [];
    for (const [n, message] of THREAD.entries()) {
      const result = await call(sb, "thread-1", message);
      times.push(result.ms);
      expect(result.code, result.stderr).toBe(0);
      expect(result.stdout).toContain(THREAD_ANSWERS[n]);
      // The fake API's record: one turn with this message, carrying every earlier turn and answer.
      const [request, ...more] = api().conversation(message).filter((r) => asked(r).at(-1) === message);
      expect(more).toEqual([]);
      expect(asked(request)).toEqual(THREAD.slice(0, n + 1));
      expect(answers(request)).toEqual(THREAD_ANSWERS.slice(0, n));
      expect(request?.answer).toBe(THREAD_ANSWERS[n]);
    }
    const first = sessionsByKey(sb).get("thread-1");
    expect(first).toMatchObject({ agent: "pi", cwd: cwdOf(sb), id: expect.stringMatching(UUID) as unknown, state: "confirmed", messages: 3 });
    const id = String(first?.id);
    // Each follow-up resumed the pinned session in print mode, the new message in pi's argv.
    expect(startsOf(first)).toEqual([
      ["pi", "--session-dir", dirOf(sb), ...MODEL, "-p", THREAD[0]],
      [...PI, "-p", "--session-dir", dirOf(sb), "--session", id, THREAD[1]],
      [...PI, "-p", "--session-dir", dirOf(sb), "--session", id, THREAD[2]],
    ]);

    // The third call again (a retried step): pi is not started, nothing reaches the API, exit 4.
    const requests = api().requests.length;
    const repeat = await call(sb, "thread-1", THREAD[2] ?? "");
    times.push(repeat.ms);
    expect(repeat.code, repeat.stderr).toBe(4);
    expect(repeat.stderr).toContain("session already had this message");
    expect(api().requests).toHaveLength(requests);
    expect(startsOf(first)).toHaveLength(3);
    expect(sessionsByKey(sb).get("thread-1")).toEqual(first);

    // Another key in the same folder: a conversation of its own, which knows no word.
    const other = await call(sb, "thread-2", "which word?");
    times.push(other.ms);
    expect(other.code, other.stderr).toBe(0);
    const fresh = api().conversation("which word?").filter((r) => asked(r).length === 1);
    expect(fresh).toHaveLength(1);
    expect(fresh[0]?.answer).toBe("FAKE-API: no word was given in this conversation.");
    const second = sessionsByKey(sb).get("thread-2");
    expect(second).toMatchObject({ agent: "pi", cwd: cwdOf(sb), id: expect.stringMatching(UUID) as unknown, state: "confirmed", messages: 1 });
    expect(second?.id).not.toBe(id);
    expect(sessionsByKey(sb).get("thread-1")).toEqual(first);
    expect(sessionFiles(dirOf(sb))).toHaveLength(2);
  }, BOUND_MS * 6);

  it("`pi --mode json MSG` without -p is one-shot too (0.73.1 answers once in json mode): its follow-up resumes in json mode with the message", async () => {
    const sb = piSandbox();
    const json = (message: string) => oneShot(sb, "thread-json", [...PI, "--mode", "json", message], { boundMs: BOUND_MS });
    const cold = await json(THREAD[0] ?? "");
    expect(cold.code, cold.stderr).toBe(0);
    const warm = await json(THREAD[2] ?? "");
    expect(warm.code, warm.stderr).toBe(0);
    const row = sessionsByKey(sb).get("thread-json");
    const id = String(row?.id);
    expect(startsOf(row)).toEqual([
      ["pi", "--session-dir", dirOf(sb), ...MODEL, "--mode", "json", THREAD[0]],
      [...PI, "--mode", "json", "--session-dir", dirOf(sb), "--session", id, THREAD[2]],
    ]);
    expect(jsonLines(warm.stdout)[0]).toMatchObject({ type: "session", id });
    const [request, ...more] = api().conversation(THREAD[2] ?? "");
    expect(more).toEqual([]);
    expect(asked(request)).toEqual([THREAD[0], THREAD[2]]);
    expect(request?.answer).toBe(KNOWN);
  }, BOUND_MS * 3);

  it("a message starting with `-` reaches a one-shot run in argv with one space in front (0.73.1 takes no such word as a message), never typed", async () => {
    const sb = piSandbox();
    const cold = await oneShot(sb, "thread-dash", [...PI, "-p", REMEMBER], { boundMs: BOUND_MS });
    expect(cold.code, cold.stderr).toBe(0);
    const dash = "-which word?";
    const warm = await oneShot(sb, "thread-dash", [...PI, "-p", REMEMBER], { boundMs: BOUND_MS, options: [`--resume-prompt=${dash}`] });
    expect(warm.code, warm.stderr).toBe(0);
    const row = sessionsByKey(sb).get("thread-dash");
    expect(startsOf(row)[1]).toEqual([...PI, "-p", "--session-dir", dirOf(sb), "--session", String(row?.id), ` ${dash}`]);
    // The model got it as pi's message (asked() trims the space away), with the earlier turn.
    const [request, ...more] = api().conversation(dash);
    expect(more).toEqual([]);
    expect(asked(request)).toEqual([REMEMBER, dash]);
    expect(request?.answer).toBe(KNOWN);
    expect(warm.stdout).toContain(KNOWN);
    expect(row).toMatchObject({ messages: 2 });
  }, BOUND_MS * 3);
});
