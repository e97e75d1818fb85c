/**
 * One suite for the two agents of the pi family, omp (@oh-my-pi/pi-coding-agent, on Bun) and pi
 * (@mariozechner/pi-coding-agent, on Node): the real CLI through sessionpin at agentapi's
 * 67x1190, against the fake Chat Completions API. What the fake API receives (the earlier turns
 * of a resumed session) proves which session a run continued. Each agent's file names what
 * differs between them.
 */
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { RunContext } from "../../src/agents/types.js";
import type { PtyDriver } from "../../src/demo/driver.js";
import { Cleanup, cwdOf, exitOf, pointerExists, waitUntil, WAIT_MS, writePointerByHand } from "../e2e/support.js";
import type { Sandbox } from "../helpers/sandbox.js";
import { FakeChat } from "./fake-chat.js";
import { answers, ASK, asked, headLines, KNOWN, MODEL, NOTED, REMEMBER, sessionFiles, stop } from "./pi-family-support.js";
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
  /** A user text as the agent sends it again, without what the agent added. */
  readonly userText?: (text: string) => string;
  /** An ID of its grammar that no session has, and how it refuses it. */
  readonly stale: string;
  readonly refusal: (id: string) => string;
  /** What it prints when its provider is at a closed port, and the test title's word for it. */
  readonly closedPort: { readonly text: RegExp; readonly title: string };
}

export function describeFamily(agent: FamilyAgent): void {
  const cleanup = new Cleanup();
  const api = fakeApiPerTest(cleanup, () => FakeChat.start());
  const VERSION = pinned(agent.npmPackage);
  const COMMAND = [agent.name, ...MODEL];

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
  const userTexts = (request: Parameters<typeof asked>[0]): string[] => asked(request).map(agent.userText ?? ((text) => text));
  const stopped = async (driver: PtyDriver): Promise<number> => {
    const { exitCode } = await stop(driver);
    if (agent.sigintExit !== undefined) expect(exitCode).toBe(agent.sigintExit);
    return exitCode;
  };

  describe(`${agent.name} ${VERSION}`, () => {
    it(`is the pinned version, found on PATH${agent.runtime === undefined ? "" : ` (${agent.runtime})`}`, () => {
      expect(versionOf(sandbox(), agent.name)).toBe(agent.version(VERSION));
    });

    it("interactive, agentapi-like: the session file pins the ID; a restart resumes it and the next message carries the first turns", async () => {
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
      expect(userTexts(request)).toEqual([REMEMBER, ASK]);
      expect(answers(request)).toEqual([NOTED]);
      await settled(warm);
      // The same exit both times (pi 0.73.1 has no SIGINT handler and dies of it): no rejection.
      expect(await stopped(warm)).toBe(coldExit);
      expect(sb.readPointer()).toMatchObject({ id, state: "confirmed", history: [] });
      expect(sessionFiles(dirOf(sb))).toEqual([file]);
      expect(sb.asideFiles("rejected")).toEqual([]);
    });

    it("headless `--mode json -p`: the header on stdout pins the ID, the session file confirms it; a warm -p run with --resume-prompt continues it", async () => {
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

      const warm = cleanup.driver(sb.sessionpin(run(sb, ["--resume-prompt", ASK], command)));
      expect((await exitOf(warm, WAIT_MS * 4)).exitCode).toBe(0);
      expect(startsIn(sb.readLog())[1]).toEqual([...command, "--session-dir", dirOf(sb), "--session", id, ASK]);
      expect(jsonLines(rawText(warm))[0]).toMatchObject({ type: "session", id });
      const [request] = api().conversation(ASK);
      expect(userTexts(request)).toEqual([REMEMBER, ASK]);
      expect(answers(request)).toEqual([NOTED]);
      expect(request?.answer).toBe(KNOWN);
      expect(sb.readPointer()).toMatchObject({ id, state: "confirmed", history: [] });
    });

    it(`a stale ID: ${agent.name} refuses it, sessionpin sets the pointer aside and starts a fresh session with the prompt in the same run`, async () => {
      const sb = sandbox();
      writePointerByHand(sb, { agent: agent.name, id: agent.stale, source: { rule: "session-file" } });
      const driver = cleanup.driver(sb.sessionpin(run(sb, ["--prompt", REMEMBER], COMMAND)));
      await answered(driver, NOTED);
      expect(driver.text).toContain(agent.refusal(agent.stale));
      expect(startsIn(sb.readLog())).toEqual([
        [...COMMAND, "--session-dir", dirOf(sb), "--session", agent.stale],
        [agent.name, "--session-dir", dirOf(sb), ...MODEL, REMEMBER],
      ]);
      expect(sb.asideFiles("rejected")).toHaveLength(1);
      const id = await confirmedPin(sb, agent.stale);
      expect(id).toMatch(UUID);
      expect((sb.readPointer()["history"] as Array<{ id: string }>).map((h) => h.id)).toEqual([agent.stale]);
      expect(api().conversation(REMEMBER)).toHaveLength(1);
      await settled(driver);
      await stopped(driver);
    });

    // A real session first, so the warm start gets past the agent's session lookup.
    it(`a provider refusing with 401 on a warm -p start: ${agent.name} exits 1, the pointer is kept`, async () => {
      const sb = sandbox();
      const command = [...COMMAND, "-p"];
      const cold = cleanup.driver(sb.sessionpin(run(sb, ["--prompt", REMEMBER], command)));
      expect((await exitOf(cold, WAIT_MS * 4)).exitCode).toBe(0);
      const id = await confirmedPin(sb);
      api().refuseWith = 401;
      const warm = cleanup.driver(sb.sessionpin(run(sb, ["--resume-prompt", ASK], command)));
      expect((await exitOf(warm, WAIT_MS * 4)).exitCode).toBe(1);
      expect(warm.text).toMatch(/^401 fake chat API: refused$/m);
      expect(startsIn(sb.readLog())).toHaveLength(2);
      expect(sb.readPointer()).toMatchObject({ id, state: "confirmed", history: [] });
      expect(sb.asideFiles("rejected")).toEqual([]);
      expect(api().completions().filter((r) => r.answer === undefined).length).toBeGreaterThan(0);
    });

    it(`a provider at a closed port on a warm -p start (a fallback window that outlasts the agent's retries): ${agent.closedPort.title} keeps the pointer`, async () => {
      const sb = sandbox();
      const command = [...COMMAND, "-p"];
      const cold = cleanup.driver(sb.sessionpin(run(sb, ["--prompt", REMEMBER], command)));
      expect((await exitOf(cold, WAIT_MS * 4)).exitCode).toBe(0);
      const id = await confirmedPin(sb);
      agent.configure(sb, `http://127.0.0.1:${await closedPort()}/v1`, { retry: false });
      const warm = cleanup.driver(sb.sessionpin(run(sb, ["--resume-prompt", ASK, "--fallback-window", "90"], command)));
      expect((await exitOf(warm, 80_000)).exitCode).toBe(1);
      expect(warm.text).toMatch(agent.closedPort.text);
      expect(sb.readPointer()).toMatchObject({ id, state: "confirmed", history: [] });
      expect(sb.asideFiles("rejected")).toEqual([]);
    }, 120_000);
  });
}
