/**
 * Real Auggie (`@augmentcode/auggie`) through sessionpin at agentapi's 67x1190, offline against a
 * fake Augment API (auggie-support.ts). What the fake receives proves continuity: 0.36.0 sends a
 * session's earlier exchanges in `chat_history` and its ID as `conversation_id`.
 */
import { spawn, spawnSync } from "node:child_process";
import { randomUUID } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, realpathSync, rmSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { PtyDriver } from "../../src/pty/driver.js";
import { Cleanup, cwdOf, exitOf, readBeside, sleep, waitUntil, WAIT_MS, writePointerByHand } from "../e2e/support.js";
import { CLI, type Sandbox } from "../helpers/sandbox.js";
import { auggieEnv, FakeAugment, settleAuggieOnboarding, typeMessage, type AugmentChat } from "./auggie-support.js";
import { textOf, userTexts } from "./fake-anthropic.js";
import { oneShot } from "./headless.js";
import { firstThenFollowUp, sessionsByKey, startsOf } from "./keyed-sessions.js";
import { closedPort, fakeApiPerTest, jsonLines, pinned, rawText, realSandbox, replayOf, run, settled, startsIn, UUID, versionOf } from "./support.js";

const cleanup = new Cleanup();
const api = fakeApiPerTest(cleanup, () => FakeAugment.start());

const VERSION = pinned("@augmentcode/auggie");
const REMEMBER = "remember the word zebra";
const ASK = "which word?";
/** The TUI: `--allow-indexing` skips 0.36.0's indexing confirmation screen. */
const TUI = ["auggie", "--allow-indexing"];
const PRINT = ["auggie", "--print", "--output-format", "json"];

function auggieSandbox(tenantURL = api().url): Sandbox {
  const sb = realSandbox(cleanup, auggieEnv(tenantURL));
  settleAuggieOnboarding(sb);
  return sb;
}

/**
 * `sessionpin <args>` with pipes and stdin closed (no terminal at all). Not e2e's `cli`: its
 * spawnSync would block this process, and with it the fake API the agent waits for.
 */
async function runPiped(sb: Sandbox, args: readonly string[]): Promise<{ status: number | null; stdout: string }> {
  const child = spawn(process.execPath, [CLI, ...args], { cwd: sb.dir, env: sb.env, stdio: ["ignore", "pipe", "pipe"] });
  let stdout = "";
  child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString("utf8")));
  const timer = setTimeout(() => child.kill("SIGKILL"), WAIT_MS * 4);
  const status = await new Promise<number | null>((resolve) => child.on("close", (code) => resolve(code)));
  clearTimeout(timer);
  return { status, stdout };
}

/** The pointer file's fields, or undefined before sessionpin wrote one. */
const pointerOf = (sb: Sandbox): Record<string, unknown> | undefined => (existsSync(sb.pointer) ? sb.readPointer() : undefined);

/** Auggie's store, one file a session, for every workspace: where sessionpin looks a pinned session up before a warm start. */
const sessionsDir = (sb: Sandbox): string => join(sb.home, ".augment", "sessions");
const sessionFile = (sb: Sandbox, id: string): string => join(sessionsDir(sb), `${id}.json`);

/** agentapi's shutdown: SIGINT to sessionpin, which forwards it to Auggie's process group. */
async function stop(driver: PtyDriver): Promise<number> {
  driver.kill("SIGINT");
  return (await exitOf(driver, WAIT_MS * 2)).exitCode;
}

/** The TUI's answer row: `● <answer>`. */
const answered = (driver: PtyDriver, text: string): Promise<RegExpMatchArray> => driver.waitFor(new RegExp(`● ${text.replace(/[.?]/g, "\\$&")}`), WAIT_MS * 4);

/** The user texts of a turn, without agentapi's leading `x` (0.36.0 does not take `\b`). */
const said = (chat: AugmentChat | undefined): string[] => userTexts(chat?.messages ?? []).map((t) => t.replace(/^x(?=remember|which)/, ""));

/** A cold TUI start with the task; returns the ID the store pinned. */
async function coldTui(sb: Sandbox, options: readonly string[] = []): Promise<{ driver: PtyDriver; id: string }> {
  const driver = cleanup.driver(sb.sessionpin(run(sb, ["--prompt", REMEMBER, ...options], TUI)));
  await answered(driver, "FAKE-API: noted the word zebra.");
  // The session file is written once the first exchange ends, while the TUI runs.
  const id = await waitUntil(() => (pointerOf(sb)?.["state"] === "confirmed" ? String(pointerOf(sb)?.["id"]) : undefined), "the session file to pin the ID", WAIT_MS * 2);
  return { driver, id };
}

describe(`Auggie ${VERSION}`, () => {
  it("is the pinned version, found on PATH", () => {
    expect(versionOf(auggieSandbox(), "auggie")).toMatch(new RegExp(`^${VERSION.replace(/\./g, "\\.")} `));
  });

  it("interactive, agentapi-like: the session file pins the ID while the TUI runs; SIGINT, restart with --resume, the next message carries the first turns; two Ctrl+C show the tip", async () => {
    const sb = auggieSandbox();
    const cast = join(sb.dir, "cold.cast");
    const { driver: cold, id } = await coldTui(sb, ["--record", cast]);
    expect(id).toMatch(UUID);
    expect(startsIn(sb.readLog())).toEqual([[...TUI, "--instruction", REMEMBER]]);
    expect(sb.readPointer()).toMatchObject({ agent: "auggie", id, cwd: cwdOf(sb), state: "confirmed", source: { rule: "session-file" }, history: [] });
    expect(JSON.parse(readFileSync(sessionFile(sb, id), "utf8"))).toMatchObject({ sessionId: id });
    const first = api().turns(REMEMBER);
    expect(first).toHaveLength(1);
    expect(first[0]?.conversationId).toBe(id);

    // agentapi's shutdown: 0.36.0 exits 0 on SIGINT and prints no resume tip (only two Ctrl+C do).
    await settled(cold);
    expect(await stop(cold)).toBe(0);
    expect(cold.text).not.toContain("auggie session resume");
    expect(sb.readPointer()).toMatchObject({ id, state: "confirmed" });
    // The screen alone names no session: a replay of the recording finds none.
    expect(replayOf(sb, cast).result).toMatchObject({ agent: "auggie", id: null });

    // Restart: the same command line resumes the session, without the task.
    const warmCast = join(sb.dir, "warm.cast");
    const warm = cleanup.driver(sb.sessionpin(run(sb, ["--prompt", REMEMBER, "--record", warmCast], TUI)));
    await waitUntil(() => startsIn(sb.readLog()).length === 2, "the warm start");
    expect(startsIn(sb.readLog())[1]).toEqual([...TUI, "--resume", id]);
    await warm.waitFor(/Resumed session .*\(1 exchanges\)/, WAIT_MS * 2);
    await warm.waitFor(/^› /m, WAIT_MS * 2);
    await settled(warm);
    const before = api().chats.length;
    await sleep(1_500);
    expect(api().chats.slice(before)).toEqual([]);
    await typeMessage(warm, ASK);
    await answered(warm, "FAKE-API: the word is zebra.");
    const asked = api().turns(ASK);
    expect(asked).toHaveLength(1);
    expect(asked[0]?.conversationId).toBe(id);
    expect(said(asked[0])).toEqual([REMEMBER, ASK]);
    expect(textOf(asked[0]?.messages[1]?.content)).toBe("FAKE-API: noted the word zebra.");
    // The raw text the fake got: agentapi's `x\b` arrives as a leading `x`.
    expect(userTexts(asked[0]?.messages ?? []).at(-1)).toBe(`x${ASK}`);
    expect(api().turns(REMEMBER)).toHaveLength(1);

    // Auggie's own exit keys this time (Ctrl+C twice): 0.36.0 prints its resume tip, one
    // 126-column row that the 67-column screen wraps inside the ID; a replay takes the ID from it.
    await settled(warm);
    warm.write("\x03");
    await sleep(700);
    warm.write("\x03");
    expect((await exitOf(warm, WAIT_MS * 2)).exitCode).toBe(0);
    expect(rawText(warm)).toContain(`\u2728 Tip: Use 'auggie session continue' or 'auggie session resume ${id}' to resume your session`);
    expect(replayOf(sb, warmCast)).toMatchObject({ status: 0, result: { agent: "auggie", id, rule: "exit-resume-hint" } });
    expect(sb.readPointer()).toMatchObject({ id, state: "confirmed", history: [] });
    expect(sb.asideFiles("rejected")).toEqual([]);
  });

  it("print mode (--print --output-format json): the result line's session_id is pinned and confirmed; the next run's new message resumes it headless, a repeated one sends nothing unless --resume-prompt is given", async () => {
    const sb = auggieSandbox();
    const cold = cleanup.driver(sb.sessionpin(run(sb, [], [...PRINT, REMEMBER])));
    expect((await exitOf(cold, WAIT_MS * 4)).exitCode).toBe(0);
    const result = jsonLines(rawText(cold)).find((e) => e["type"] === "result");
    expect(result).toMatchObject({ type: "result", subtype: "success", is_error: false, result: "FAKE-API: noted the word zebra.", session_id: expect.stringMatching(UUID) as unknown });
    const id = String(result?.["session_id"]);
    expect(startsIn(sb.readLog())).toEqual([[...PRINT, REMEMBER]]);
    await waitUntil(() => pointerOf(sb)?.["state"] === "confirmed", "the session file to confirm the ID");
    expect(sb.readPointer()).toMatchObject({ agent: "auggie", id, state: "confirmed", history: [] });
    expect(existsSync(sessionFile(sb, id))).toBe(true);
    expect(api().turns(REMEMBER).map((c) => c.conversationId)).toEqual([id]);

    // Warm: the message in argv is new to the session, a follow-up: resumed in print mode, the
    // message as `--instruction`.
    const warm = cleanup.driver(sb.sessionpin(run(sb, [], [...PRINT, ASK])));
    expect((await exitOf(warm, WAIT_MS * 4)).exitCode).toBe(0);
    expect(startsIn(sb.readLog())[1]).toEqual([...PRINT, "--resume", id, "--instruction", ASK]);
    expect(jsonLines(rawText(warm)).find((e) => e["type"] === "result")).toMatchObject({ session_id: id, result: "FAKE-API: the word is zebra." });
    const asked = api().turns(ASK);
    expect(asked.map((c) => c.conversationId)).toEqual([id]);
    expect(said(asked[0])).toEqual([REMEMBER, ASK]);
    expect(sb.readPointer()).toMatchObject({ id, state: "confirmed", history: [], messages: [{}, {}] });

    // The same run again (a retried step): Auggie is not started and nothing reaches the API
    // (exit 4); with --resume-prompt, that message is delivered instead.
    const requests = api().paths.length;
    const repeat = cleanup.driver(sb.sessionpin(run(sb, [], [...PRINT, ASK])));
    expect((await exitOf(repeat, WAIT_MS * 4)).exitCode).toBe(4);
    expect(api().paths).toHaveLength(requests);
    expect(startsIn(sb.readLog())).toHaveLength(2);
    const nudged = cleanup.driver(sb.sessionpin(run(sb, ["--resume-prompt", `${ASK} once more`], [...PRINT, ASK])));
    expect((await exitOf(nudged, WAIT_MS * 4)).exitCode).toBe(0);
    expect(startsIn(sb.readLog())[2]).toEqual([...PRINT, "--resume", id, "--instruction", `${ASK} once more`]);
    const again = api().turns(`${ASK} once more`);
    expect(again.map((c) => c.conversationId)).toEqual([id]);
    expect(said(again[0])).toEqual([REMEMBER, ASK, `${ASK} once more`]);
    expect(sb.readPointer()).toMatchObject({ id, state: "confirmed", history: [], messages: [{}, {}, {}] });

    // Without a terminal (pipes, stdin closed), as a script runs it: the same capture.
    const other = realSandbox(cleanup, auggieEnv(api().url));
    const piped = await runPiped(other, run(other, [], [...PRINT, "remember the word yak"]));
    expect(piped.status).toBe(0);
    const line = jsonLines(piped.stdout).find((e) => e["type"] === "result");
    expect(line).toMatchObject({ result: "FAKE-API: noted the word yak.", session_id: expect.stringMatching(UUID) as unknown });
    const pipedId = String(line?.["session_id"]);
    await waitUntil(() => pointerOf(other)?.["state"] === "confirmed", "the session file to confirm the piped run's ID");
    expect(other.readPointer()).toMatchObject({ agent: "auggie", id: pipedId, cwd: cwdOf(other) });
    expect(api().turns("remember the word yak").map((c) => c.conversationId)).toEqual([pipedId]);
  });

  it("stale ID gone from ~/.augment/sessions (which holds this sandbox's other session): set aside before launch, Auggie is never asked to resume it, the fresh print-mode session gets the message", async () => {
    const sb = auggieSandbox();
    const cold = cleanup.driver(sb.sessionpin(run(sb, [], [...PRINT, REMEMBER])));
    expect((await exitOf(cold, WAIT_MS * 4)).exitCode).toBe(0);
    const first = await waitUntil(() => (pointerOf(sb)?.["state"] === "confirmed" ? String(pointerOf(sb)?.["id"]) : undefined), "the cold session's pin", WAIT_MS * 2);
    // The folder the store check looks in is the one the real CLI wrote the cold session to.
    expect(existsSync(sessionFile(sb, first))).toBe(true);
    const stale = randomUUID();
    writePointerByHand(sb, { agent: "auggie", id: stale, state: "confirmed", source: { rule: "session-file" } });
    const driver = cleanup.driver(sb.sessionpin(run(sb, [], [...PRINT, ASK])));
    expect((await exitOf(driver, WAIT_MS * 4)).exitCode).toBe(0);
    expect(driver.text).not.toContain("No session found matching");
    expect(startsIn(sb.readLog()).flat()).not.toContain(stale);
    expect(startsIn(sb.readLog()).at(-1)).toEqual([...PRINT, ASK]);
    expect(sb.readLog()).toContain(`session ${stale} is gone from auggie's own store (looked in ${sessionsDir(sb)})`);
    expect(sb.asideFiles("gone")).toHaveLength(1);
    expect(sb.asideFiles("rejected")).toEqual([]);
    const fresh = String(jsonLines(rawText(driver)).find((line) => "session_id" in line)?.["session_id"]);
    expect(fresh).toMatch(UUID);
    expect([stale, first]).not.toContain(fresh);
    // The fresh session got the message alone: it never saw the cold run's word.
    const asked = api().turns(ASK);
    expect(asked.map((c) => c.conversationId)).toEqual([fresh]);
    expect(said(asked[0])).toEqual([ASK]);
    await waitUntil(() => pointerOf(sb)?.["id"] === fresh && pointerOf(sb)?.["state"] === "confirmed", "the fresh session's pin", WAIT_MS * 2);
  });

  it("stale ID where sessionpin cannot tell (no ~/.augment/sessions yet): 0.36.0 refuses an unknown session, sessionpin sets the pointer aside and starts a fresh session with the task in the same run", async () => {
    const sb = auggieSandbox();
    const stale = randomUUID();
    writePointerByHand(sb, { agent: "auggie", id: stale, state: "confirmed", source: { rule: "session-file" } });
    expect(existsSync(sessionsDir(sb))).toBe(false);
    const driver = cleanup.driver(sb.sessionpin(run(sb, ["--prompt", REMEMBER], TUI)));
    await answered(driver, "FAKE-API: noted the word zebra.");
    expect(driver.text).toContain(`Error: Failed to resume session: No session found matching '${stale}'.`);
    expect(startsIn(sb.readLog())).toEqual([[...TUI, "--resume", stale], [...TUI, "--instruction", REMEMBER]]);
    expect(sb.readLog()).not.toContain("own store");
    const aside = sb.asideFiles("rejected");
    expect(aside).toHaveLength(1);
    expect(readBeside(sb, aside[0] as string)).toContain(stale);
    const fresh = await waitUntil(() => {
      const id = String(pointerOf(sb)?.["id"]);
      return id !== stale && UUID.test(id) ? id : undefined;
    }, "the fresh session to be pinned", WAIT_MS * 2);
    expect(api().turns(REMEMBER).map((c) => c.conversationId)).toEqual([fresh]);
    expect(sb.readPointer()).toMatchObject({ id: fresh, state: "confirmed", source: { rule: "session-file" } });
    expect((sb.readPointer()["history"] as Array<{ id: string }>).map((h) => h.id)).toEqual([stale]);
    await settled(driver);
    expect(await stop(driver)).toBe(0);
  });

  it("network failure on a warm start keeps the pointer: HTTP 401 on a print-mode follow-up (exit 1, the message not counted as had), a closed port in the TUI", async () => {
    const sb = auggieSandbox();
    const cold = cleanup.driver(sb.sessionpin(run(sb, [], [...PRINT, REMEMBER])));
    expect((await exitOf(cold, WAIT_MS * 4)).exitCode).toBe(0);
    const id = await waitUntil(() => (pointerOf(sb)?.["state"] === "confirmed" ? String(pointerOf(sb)?.["id"]) : undefined), "the pin");

    // The server refuses the token: 0.36.0 exits 1 quickly, within the fallback window, before any turn.
    api().refuseWith = 401;
    const refused = cleanup.driver(sb.sessionpin(run(sb, [], [...PRINT, ASK])));
    expect((await exitOf(refused, WAIT_MS * 4)).exitCode).toBe(1);
    expect(startsIn(sb.readLog())[1]).toEqual([...PRINT, "--resume", id, "--instruction", ASK]);
    expect(refused.text).toContain("Authentication failed: HTTP error: 401 Unauthorized");
    expect(startsIn(sb.readLog())).toHaveLength(2);
    // Kept, and the follow-up is not counted as had: Auggie took no turn with it.
    expect(sb.readPointer()).toMatchObject({ id, state: "confirmed", history: [], messages: [{}] });
    expect(sb.asideFiles("rejected")).toEqual([]);

    // The server unreachable: the TUI resumes the local session and stays up, warning on start.
    const offline = cleanup.driver(sb.sessionpin(run(sb, ["--prompt", REMEMBER], TUI), { env: { ...sb.env, ...auggieEnv(`http://127.0.0.1:${await closedPort()}/`) } }));
    await offline.waitFor(/fetch failed \(ECONNREFUSED/, WAIT_MS * 2);
    await offline.waitFor(/Resumed session/, WAIT_MS * 2);
    expect(startsIn(sb.readLog())[2]).toEqual([...TUI, "--resume", id]);
    await settled(offline);
    expect(await stop(offline)).toBe(0);
    expect(sb.readPointer()).toMatchObject({ id, state: "confirmed", history: [] });
    expect(sb.asideFiles("rejected")).toEqual([]);
  });

  it("server unreachable on a headless follow-up: 0.36.0 gives up (exit 1) within the fallback window, and the pointer is kept", async () => {
    const sb = auggieSandbox();
    // `--retry-timeout 1`: without it 0.36.0 retries a closed port for about 5 minutes.
    const command = [...PRINT, "--retry-timeout", "1", REMEMBER];
    const cold = cleanup.driver(sb.sessionpin(run(sb, [], command)));
    expect((await exitOf(cold, WAIT_MS * 4)).exitCode).toBe(0);
    const id = await waitUntil(() => (pointerOf(sb)?.["state"] === "confirmed" ? String(pointerOf(sb)?.["id"]) : undefined), "the pin");

    const offlineEnv = { ...sb.env, ...auggieEnv(`http://127.0.0.1:${await closedPort()}/`) };
    const started = Date.now();
    const followUp = [...PRINT, "--retry-timeout", "1", ASK];
    const offline = cleanup.driver(sb.sessionpin(run(sb, ["--fallback-window", "60"], followUp), { env: offlineEnv }));
    expect((await exitOf(offline, WAIT_MS * 6)).exitCode).toBe(1);
    expect(Date.now() - started).toBeLessThan(60_000);
    expect(startsIn(sb.readLog())).toEqual([command, [...PRINT, "--retry-timeout", "1", "--resume", id, "--instruction", ASK]]);
    expect(offline.text).toMatch(/Request failed after exceeding retry timeout of 1s: unavailable: fetch failed \(ECONNREFUSED/);
    expect(sb.readPointer()).toMatchObject({ id, state: "confirmed", history: [], messages: [{}] });
    expect(sb.asideFiles("rejected")).toEqual([]);
  });

  it("in a subfolder of a git repository: the session file (naming the subfolder or the git root) pins the ID, TUI and text print mode", async () => {
    const sb = auggieSandbox();
    expect(spawnSync("git", ["init", "-q", sb.dir]).status).toBe(0);
    const sub = join(sb.dir, "sub");
    mkdirSync(sub);
    const roots = (id: string): string[] => [...readFileSync(sessionFile(sb, id), "utf8").matchAll(/"(?:folder_root|current_working_directory)": ("[^"]*")/g)].map((m) => JSON.parse(m[1] ?? "") as string);
    const driver = cleanup.driver(sb.sessionpin(run(sb, ["--prompt", REMEMBER], TUI), { cwd: sub }));
    await answered(driver, "FAKE-API: noted the word zebra.");
    const id = await waitUntil(() => (pointerOf(sb)?.["state"] === "confirmed" ? String(pointerOf(sb)?.["id"]) : undefined), "the session file to pin the ID", WAIT_MS * 2);
    // 0.36.0 names its workspace root: the cwd, or the git root above it (seen in print mode
    // from /tmp/auggie-exp/repo/sub; here, with $HOME inside the repository, it named the cwd).
    const workspaces = [realpathSync(sub), cwdOf(sb)];
    expect(roots(id).length).toBeGreaterThan(0);
    expect(roots(id).every((root) => workspaces.includes(root))).toBe(true);
    expect(sb.readPointer()).toMatchObject({ id, cwd: realpathSync(sub), source: { rule: "session-file" } });
    await settled(driver);
    expect(await stop(driver)).toBe(0);

    // Print mode in text format (no JSON line to read): only the session file can pin the ID.
    rmSync(sb.pointer);
    const print = cleanup.driver(sb.sessionpin(run(sb, [], ["auggie", "--print", "remember the word yak"]), { cwd: sub }));
    expect((await exitOf(print, WAIT_MS * 4)).exitCode).toBe(0);
    const printed = await waitUntil(() => (pointerOf(sb)?.["state"] === "confirmed" ? String(pointerOf(sb)?.["id"]) : undefined), "the session file to pin the print run");
    expect(printed).not.toBe(id);
    expect(roots(printed).every((root) => workspaces.includes(root))).toBe(true);
    expect(sb.readPointer()).toMatchObject({ id: printed, cwd: realpathSync(sub), source: { rule: "session-file" } });
    expect(api().turns("remember the word yak").map((c) => c.conversationId)).toEqual([printed]);
  });

  it("stale ID with the server unreachable, where sessionpin cannot tell (no ~/.augment/sessions yet): 0.36.0 still says 'No session found' (its lookup is local) after its fetch-failed warnings, and that refusal outranks them: set aside, fresh session", async () => {
    const sb = auggieSandbox(`http://127.0.0.1:${await closedPort()}/`);
    const stale = randomUUID();
    writePointerByHand(sb, { agent: "auggie", id: stale, state: "confirmed", source: { rule: "session-file" } });
    expect(existsSync(sessionsDir(sb))).toBe(false);
    // `--retry-timeout 1`: the fresh session meets the closed port too, and gives up in seconds.
    // The message is new to the pinned session: the warm start carries it, and so does the fresh one.
    const command = [...PRINT, "--retry-timeout", "1", ASK];
    const driver = cleanup.driver(sb.sessionpin(run(sb, [], command)));
    expect((await exitOf(driver, WAIT_MS * 4)).exitCode).toBe(1);
    const text = driver.text;
    expect(text.indexOf("fetch failed (ECONNREFUSED")).toBeGreaterThanOrEqual(0);
    expect(text.indexOf("fetch failed (ECONNREFUSED")).toBeLessThan(text.indexOf(`No session found matching '${stale}'`));
    expect(startsIn(sb.readLog())).toEqual([[...PRINT, "--retry-timeout", "1", "--resume", stale, "--instruction", ASK], command]);
    expect(sb.readLog()).not.toContain("own store");
    expect(sb.asideFiles("rejected")).toHaveLength(1);
  });
});

describe(`Auggie ${VERSION} headless conversations, one per key`, () => {
  // Generous for a busy 2-core machine: a call took 2–3.5 s here.
  const BOUND_MS = WAIT_MS * 4;
  const THREAD = ["remember the word zebra", "remember the word yak", "which word?"];
  const ANSWERS = ["FAKE-API: noted the word zebra.", "FAKE-API: noted the word yak.", "FAKE-API: the word is yak."];
  const call = (sb: Sandbox, key: string, message: string) => oneShot(sb, key, ["auggie", "--print", message], { boundMs: BOUND_MS });
  /** The turns whose own (last) text is exactly `message`. */
  const turnsOf = (message: string): AugmentChat[] => api().turns(message).filter((c) => said(c).at(-1) === message);

  it("three `auggie --print MSG` calls on one key continue one session, each request carrying every earlier turn; a repeat sends nothing; two keys stay apart", async () => {
    const sb = auggieSandbox();
    const times: number[] = [];
    for (const [n, message] of THREAD.entries()) {
      const result = await call(sb, "thread-1", message);
      times.push(result.ms);
      expect(result.code, result.stderr).toBe(0);
      expect(result.stdout).toContain(ANSWERS[n]);
      // The fake API's record: one turn with this message, its chat_history every earlier exchange.
      const [turn, ...more] = turnsOf(message);
      expect(more).toEqual([]);
      expect(said(turn)).toEqual(THREAD.slice(0, n + 1));
      expect(turn?.messages.filter((m) => m.role === "assistant").map((m) => textOf(m.content))).toEqual(ANSWERS.slice(0, n));
      expect(turn?.answer).toBe(ANSWERS[n]);
    }
    const first = sessionsByKey(sb).get("thread-1");
    expect(first).toMatchObject({ agent: "auggie", cwd: cwdOf(sb), id: expect.stringMatching(UUID) as unknown, state: "confirmed", messages: 3 });
    const id = String(first?.id);
    // Every turn named the pinned session as its conversation; each follow-up resumed it in
    // print mode, the new message as `--instruction`.
    expect(THREAD.map((message) => turnsOf(message)[0]?.conversationId)).toEqual([id, id, id]);
    expect(startsOf(first)).toEqual([
      ["auggie", "--print", THREAD[0]],
      ["auggie", "--print", "--resume", id, "--instruction", THREAD[1]],
      ["auggie", "--print", "--resume", id, "--instruction", THREAD[2]],
    ]);

    // The third call again (a retried step): Auggie is not started, nothing reaches the API, exit 4.
    const requests = api().paths.length;
    const repeat = await call(sb, "thread-1", THREAD[2] ?? "");
    times.push(repeat.ms);
    expect(repeat.code, repeat.stderr).toBe(4);
    expect(repeat.stderr).toContain("session already had this message");
    expect(repeat.stdout).toBe("");
    expect(api().paths).toHaveLength(requests);
    expect(startsOf(first)).toHaveLength(3);
    expect(sessionsByKey(sb).get("thread-1")).toEqual(first);

    // Another key in the same folder: a conversation of its own, which knows no word.
    const other = await call(sb, "thread-2", "which word?");
    times.push(other.ms);
    expect(other.code, other.stderr).toBe(0);
    const second = sessionsByKey(sb).get("thread-2");
    expect(second).toMatchObject({ agent: "auggie", cwd: cwdOf(sb), id: expect.stringMatching(UUID) as unknown, state: "confirmed", messages: 1 });
    expect(second?.id).not.toBe(id);
    const fresh = turnsOf("which word?").filter((c) => c.conversationId !== id);
    expect(fresh).toHaveLength(1);
    expect(fresh[0]?.conversationId).toBe(second?.id);
    expect(said(fresh[0])).toEqual(["which word?"]);
    expect(fresh[0]?.answer).toBe("FAKE-API: no word was given in this conversation.");
    expect(sessionsByKey(sb).get("thread-1")).toEqual(first);
  }, BOUND_MS * 6);

  it("`auggie --print --instruction MSG --output-format json`: the message as an option is the one-shot message too, and its follow-up keeps the json output", async () => {
    const sb = auggieSandbox();
    const { row, followUp: warm } = await firstThenFollowUp(sb, "thread-json", (message) => oneShot(sb, "thread-json", ["auggie", "--print", "--instruction", message, "--output-format", "json"], { boundMs: BOUND_MS }));
    const id = String(row?.id);
    expect(startsOf(row)).toEqual([
      ["auggie", "--print", "--instruction", THREAD[0], "--output-format", "json"],
      ["auggie", "--print", "--output-format", "json", "--resume", id, "--instruction", THREAD[2]],
    ]);
    expect(jsonLines(warm.stdout).find((e) => e["type"] === "result")).toMatchObject({ session_id: id, result: "FAKE-API: the word is zebra." });
    const [turn, ...more] = turnsOf(THREAD[2] ?? "");
    expect(more).toEqual([]);
    expect(turn?.conversationId).toBe(id);
    expect(said(turn)).toEqual([THREAD[0], THREAD[2]]);
  }, BOUND_MS * 3);
});
