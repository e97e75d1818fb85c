/**
 * One suite for the two agents of the pi family, omp (@oh-my-pi/pi-coding-agent, on Bun) and pi
 * (@mariozechner/pi-coding-agent, on Node): the real CLI through sessionpin at agentapi's
 * 67x1190, against the fake Chat Completions API. What the fake API receives (the earlier turns
 * of a resumed session) proves which session a run continued. Each agent's file names what
 * differs between them, and holds the tests that are its own.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { RunContext } from "../../src/agents/types.js";
import type { PtyDriver } from "../../src/pty/driver.js";
import { Cleanup, cwdOf, exitOf, pointerExists, waitUntil, WAIT_MS, writePointerByHand } from "../e2e/support.js";
import type { Sandbox } from "../helpers/sandbox.js";
import { FakeChat } from "./fake-chat.js";
import { oneShot, repeatSendsNothing, type OneShotResult } from "./headless.js";
import { sessionsByKey, startsOf } from "./keyed-sessions.js";
import { answers, ASK, asked, headLines, KNOWN, MODEL, NOTED, REMEMBER, sessionFiles, stop, THREAD, THREAD_ANSWERS } from "./pi-family-support.js";
import { closedPort, fakeApiPerTest, jsonLines, pinned, rawText, realSandbox, replayOf, run, settled, startsIn, UUID, versionOf } from "./support.js";

export interface FamilyAgent {
  /** The plugin and the executable. */
  readonly name: "omp" | "pi";
  readonly npmPackage: string;
  /** What `--version` prints for the pinned version. */
  readonly version: (pinned: string) => string;
  /** Said after "found on PATH" in the version test. */
  readonly runtime?: string;
  /** Its provider config pointing at `baseUrl`; `retry: false` where the agent would retry for minutes. */
  readonly configure: (sb: Sandbox, baseUrl: string, options?: { retry?: boolean }) => void;
  readonly env?: NodeJS.ProcessEnv;
  /** The session folder sessionpin gives it. */
  readonly sessionDir: (context: Pick<RunContext, "home" | "cwd">) => string;
  /** Its session file starts with a title line, the header second. */
  readonly titleLine: boolean;
  /** Its exit code on agentapi's SIGINT, where the test pins it. */
  readonly sigintExit?: number;
  /** A user text of the interactive TUI as the agent sends it again, without what the agent added. */
  readonly userText?: (text: string) => string;
  /** An ID of its grammar that no session has, and how it refuses it. */
  readonly stale: string;
  readonly refusal: (id: string) => string;
  /** What it prints when its provider is at a closed port, and the test title's word for it. */
  readonly closedPort: { readonly text: RegExp; readonly title: string };
  /** The output mode of the keyed one-shot calls (`--mode json`: each header names the session). */
  readonly headlessMode: readonly string[];
  /** Its exit code when the provider refuses a `--mode json -p` turn: pi 0.73.1 exits 0 (the turn's end says error). */
  readonly jsonRefusedExit: number;
}

/** What an agent's own tests share with the suite: its sandbox, the fake API and the helpers. */
export interface Family {
  readonly cleanup: Cleanup;
  readonly api: () => FakeChat;
  readonly VERSION: string;
  /** The agent with the fake's model. */
  readonly COMMAND: readonly string[];
  readonly sandbox: () => Sandbox;
  readonly dirOf: (sb: Sandbox) => string;
  /** The bound of each keyed one-shot call: generous for a busy 2-core machine (omp 18.2.3 took 2–8 s a call here, Bun starting each time; pi 0.73.1 1–4 s). */
  readonly BOUND_MS: number;
}

export function describeFamily(agent: FamilyAgent): Family {
  const cleanup = new Cleanup();
  const api = fakeApiPerTest(cleanup, () => FakeChat.start());
  const VERSION = pinned(agent.npmPackage);
  const COMMAND = [agent.name, ...MODEL];
  const BOUND_MS = WAIT_MS * 4;

  const sandbox = (): Sandbox => {
    const sb = realSandbox(cleanup, agent.env);
    agent.configure(sb, api().url);
    return sb;
  };
  const dirOf = (sb: Sandbox): string => agent.sessionDir({ home: sb.home, cwd: cwdOf(sb) });
  /** The screen once the agent drew the fake API's answer `text`. */
  const answered = (driver: PtyDriver, text: string): Promise<RegExpMatchArray> => driver.waitFor(new RegExp(text.replace(/[.?]/g, "\\$&")), WAIT_MS * 4);
  /** The pinned ID once the pointer holds a confirmed one (other than `not`). */
  const confirmedPin = (sb: Sandbox, not?: string): Promise<string> =>
    waitUntil(() => {
      const pointer = pointerExists(sb) ? sb.readPointer() : undefined;
      return pointer !== undefined && pointer["state"] === "confirmed" && pointer["id"] !== not ? String(pointer["id"]) : undefined;
    }, "a confirmed pin", WAIT_MS * 2);
  const stopped = async (driver: PtyDriver): Promise<number> => {
    const { exitCode } = await stop(driver);
    if (agent.sigintExit !== undefined) expect(exitCode).toBe(agent.sigintExit);
    return exitCode;
  };
  /** A cold `-p` run with REMEMBER; returns the ID the session file confirmed. */
  const coldPrint = async (sb: Sandbox): Promise<string> => {
    const cold = cleanup.driver(sb.sessionpin(run(sb, ["--prompt", REMEMBER], [...COMMAND, "-p"])));
    expect((await exitOf(cold, WAIT_MS * 4)).exitCode).toBe(0);
    return confirmedPin(sb);
  };

  describe(`${agent.name} ${VERSION}`, () => {
    it(`is the pinned version, found on PATH${agent.runtime === undefined ? "" : ` (${agent.runtime})`}`, () => {
      expect(versionOf(sandbox(), agent.name)).toBe(agent.version(VERSION));
    });

    it(`interactive, agentapi-like: the session file (header on line ${agent.titleLine ? 2 : 1}) pins the ID; a restart resumes it and the next message carries the first turns`, async () => {
      const sb = sandbox();
      const cold = cleanup.driver(sb.sessionpin(run(sb, ["--prompt", REMEMBER], COMMAND)));
      await answered(cold, NOTED);
      const id = await confirmedPin(sb);
      expect(id).toMatch(UUID);
      // The cold start got sessionpin's session folder and the prompt as the agent's message.
      expect(startsIn(sb.readLog())).toEqual([[agent.name, "--session-dir", dirOf(sb), ...MODEL, REMEMBER]]);
      expect(sb.readPointer()).toMatchObject({ agent: agent.name, id, cwd: cwdOf(sb), state: "confirmed", source: { rule: "session-file" }, history: [] });
      const [file, ...others] = sessionFiles(dirOf(sb));
      expect(others).toEqual([]);
      expect(file).toMatch(new RegExp(`^\\d{4}-\\d\\d-\\d\\dT[\\d-]+Z_${id}\\.jsonl$`));
      const head = headLines(join(dirOf(sb), file ?? ""), agent.titleLine ? 2 : 1);
      if (agent.titleLine) expect(head[0]).toMatchObject({ type: "title" });
      expect(head.at(-1)).toMatchObject({ type: "session", id, cwd: cwdOf(sb) });
      expect(api().conversation(REMEMBER)).toHaveLength(1);
      await settled(cold);
      const coldExit = await stopped(cold);

      // Restart with the same command line: resumed by ID, without the prompt.
      const warm = cleanup.driver(sb.sessionpin(run(sb, ["--prompt", REMEMBER], COMMAND)));
      await waitUntil(() => startsIn(sb.readLog()).length === 2, "the warm start");
      expect(startsIn(sb.readLog())[1]).toEqual([...COMMAND, "--session-dir", dirOf(sb), "--session", id]);
      // A warm start draws the earlier conversation first; agentapi types once the screen is still.
      await warm.waitFor(new RegExp(NOTED.replace(/\./g, "\\.")), WAIT_MS * 2);
      await settled(warm);
      expect(api().conversation(REMEMBER)).toHaveLength(1);
      warm.sendMessage(ASK);
      await answered(warm, KNOWN);
      const [request, ...more] = api().conversation(ASK);
      expect(more).toEqual([]);
      expect(asked(request).map(agent.userText ?? ((text) => text))).toEqual([REMEMBER, ASK]);
      expect(answers(request)).toEqual([NOTED]);
      await settled(warm);
      // The same exit both times (pi 0.73.1 has no SIGINT handler and dies of it): no rejection.
      expect(await stopped(warm)).toBe(coldExit);
      expect(sb.readPointer()).toMatchObject({ id, state: "confirmed", history: [] });
      expect(sessionFiles(dirOf(sb))).toEqual([file]);
      expect(sb.asideFiles("rejected")).toEqual([]);
    });

    it("headless `--mode json -p`: the header on stdout pins the ID, the session file confirms it; the next run's new message continues it, a repeated one sends nothing unless --resume-prompt is given", async () => {
      const sb = sandbox();
      const cast = join(sb.dir, "json.cast");
      const command = [...COMMAND, "--mode", "json", "-p"];
      const cold = cleanup.driver(sb.sessionpin(run(sb, ["--prompt", REMEMBER, "--record", cast], command)));
      expect((await exitOf(cold, WAIT_MS * 4)).exitCode).toBe(0);
      const events = jsonLines(rawText(cold));
      expect(events[0]).toMatchObject({ type: "session", version: 3, id: expect.stringMatching(UUID) as unknown, cwd: cwdOf(sb) });
      const id = String(events[0]?.["id"]);
      expect(startsIn(sb.readLog())).toEqual([[agent.name, "--session-dir", dirOf(sb), ...MODEL, "--mode", "json", "-p", REMEMBER]]);
      expect(sb.readLog()).toMatch(new RegExp(`captured provisional ${id} \\(rule session-header, line 1\\)`));
      expect(await confirmedPin(sb)).toBe(id);
      expect(sb.readPointer()).toMatchObject({ agent: agent.name, id, source: { rule: "session-file" } });
      expect(api().conversation(REMEMBER)).toHaveLength(1);
      expect(replayOf(sb, cast)).toMatchObject({ status: 0, result: { agent: agent.name, id, state: "provisional", rule: "session-header" } });

      // Warm: the message in argv is new to the session, a follow-up: the agent resumes it in the
      // same mode and gets the message in its argv.
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

      // The same run again (a retried step): the agent is not started and nothing reaches the API
      // (exit 4); with --resume-prompt, that message is delivered instead.
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

    it(`a stale ID gone from sessionpin's session folder (which holds a session of ${agent.name}'s own): set aside before launch, ${agent.name} is never asked to resume it, the fresh session gets the message`, async () => {
      const sb = sandbox();
      const first = await coldPrint(sb);
      // The folder the store check looks in is the one the real CLI wrote its session file to.
      expect(sessionFiles(dirOf(sb))).toEqual([expect.stringMatching(new RegExp(`_${first}\\.jsonl$`))]);
      writePointerByHand(sb, { agent: agent.name, id: agent.stale, source: { rule: "session-file" } });
      const warm = cleanup.driver(sb.sessionpin(run(sb, [], [...COMMAND, "-p", ASK])));
      expect((await exitOf(warm, WAIT_MS * 4)).exitCode).toBe(0);
      expect(warm.text).not.toContain(agent.refusal(agent.stale));
      expect(startsIn(sb.readLog()).flat()).not.toContain(agent.stale);
      expect(startsIn(sb.readLog()).at(-1)).toEqual([agent.name, "--session-dir", dirOf(sb), ...MODEL, "-p", ASK]);
      expect(sb.readLog()).toContain(`session ${agent.stale} is gone from ${agent.name}'s own store (looked in ${dirOf(sb)})`);
      expect(sb.asideFiles("gone")).toHaveLength(1);
      expect(sb.asideFiles("rejected")).toEqual([]);
      const fresh = await confirmedPin(sb, agent.stale);
      expect(fresh).not.toBe(first);
      // The fresh session got the message alone: it never saw the cold run's word.
      const [request, ...more] = api().conversation(ASK);
      expect(more).toEqual([]);
      expect(asked(request)).toEqual([ASK]);
      expect(request?.answer).toBe("FAKE-API: no word was given in this conversation.");
      expect(sessionFiles(dirOf(sb))).toHaveLength(2);
    });

    it(`a stale ID where sessionpin cannot tell (its session folder not made yet): ${agent.name} refuses it, sessionpin sets the pointer aside and starts a fresh session with the prompt in the same run`, async () => {
      const sb = sandbox();
      writePointerByHand(sb, { agent: agent.name, id: agent.stale, source: { rule: "session-file" } });
      expect(existsSync(dirOf(sb))).toBe(false);
      const driver = cleanup.driver(sb.sessionpin(run(sb, ["--prompt", REMEMBER], COMMAND)));
      await answered(driver, NOTED);
      expect(driver.text).toContain(agent.refusal(agent.stale));
      expect(startsIn(sb.readLog())).toEqual([
        [...COMMAND, "--session-dir", dirOf(sb), "--session", agent.stale],
        [agent.name, "--session-dir", dirOf(sb), ...MODEL, REMEMBER],
      ]);
      expect(sb.readLog()).not.toContain("own store");
      expect(sb.asideFiles("rejected")).toHaveLength(1);
      expect(sb.asideFiles("gone")).toEqual([]);
      const id = await confirmedPin(sb, agent.stale);
      expect(id).toMatch(UUID);
      expect((sb.readPointer()["history"] as Array<{ id: string }>).map((h) => h.id)).toEqual([agent.stale]);
      expect(api().conversation(REMEMBER)).toHaveLength(1);
      await settled(driver);
      await stopped(driver);
    });

    it(`a stale ID where the command moves the store itself (its own --session-dir, here the folder that holds a session): sessionpin does not judge, ${agent.name} refuses it and the same run falls back with the message`, async () => {
      const sb = sandbox();
      const first = await coldPrint(sb);
      writePointerByHand(sb, { agent: agent.name, id: agent.stale, source: { rule: "session-file" } });
      const command = [...COMMAND, "--session-dir", dirOf(sb), "-p", ASK];
      const warm = cleanup.driver(sb.sessionpin(run(sb, [], command)));
      expect((await exitOf(warm, WAIT_MS * 4)).exitCode).toBe(0);
      expect(warm.text).toContain(agent.refusal(agent.stale));
      expect(sb.readLog()).not.toContain("own store");
      const [resumed, fresh] = startsIn(sb.readLog()).slice(-2);
      expect(resumed).toContain(agent.stale);
      expect(resumed?.at(-1)).toBe(ASK);
      expect(fresh).toEqual(command);
      expect(sb.asideFiles("rejected")).toHaveLength(1);
      expect(sb.asideFiles("gone")).toEqual([]);
      expect([agent.stale, first]).not.toContain(await confirmedPin(sb, agent.stale));
      const [request, ...more] = api().conversation(ASK);
      expect(more).toEqual([]);
      expect(asked(request)).toEqual([ASK]);
    });

    it(`a provider refusing with 401 on a warm -p follow-up: ${agent.name} exits 1, the pointer is kept and the message not counted, so the retried call delivers it`, async () => {
      const sb = sandbox();
      // A real session first, so the warm start gets past the agent's session lookup.
      const command = [...COMMAND, "-p"];
      const id = await coldPrint(sb);
      api().refuseWith = 401;
      const warm = cleanup.driver(sb.sessionpin(run(sb, [], [...command, ASK])));
      expect((await exitOf(warm, WAIT_MS * 4)).exitCode).toBe(1);
      expect(startsIn(sb.readLog())[1]).toEqual([...command, "--session-dir", dirOf(sb), "--session", id, ASK]);
      expect(warm.text).toMatch(/^401 fake chat API: refused$/m);
      expect(startsIn(sb.readLog())).toHaveLength(2);
      // Kept, and the follow-up is not counted as had: the agent took no turn with it.
      expect(sb.readPointer()).toMatchObject({ id, state: "confirmed", history: [], messages: [{}] });
      expect(sb.asideFiles("rejected")).toEqual([]);
      expect(api().completions().filter((r) => r.answer === undefined).length).toBeGreaterThan(0);

      // So the retried step delivers it, once the provider is back.
      api().refuseWith = undefined;
      const retried = cleanup.driver(sb.sessionpin(run(sb, [], [...command, ASK])));
      expect((await exitOf(retried, WAIT_MS * 4)).exitCode).toBe(0);
      expect(startsIn(sb.readLog())[2]).toEqual(startsIn(sb.readLog())[1]);
      // omp 18.2.3 and pi 0.73.1 keep the refused turn's message in their session file, so the
      // retried request carries it twice, and the first answer only.
      const [request, ...more] = api().conversation(ASK).filter((r) => r.answer !== undefined);
      expect(more).toEqual([]);
      expect(asked(request)).toEqual([REMEMBER, ASK, ASK]);
      expect(answers(request)).toEqual([NOTED]);
      expect(request?.answer).toBe(KNOWN);
      expect(sb.readPointer()).toMatchObject({ id, state: "confirmed", history: [], messages: [{}, {}] });
    });

    it(`a provider refusing with 401 on a warm \`--mode json -p\` follow-up: ${agent.name} exits ${agent.jsonRefusedExit}, its turn ended in an error, so the message is not counted and the retried call delivers it`, async () => {
      const sb = sandbox();
      const command = [...COMMAND, "--mode", "json", "-p"];
      const id = await coldPrint(sb);
      api().refuseWith = 401;
      const warm = cleanup.driver(sb.sessionpin(run(sb, [], [...command, ASK])));
      expect((await exitOf(warm, WAIT_MS * 4)).exitCode).toBe(agent.jsonRefusedExit);
      expect(warm.text).toContain('"stopReason":"error"');
      expect(sb.readPointer()).toMatchObject({ id, state: "confirmed", history: [], messages: [{}] });

      api().refuseWith = undefined;
      const retried = cleanup.driver(sb.sessionpin(run(sb, [], [...command, ASK])));
      expect((await exitOf(retried, WAIT_MS * 4)).exitCode).toBe(0);
      const [request, ...more] = api().conversation(ASK).filter((r) => r.answer !== undefined);
      expect(more).toEqual([]);
      expect(request?.answer).toBe(KNOWN);
      expect(sb.readPointer()).toMatchObject({ id, state: "confirmed", history: [], messages: [{}, {}] });
    });

    it(`a provider at a closed port on a warm -p follow-up (a fallback window that outlasts the agent's retries): ${agent.closedPort.title} keeps the pointer`, async () => {
      const sb = sandbox();
      const command = [...COMMAND, "-p"];
      const id = await coldPrint(sb);
      agent.configure(sb, `http://127.0.0.1:${await closedPort()}/v1`, { retry: false });
      const warm = cleanup.driver(sb.sessionpin(run(sb, ["--fallback-window", "90"], [...command, ASK])));
      expect((await exitOf(warm, 80_000)).exitCode).toBe(1);
      expect(startsIn(sb.readLog())[1]).toEqual([...command, "--session-dir", dirOf(sb), "--session", id, ASK]);
      expect(warm.text).toMatch(agent.closedPort.text);
      expect(sb.readPointer()).toMatchObject({ id, state: "confirmed", history: [], messages: [{}] });
      expect(sb.asideFiles("rejected")).toEqual([]);
    }, 120_000);
  });

  describe(`${agent.name} ${VERSION} headless conversations, one per key`, () => {
    const mode = agent.headlessMode;
    const json = mode.includes("json");
    const call = (sb: Sandbox, key: string, message: string): Promise<OneShotResult> => oneShot(sb, key, [...COMMAND, "-p", message, ...mode], { boundMs: BOUND_MS });

    it(`three \`${[agent.name, "-p", "MSG", ...mode].join(" ")}\` calls on one key continue one session, each request carrying every earlier turn; a repeat sends nothing; two keys stay apart`, async () => {
      const sb = sandbox();
      const headers: unknown[] = [];
      for (const [n, message] of THREAD.entries()) {
        const result = await call(sb, "thread-1", message);
        expect(result.code, result.stderr).toBe(0);
        expect(result.stdout).toContain(THREAD_ANSWERS[n]);
        if (json) headers.push(jsonLines(result.stdout)[0]?.["id"]);
        // The fake API's record: one turn with this message, carrying every earlier turn and answer.
        const [request, ...more] = api().conversation(message).filter((r) => asked(r).at(-1) === message);
        expect(more).toEqual([]);
        expect(asked(request)).toEqual(THREAD.slice(0, n + 1));
        expect(answers(request)).toEqual(THREAD_ANSWERS.slice(0, n));
        expect(request?.answer).toBe(THREAD_ANSWERS[n]);
      }
      const first = sessionsByKey(sb).get("thread-1");
      expect(first).toMatchObject({ agent: agent.name, cwd: cwdOf(sb), id: expect.stringMatching(UUID) as unknown, state: "confirmed", messages: 3 });
      const id = String(first?.id);
      // In json mode, every call's session header named the pinned session.
      if (json) expect(headers).toEqual([id, id, id]);
      // Each follow-up resumed the pinned session in print mode (and the same output mode), the
      // new message in the agent's argv.
      expect(startsOf(first)).toEqual([
        [agent.name, "--session-dir", dirOf(sb), ...MODEL, "-p", THREAD[0], ...mode],
        [...COMMAND, "-p", ...mode, "--session-dir", dirOf(sb), "--session", id, THREAD[1]],
        [...COMMAND, "-p", ...mode, "--session-dir", dirOf(sb), "--session", id, THREAD[2]],
      ]);

      // The third call again (a retried step): the agent is not started, nothing reaches the API, exit 4.
      await repeatSendsNothing(() => call(sb, "thread-1", THREAD[2] ?? ""), () => api().requests.length);
      expect(startsOf(first)).toHaveLength(3);
      expect(sessionsByKey(sb).get("thread-1")).toEqual(first);

      // Another key in the same folder: a conversation of its own, which knows no word.
      const other = await call(sb, "thread-2", ASK);
      expect(other.code, other.stderr).toBe(0);
      const fresh = api().conversation(ASK).filter((r) => asked(r).length === 1);
      expect(fresh).toHaveLength(1);
      expect(fresh[0]?.answer).toBe("FAKE-API: no word was given in this conversation.");
      const second = sessionsByKey(sb).get("thread-2");
      expect(second).toMatchObject({ agent: agent.name, cwd: cwdOf(sb), id: expect.stringMatching(UUID) as unknown, state: "confirmed", messages: 1 });
      expect(second?.id).not.toBe(id);
      if (json) expect(jsonLines(other.stdout)[0]).toMatchObject({ type: "session", id: second?.id });
      expect(sessionsByKey(sb).get("thread-1")).toEqual(first);
      expect(sessionFiles(dirOf(sb))).toHaveLength(2);
    }, BOUND_MS * 6);
  });

  return { cleanup, api, VERSION, COMMAND, sandbox, dirOf, BOUND_MS };
}
