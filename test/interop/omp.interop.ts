/**
 * Real omp (@oh-my-pi/pi-coding-agent, on Bun) through sessionpin at agentapi's 67x1190, against
 * the fake Chat Completions API (a provider in $HOME/.omp/agent/models.yml). What the fake API
 * receives (the earlier turns of a resumed session) proves which session a run continued.
 */
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { PtyDriver } from "../../src/demo/driver.js";
import { ompSessionDir } from "../../src/agents/omp.js";
import { Cleanup, cwdOf, exitOf, pointerExists, waitUntil, WAIT_MS, writePointerByHand } from "../e2e/support.js";
import type { Sandbox } from "../helpers/sandbox.js";
import { FakeChat } from "./fake-chat.js";
import { oneShot } from "./headless.js";
import { sessionsByKey, startsOf } from "./keyed-sessions.js";
import { answers, ASK, asked, headLines, KNOWN, MODEL, NOTED, REMEMBER, sessionFiles, stop, THREAD, THREAD_ANSWERS, writeOmpConfig } from "./pi-family-support.js";
import { closedPort, fakeApiPerTest, jsonLines, pinned, rawText, realSandbox, replayOf, run, settled, startsIn, UUID, versionOf } from "./support.js";

const cleanup = new Cleanup();
const api = fakeApiPerTest(cleanup, () => FakeChat.start());

const VERSION = pinned("@oh-my-pi/pi-coding-agent");
const OMP = ["omp", ...MODEL];

function ompSandbox(baseUrl = api().url, options: { retry?: boolean } = {}): Sandbox {
  const sb = realSandbox(cleanup);
  writeOmpConfig(sb, baseUrl, options);
  return sb;
}

const dirOf = (sb: Sandbox): string => ompSessionDir({ home: sb.home, cwd: cwdOf(sb) });

/** The screen once omp drew the fake API's answer `text`. */
const answered = (driver: PtyDriver, text: string): Promise<RegExpMatchArray> => driver.waitFor(new RegExp(text.replace(/[.?]/g, "\\$&")), WAIT_MS * 4);

/** A cold interactive start with the task prompt; returns the pinned ID once the session file confirmed it. */
async function coldTui(sb: Sandbox, record?: string): Promise<{ driver: PtyDriver; id: string }> {
  const driver = cleanup.driver(sb.sessionpin(run(sb, ["--prompt", REMEMBER, ...(record ? ["--record", record] : [])], OMP)));
  await answered(driver, NOTED);
  await waitUntil(() => pointerExists(sb) && sb.readPointer()["state"] === "confirmed" && sb.readPointer(), "the session file to pin the ID", WAIT_MS * 2);
  return { driver, id: String(sb.readPointer()["id"]) };
}

describe(`omp ${VERSION}`, () => {
  it("is the pinned version, found on PATH (with bun)", () => {
    const sb = ompSandbox();
    expect(versionOf(sb, "omp")).toBe(`omp/${VERSION}`);
  });

  it("interactive, agentapi-like: the session file (header on line 2) pins the ID; a restart resumes it and the next message carries the first turns", async () => {
    const sb = ompSandbox();
    const { driver: cold, id } = await coldTui(sb);
    expect(id).toMatch(UUID);
    // The cold start got sessionpin's session folder and the prompt as omp's message.
    expect(startsIn(sb.readLog())).toEqual([["omp", "--session-dir", dirOf(sb), ...MODEL, REMEMBER]]);
    expect(sb.readPointer()).toMatchObject({ agent: "omp", id, cwd: cwdOf(sb), state: "confirmed", source: { rule: "session-file" }, history: [] });
    // 18.2.3's session file: a fixed-width title line, then the header with this folder.
    const [file, ...others] = sessionFiles(dirOf(sb));
    expect(others).toEqual([]);
    expect(file).toMatch(new RegExp(`^\\d{4}-\\d\\d-\\d\\dT[\\d-]+Z_${id}\\.jsonl$`));
    const [title, header] = headLines(join(dirOf(sb), file ?? ""), 2);
    expect(title).toMatchObject({ type: "title" });
    expect(header).toMatchObject({ type: "session", id, cwd: cwdOf(sb) });
    expect(api().conversation(REMEMBER)).toHaveLength(1);
    await settled(cold);
    // 18.2.3 ends on SIGINT with exit 130.
    expect((await stop(cold)).exitCode).toBe(130);

    // Restart with the same command line: resumed by ID, without the prompt.
    const warm = cleanup.driver(sb.sessionpin(run(sb, ["--prompt", REMEMBER], OMP)));
    await waitUntil(() => startsIn(sb.readLog()).length === 2, "the warm start");
    expect(startsIn(sb.readLog())[1]).toEqual([...OMP, "--session-dir", dirOf(sb), "--session", id]);
    // A warm start draws the earlier conversation first; agentapi types once the screen is still.
    await warm.waitFor(new RegExp(NOTED.replace(/\./g, "\\.")), WAIT_MS * 2);
    await settled(warm);
    expect(api().conversation(REMEMBER)).toHaveLength(1);
    warm.sendMessage(ASK);
    await answered(warm, KNOWN);
    const [request, ...more] = api().conversation(ASK);
    expect(more).toEqual([]);
    expect(asked(request).map((t) => t.replace(/^[\s\S]*<\/system-reminder>\s*/, ""))).toEqual([REMEMBER, ASK]);
    expect(answers(request)).toEqual([NOTED]);
    await settled(warm);
    expect((await stop(warm)).exitCode).toBe(130);
    expect(sb.readPointer()).toMatchObject({ id, state: "confirmed", history: [] });
    expect(sessionFiles(dirOf(sb))).toEqual([file]);
    expect(sb.asideFiles("rejected")).toEqual([]);
  });

  it("headless `--mode json -p`: the header on stdout pins the ID, the session file confirms it; the next run's new message continues it, a repeated one sends nothing unless --resume-prompt is given", async () => {
    const sb = ompSandbox();
    const cast = join(sb.dir, "json.cast");
    const command = [...OMP, "--mode", "json", "-p"];
    const cold = cleanup.driver(sb.sessionpin(run(sb, ["--prompt", REMEMBER, "--record", cast], command)));
    expect((await exitOf(cold, WAIT_MS * 4)).exitCode).toBe(0);
    const events = jsonLines(rawText(cold));
    expect(events[0]).toMatchObject({ type: "session", version: 3, id: expect.stringMatching(UUID) as unknown, cwd: cwdOf(sb) });
    const id = String(events[0]?.["id"]);
    expect(startsIn(sb.readLog())).toEqual([["omp", "--session-dir", dirOf(sb), ...MODEL, "--mode", "json", "-p", REMEMBER]]);
    expect(sb.readLog()).toMatch(new RegExp(`captured provisional ${id} \\(rule session-header, line 1\\)`));
    await waitUntil(() => sb.readPointer()["state"] === "confirmed", "the session file to confirm the ID");
    expect(sb.readPointer()).toMatchObject({ agent: "omp", id, source: { rule: "session-file" } });
    expect(api().conversation(REMEMBER)).toHaveLength(1);
    expect(replayOf(sb, cast)).toMatchObject({ status: 0, result: { agent: "omp", id, state: "provisional", rule: "session-header" } });

    // Warm: the message in argv is new to the session, a follow-up: omp resumes it in the same
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

    // The same run again (a retried step): omp is not started and nothing reaches the API (exit 4);
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

  it("a stale ID: omp refuses it, sessionpin sets the pointer aside and starts a fresh session with the prompt in the same run", async () => {
    const sb = ompSandbox();
    const stale = "01a2145a-d031-74f3-9c4e-73ade84157e7";
    writePointerByHand(sb, { agent: "omp", id: stale, source: { rule: "session-file" } });
    const driver = cleanup.driver(sb.sessionpin(run(sb, ["--prompt", REMEMBER], OMP)));
    await answered(driver, NOTED);
    expect(driver.text).toContain(`Session "${stale}" not found.`);
    expect(startsIn(sb.readLog())).toEqual([
      [...OMP, "--session-dir", dirOf(sb), "--session", stale],
      ["omp", "--session-dir", dirOf(sb), ...MODEL, REMEMBER],
    ]);
    expect(sb.asideFiles("rejected")).toHaveLength(1);
    const id = await waitUntil(() => {
      const pointer = pointerExists(sb) ? sb.readPointer() : undefined;
      return pointer !== undefined && pointer["id"] !== stale && pointer["state"] === "confirmed" ? String(pointer["id"]) : undefined;
    }, "the fresh session's pointer", WAIT_MS * 2);
    expect(id).toMatch(UUID);
    expect((sb.readPointer()["history"] as Array<{ id: string }>).map((h) => h.id)).toEqual([stale]);
    expect(api().conversation(REMEMBER)).toHaveLength(1);
    await settled(driver);
    expect((await stop(driver)).exitCode).toBe(130);
  });

  it("a provider refusing with 401 on a warm -p follow-up: omp exits 1, the pointer is kept and the message not counted, so the retried call delivers it", async () => {
    const sb = ompSandbox();
    // A real session first, so the warm start gets past omp's session lookup.
    const command = [...OMP, "-p"];
    const cold = cleanup.driver(sb.sessionpin(run(sb, ["--prompt", REMEMBER], command)));
    expect((await exitOf(cold, WAIT_MS * 4)).exitCode).toBe(0);
    const pinnedId = await waitUntil(() => (pointerExists(sb) && sb.readPointer()["state"] === "confirmed" ? String(sb.readPointer()["id"]) : undefined), "the cold run's pin");
    api().refuseWith = 401;
    const warm = cleanup.driver(sb.sessionpin(run(sb, [], [...command, ASK])));
    expect((await exitOf(warm, WAIT_MS * 4)).exitCode).toBe(1);
    expect(startsIn(sb.readLog())[1]).toEqual([...command, "--session-dir", dirOf(sb), "--session", pinnedId, ASK]);
    expect(warm.text).toMatch(/^401 fake chat API: refused$/m);
    expect(startsIn(sb.readLog())).toHaveLength(2);
    // Kept, and the follow-up is not counted as had: omp took no turn with it.
    expect(sb.readPointer()).toMatchObject({ id: pinnedId, state: "confirmed", history: [], messages: [{}] });
    expect(sb.asideFiles("rejected")).toEqual([]);
    expect(api().completions().filter((r) => r.answer === undefined).length).toBeGreaterThan(0);

    // So the retried step delivers it, once the provider is back.
    api().refuseWith = undefined;
    const retried = cleanup.driver(sb.sessionpin(run(sb, [], [...command, ASK])));
    expect((await exitOf(retried, WAIT_MS * 4)).exitCode).toBe(0);
    expect(startsIn(sb.readLog())[2]).toEqual(startsIn(sb.readLog())[1]);
    // 18.2.3 kept the refused turn's message in its session file, so the retried request carries
    // it twice, and the first answer only.
    const [request, ...more] = api().conversation(ASK).filter((r) => r.answer !== undefined);
    expect(more).toEqual([]);
    expect(asked(request)).toEqual([REMEMBER, ASK, ASK]);
    expect(answers(request)).toEqual([NOTED]);
    expect(request?.answer).toBe(KNOWN);
    expect(sb.readPointer()).toMatchObject({ id: pinnedId, state: "confirmed", history: [], messages: [{}, {}] });
  });

  it("a provider at a closed port on a warm -p follow-up (retries off, a fallback window that outlasts it): ECONNREFUSED keeps the pointer", async () => {
    const sb = ompSandbox();
    const command = [...OMP, "-p"];
    const cold = cleanup.driver(sb.sessionpin(run(sb, ["--prompt", REMEMBER], command)));
    expect((await exitOf(cold, WAIT_MS * 4)).exitCode).toBe(0);
    const id = await waitUntil(() => (pointerExists(sb) && sb.readPointer()["state"] === "confirmed" ? String(sb.readPointer()["id"]) : undefined), "the cold run's pin");
    writeOmpConfig(sb, `http://127.0.0.1:${await closedPort()}/v1`, { retry: false });
    const warm = cleanup.driver(sb.sessionpin(run(sb, ["--fallback-window", "90"], [...command, ASK])));
    expect((await exitOf(warm, 80_000)).exitCode).toBe(1);
    expect(startsIn(sb.readLog())[1]).toEqual([...command, "--session-dir", dirOf(sb), "--session", id, ASK]);
    expect(warm.text).toMatch(/^ECONNREFUSED: Unable to connect\. Is the computer able to access the url\?$/m);
    expect(sb.readPointer()).toMatchObject({ id, state: "confirmed", history: [], messages: [{}] });
    expect(sb.asideFiles("rejected")).toEqual([]);
  }, 120_000);
});

describe(`omp ${VERSION} headless conversations, one per key`, () => {
  // Generous for a busy 2-core machine: a call took 2–8 s here (Bun starts each time).
  const BOUND_MS = WAIT_MS * 4;
  const JSON_MODE = ["--mode", "json"];
  const call = (sb: Sandbox, key: string, message: string) => oneShot(sb, key, [...OMP, "-p", message, ...JSON_MODE], { boundMs: BOUND_MS });

  it("three `omp -p MSG --mode json` calls on one key continue one session, each request carrying every earlier turn; a repeat sends nothing; two keys stay apart", async () => {
    const sb = ompSandbox();
    const times: number[] = [];
    const headers: unknown[] = [];
    for (const [n, message] of THREAD.entries()) {
      const result = await call(sb, "thread-1", message);
      times.push(result.ms);
      expect(result.code, result.stderr).toBe(0);
      expect(result.stdout).toContain(THREAD_ANSWERS[n]);
      headers.push(jsonLines(result.stdout)[0]?.["id"]);
      // The fake API's record: one turn with this message, carrying every earlier turn and answer.
      const [request, ...more] = api().conversation(message).filter((r) => asked(r).at(-1) === message);
      expect(more).toEqual([]);
      expect(asked(request)).toEqual(THREAD.slice(0, n + 1));
      expect(answers(request)).toEqual(THREAD_ANSWERS.slice(0, n));
      expect(request?.answer).toBe(THREAD_ANSWERS[n]);
    }
    const first = sessionsByKey(sb).get("thread-1");
    expect(first).toMatchObject({ agent: "omp", cwd: cwdOf(sb), id: expect.stringMatching(UUID) as unknown, state: "confirmed", messages: 3 });
    const id = String(first?.id);
    // Every call's session header named the pinned session; each follow-up resumed it in the
    // same mode, the new message in omp's argv.
    expect(headers).toEqual([id, id, id]);
    expect(startsOf(first)).toEqual([
      ["omp", "--session-dir", dirOf(sb), ...MODEL, "-p", THREAD[0], ...JSON_MODE],
      [...OMP, "-p", ...JSON_MODE, "--session-dir", dirOf(sb), "--session", id, THREAD[1]],
      [...OMP, "-p", ...JSON_MODE, "--session-dir", dirOf(sb), "--session", id, THREAD[2]],
    ]);

    // The third call again (a retried step): omp is not started, nothing reaches the API, exit 4.
    const requests = api().requests.length;
    const repeat = await call(sb, "thread-1", THREAD[2] ?? "");
    times.push(repeat.ms);
    expect(repeat.code, repeat.stderr).toBe(4);
    expect(repeat.stderr).toContain("session already had this message");
    expect(repeat.stdout).toBe("");
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
    expect(second).toMatchObject({ agent: "omp", cwd: cwdOf(sb), id: expect.stringMatching(UUID) as unknown, state: "confirmed", messages: 1 });
    expect(second?.id).not.toBe(id);
    expect(jsonLines(other.stdout)[0]).toMatchObject({ type: "session", id: second?.id });
    expect(sessionsByKey(sb).get("thread-1")).toEqual(first);
    expect(sessionFiles(dirOf(sb))).toHaveLength(2);
  }, BOUND_MS * 6);
});
