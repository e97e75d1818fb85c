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
import { answers, ASK, asked, headLines, KNOWN, MODEL, NOTED, REMEMBER, sessionFiles, stop, writeOmpConfig } from "./pi-family-support.js";
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

  it("headless `--mode json -p`: the header on stdout pins the ID, the session file confirms it; a warm -p run with --resume-prompt continues it", async () => {
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

    const warm = cleanup.driver(sb.sessionpin(run(sb, ["--resume-prompt", ASK], command)));
    expect((await exitOf(warm, WAIT_MS * 4)).exitCode).toBe(0);
    expect(startsIn(sb.readLog())[1]).toEqual([...command, "--session-dir", dirOf(sb), "--session", id, ASK]);
    expect(jsonLines(rawText(warm))[0]).toMatchObject({ type: "session", id });
    const [request] = api().conversation(ASK);
    expect(answers(request)).toEqual([NOTED]);
    expect(request?.answer).toBe(KNOWN);
    expect(sb.readPointer()).toMatchObject({ id, state: "confirmed", history: [] });
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

  it("a provider refusing with 401 on a warm -p start: omp exits 1, the pointer is kept", async () => {
    const sb = ompSandbox();
    // A real session first, so the warm start gets past omp's session lookup.
    const command = [...OMP, "-p"];
    const cold = cleanup.driver(sb.sessionpin(run(sb, ["--prompt", REMEMBER], command)));
    expect((await exitOf(cold, WAIT_MS * 4)).exitCode).toBe(0);
    const pinnedId = await waitUntil(() => (pointerExists(sb) && sb.readPointer()["state"] === "confirmed" ? String(sb.readPointer()["id"]) : undefined), "the cold run's pin");
    api().refuseWith = 401;
    const warm = cleanup.driver(sb.sessionpin(run(sb, ["--resume-prompt", ASK], command)));
    expect((await exitOf(warm, WAIT_MS * 4)).exitCode).toBe(1);
    expect(warm.text).toMatch(/^401 fake chat API: refused$/m);
    expect(startsIn(sb.readLog())).toHaveLength(2);
    expect(sb.readPointer()).toMatchObject({ id: pinnedId, state: "confirmed", history: [] });
    expect(sb.asideFiles("rejected")).toEqual([]);
    expect(api().completions().filter((r) => r.answer === undefined).length).toBeGreaterThan(0);
  });

  it("a provider at a closed port on a warm -p start (retries off, a fallback window that outlasts it): ECONNREFUSED keeps the pointer", async () => {
    const sb = ompSandbox();
    const command = [...OMP, "-p"];
    const cold = cleanup.driver(sb.sessionpin(run(sb, ["--prompt", REMEMBER], command)));
    expect((await exitOf(cold, WAIT_MS * 4)).exitCode).toBe(0);
    const id = await waitUntil(() => (pointerExists(sb) && sb.readPointer()["state"] === "confirmed" ? String(sb.readPointer()["id"]) : undefined), "the cold run's pin");
    writeOmpConfig(sb, `http://127.0.0.1:${await closedPort()}/v1`, { retry: false });
    const warm = cleanup.driver(sb.sessionpin(run(sb, ["--resume-prompt", ASK, "--fallback-window", "90"], command)));
    expect((await exitOf(warm, 80_000)).exitCode).toBe(1);
    expect(warm.text).toMatch(/^ECONNREFUSED: Unable to connect\. Is the computer able to access the url\?$/m);
    expect(sb.readPointer()).toMatchObject({ id, state: "confirmed", history: [] });
    expect(sb.asideFiles("rejected")).toEqual([]);
  }, 120_000);
});
