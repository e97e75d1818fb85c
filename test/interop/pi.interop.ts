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
import { answers, ASK, asked, headLines, KNOWN, MODEL, NOTED, piEnv, REMEMBER, sessionFiles, stop, writePiConfig } from "./pi-family-support.js";
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

  it("headless `--mode json -p`: the header on stdout pins the ID, the session file confirms it; a warm -p run with --resume-prompt continues it", async () => {
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

    const warm = cleanup.driver(sb.sessionpin(run(sb, ["--resume-prompt", ASK], command)));
    expect((await exitOf(warm, WAIT_MS * 4)).exitCode).toBe(0);
    expect(startsIn(sb.readLog())[1]).toEqual([...command, "--session-dir", dirOf(sb), "--session", id, ASK]);
    expect(jsonLines(rawText(warm))[0]).toMatchObject({ type: "session", id });
    const [request] = api().conversation(ASK);
    expect(asked(request)).toEqual([REMEMBER, ASK]);
    expect(answers(request)).toEqual([NOTED]);
    expect(request?.answer).toBe(KNOWN);
    expect(sb.readPointer()).toMatchObject({ id, state: "confirmed", history: [] });
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

  it("a provider refusing with 401 on a warm -p start: pi exits 1, the pointer is kept", async () => {
    const sb = piSandbox();
    const command = [...PI, "-p"];
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
  });

  it("a provider at a closed port on a warm -p start (a fallback window that outlasts pi's retries): `Connection error.` keeps the pointer", async () => {
    const sb = piSandbox();
    const command = [...PI, "-p"];
    const cold = cleanup.driver(sb.sessionpin(run(sb, ["--prompt", REMEMBER], command)));
    expect((await exitOf(cold, WAIT_MS * 4)).exitCode).toBe(0);
    const id = await confirmedPin(sb);
    writePiConfig(sb, `http://127.0.0.1:${await closedPort()}/v1`);
    const warm = cleanup.driver(sb.sessionpin(run(sb, ["--resume-prompt", ASK, "--fallback-window", "90"], command)));
    expect((await exitOf(warm, 80_000)).exitCode).toBe(1);
    expect(warm.text).toMatch(/^Connection error\.$/m);
    expect(sb.readPointer()).toMatchObject({ id, state: "confirmed", history: [] });
    expect(sb.asideFiles("rejected")).toEqual([]);
  }, 120_000);
});
