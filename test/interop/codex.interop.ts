/**
 * Real Codex CLI through sessionpin at agentapi's 67x1190, against the fake Responses API
 * (a custom model provider in $HOME/.codex/config.toml). The fake API's record (its `session-id`
 * header and the `input` items) proves which thread a run continued.
 */
import { execFileSync } from "node:child_process";
import { existsSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { PtyDriver } from "../../src/pty/driver.js";
import { Cleanup, exitOf, pointerExists, waitUntil, WAIT_MS, writePointerByHand } from "../e2e/support.js";
import { CLI, type Sandbox } from "../helpers/sandbox.js";
import { userTexts } from "./fake-anthropic.js";
import { FakeOpenAI, messagesOf } from "./fake-openai.js";
import { converse, oneShot, repeatSendsNothing, THREAD } from "./headless.js";
import { codexEnv, jsonLines, onScreen, pinned, rawText, realSandbox, replayOf, run, settled, startsIn, takenRules, UUID, versionOf, writeCodexConfig, fakeApiPerTest } from "./support.js";

const cleanup = new Cleanup();
const api = fakeApiPerTest(cleanup, () => FakeOpenAI.start());

const VERSION = pinned("@openai/codex");
const EXEC = ["codex", "exec", "--json", "--skip-git-repo-check"];
const REMEMBER = "remember the word zebra";
const ASK = "which word?";

function codexSandbox(): Sandbox {
  const sb = realSandbox(cleanup, codexEnv);
  writeCodexConfig(sb, api().url);
  return sb;
}

/** Takes Codex's rollouts away whole: the store check before a warm start then cannot tell, and the launch does. */
function forgetRollouts(sb: Sandbox): void {
  rmSync(join(sb.home, ".codex", "sessions"), { recursive: true, force: true });
}

/** The user texts of a Responses request, without Codex's own `<environment_context>` message. */
const asked = (input: readonly Record<string, unknown>[]): string[] => userTexts(messagesOf(input)).filter((t) => !t.startsWith("<environment_context>"));

/** agentapi's shutdown: SIGINT to sessionpin, which forwards it to the agent's process group. */
async function stop(driver: PtyDriver): Promise<{ exitCode: number; signal: number }> {
  driver.kill("SIGINT");
  return exitOf(driver, WAIT_MS * 2);
}

/** A cold `codex exec --json` run through sessionpin; returns the pinned thread ID. */
async function coldExec(sb: Sandbox): Promise<string> {
  const cold = cleanup.driver(sb.sessionpin(run(sb, [], [...EXEC, REMEMBER])));
  expect((await exitOf(cold, WAIT_MS * 4)).exitCode).toBe(0);
  const started = jsonLines(rawText(cold)).find((e) => e["type"] === "thread.started");
  const id = String(started?.["thread_id"]);
  expect(id).toMatch(UUID);
  await waitUntil(() => sb.readPointer()["state"] === "confirmed", "the rollout to confirm the thread");
  return id;
}

describe(`Codex ${VERSION}`, () => {
  it("is the pinned version, found on PATH", () => {
    const sb = codexSandbox();
    expect(versionOf(sb, "codex")).toContain(`codex-cli ${VERSION}`);
  });

  it("pins thread.started's thread_id of `codex exec --json`, confirmed by the rollout", async () => {
    const sb = codexSandbox();
    const cast = join(sb.dir, "exec.cast");
    const cold = cleanup.driver(sb.sessionpin(run(sb, ["--record", cast], [...EXEC, REMEMBER])));
    expect((await exitOf(cold, WAIT_MS * 4)).exitCode).toBe(0);
    const events = jsonLines(rawText(cold));
    expect(events[0]).toEqual({ type: "thread.started", thread_id: expect.stringMatching(UUID) as unknown });
    const id = String(events[0]?.["thread_id"]);
    expect(events.map((e) => e["type"])).toEqual(expect.arrayContaining(["turn.started", "item.completed", "turn.completed"]));
    expect(events.find((e) => (e["item"] as { type?: string } | undefined)?.type === "agent_message")?.["item"]).toMatchObject({ text: "FAKE-API: noted the word zebra." });

    expect(startsIn(sb.readLog())).toEqual([[...EXEC, REMEMBER]]);
    await waitUntil(() => sb.readPointer()["state"] === "confirmed", "the rollout to confirm the thread");
    expect(sb.readPointer()).toMatchObject({ agent: "codex", id, source: { rule: "rollout" }, history: [] });
    // Line 2: in the PTY, Codex's stderr warning about PATH aliases under /tmp comes first.
    expect(sb.readLog()).toMatch(new RegExp(`captured provisional ${id} \\(rule thread-started, line \\d+\\)`));
    const first = api().conversation(REMEMBER);
    expect(first).toHaveLength(1);
    expect(first[0]?.headers["session-id"]).toBe(id);
    expect(first[0]?.headers["thread-id"]).toBe(id);
    // The real output alone, replayed offline, gives the same thread.
    expect(replayOf(sb, cast)).toMatchObject({ status: 0, result: { agent: "codex", id, state: "provisional", rule: "thread-started" } });
  });

  it("warm exec start: the new message in argv continues the same thread; the same call again sends nothing, --resume-prompt goes instead", async () => {
    const sb = codexSandbox();
    const id = await coldExec(sb);

    // A follow-up: sessionpin resumes the pinned thread in exec mode and delivers the argv message.
    // Through sessionpin the real CLI continues the same thread (same thread_id, same session-id
    // header, earlier turns in `input`), so the fake API "remembers" the word.
    const warm = cleanup.driver(sb.sessionpin(run(sb, [], [...EXEC, ASK])));
    expect((await exitOf(warm, WAIT_MS * 4)).exitCode).toBe(0);
    expect(startsIn(sb.readLog()).at(-1)).toEqual([...EXEC, "resume", id, ASK]);
    expect(warm.text).not.toContain("No prompt provided");
    expect(jsonLines(rawText(warm))[0]).toEqual({ type: "thread.started", thread_id: id });
    const resumed = api().conversation(ASK);
    expect(resumed).toHaveLength(1);
    expect(resumed[0]?.headers["session-id"]).toBe(id);
    expect(asked(resumed[0]?.input ?? [])).toEqual([REMEMBER, ASK]);
    expect(resumed[0]?.answer).toBe("FAKE-API: the word is zebra.");
    expect(sb.readPointer()).toMatchObject({ id, state: "confirmed", history: [], messages: [{}, {}] });

    // The same call again (a retried CI step): Codex is not started, nothing reaches the API, exit 4.
    const requests = api().requests.length;
    const starts = startsIn(sb.readLog()).length;
    const repeat = cleanup.driver(sb.sessionpin(run(sb, [], [...EXEC, ASK])));
    expect((await exitOf(repeat, WAIT_MS * 4)).exitCode).toBe(4);
    expect(startsIn(sb.readLog())).toHaveLength(starts);
    expect(api().requests).toHaveLength(requests);
    expect(sb.readPointer()).toMatchObject({ id, messages: [{}, {}] });

    // With --resume-prompt, that message is delivered instead, to the same thread.
    const again = "which word? once more";
    const nudged = cleanup.driver(sb.sessionpin(run(sb, ["--resume-prompt", again], [...EXEC, ASK])));
    expect((await exitOf(nudged, WAIT_MS * 4)).exitCode).toBe(0);
    expect(startsIn(sb.readLog()).at(-1)).toEqual([...EXEC, "resume", id, again]);
    const third = api().conversation(again);
    expect(third.map((r) => r.headers["session-id"])).toEqual([id]);
    expect(asked(third[0]?.input ?? [])).toEqual([REMEMBER, ASK, again]);
  });

  it("warm exec start the model API refuses (401): Codex fails after reporting the resumed thread, the pointer is kept, and the same call once the API is back continues the thread", async () => {
    const sb = codexSandbox();
    const id = await coldExec(sb);
    const pointer = sb.readPointer();
    api().failWith = 401;
    const refused = cleanup.driver(sb.sessionpin(run(sb, [], [...EXEC, ASK])));
    const { exitCode } = await exitOf(refused, WAIT_MS * 4);
    expect(exitCode).not.toBe(0);
    expect(jsonLines(rawText(refused))[0]).toEqual({ type: "thread.started", thread_id: id });
    expect(startsIn(sb.readLog())).toHaveLength(2);
    expect(sb.readLog()).not.toContain("rejected");
    expect(sb.readPointer()).toEqual(pointer);
    expect(sb.asideFiles("rejected")).toEqual([]);

    api().failWith = undefined;
    const again = cleanup.driver(sb.sessionpin(run(sb, [], [...EXEC, ASK])));
    expect((await exitOf(again, WAIT_MS * 4)).exitCode).toBe(0);
    expect(startsIn(sb.readLog()).at(-1)).toEqual([...EXEC, "resume", id, ASK]);
    const answered = api().conversation(ASK).at(-1);
    expect(answered?.headers["session-id"]).toBe(id);
    // Codex keeps the refused turn's message in the thread: it comes again before the new one.
    expect(asked(answered?.input ?? [])).toEqual([REMEMBER, ASK, ASK]);
    expect(answered?.answer).toBe("FAKE-API: the word is zebra.");
  });

  it("stale ID, exec: a thread with no rollout of any date is set aside before launch; the fresh thread gets the message, Codex is never asked to resume it", async () => {
    const sb = codexSandbox();
    await coldExec(sb);
    const stale = "01a20562-0000-7181-8578-2b6ce586163b";
    writeFileSync(sb.pointer, `${JSON.stringify({ ...sb.readPointer(), id: stale }, null, 2)}\n`, { mode: 0o600 });
    const warm = cleanup.driver(sb.sessionpin(run(sb, [], [...EXEC, ASK])));
    expect((await exitOf(warm, WAIT_MS * 4)).exitCode).toBe(0);
    expect(warm.text).not.toContain("no rollout found");
    expect(startsIn(sb.readLog()).flat()).not.toContain(stale);
    expect(startsIn(sb.readLog()).at(-1)).toEqual([...EXEC, ASK]);
    expect(sb.readLog()).toContain(`session ${stale} is gone from codex's own store`);
    expect(sb.asideFiles("gone")).toHaveLength(1);
    const got = api().conversation(ASK);
    expect(got.map((r) => r.headers["session-id"])).toEqual([sb.readPointer()["id"]]);
    expect(asked(got[0]?.input ?? [])).toEqual([ASK]);
  });

  it("stale ID, exec, where sessionpin cannot tell (no rollouts at all): the follow-up reaches the real CLI, which refuses the thread; sessionpin falls back to a fresh one with the same message", async () => {
    const sb = codexSandbox();
    await coldExec(sb);
    forgetRollouts(sb);
    const stale = "01a20562-0000-7181-8578-2b6ce586163b";
    writeFileSync(sb.pointer, `${JSON.stringify({ ...sb.readPointer(), id: stale }, null, 2)}\n`, { mode: 0o600 });

    // The real CLI with the warm argv: the rejection text of the plugin.
    const direct = cleanup.driver(sb.direct([...EXEC, "resume", stale, ASK]));
    expect((await exitOf(direct, WAIT_MS * 4)).exitCode).toBe(1);
    expect(direct.text).toContain(`Error: thread/resume: thread/resume failed: no rollout found for thread id ${stale} (code -32600)`);

    // Through sessionpin: the warm start carries the message, so Codex looks the thread up and
    // refuses it (before 3512650 it stopped at "No prompt provided" and the stale pointer stayed).
    const warm = cleanup.driver(sb.sessionpin(run(sb, [], [...EXEC, ASK])));
    expect((await exitOf(warm, WAIT_MS * 4)).exitCode).toBe(0);
    expect(warm.text).toContain(`no rollout found for thread id ${stale}`);
    expect(warm.text).not.toContain("No prompt provided");
    const starts = startsIn(sb.readLog());
    expect(starts.at(-2)).toEqual([...EXEC, "resume", stale, ASK]);
    expect(starts.at(-1)).toEqual([...EXEC, ASK]);
    expect(sb.asideFiles("rejected")).toHaveLength(1);
    const fresh = sb.readPointer();
    expect(fresh["id"]).not.toBe(stale);
    expect(fresh["history"]).toEqual([expect.objectContaining({ id: stale })]);
    // The fresh thread got the message once, without the stale thread's turns.
    const got = api().conversation(ASK);
    expect(got.map((r) => r.headers["session-id"])).toEqual([fresh["id"]]);
    expect(asked(got[0]?.input ?? [])).toEqual([ASK]);
  });

  it("stale ID, exec, a repeated message with --resume-prompt: the resume prompt meets the refusal and the fallback runs the command as given", async () => {
    const sb = codexSandbox();
    await coldExec(sb);
    forgetRollouts(sb);
    const stale = "01a20562-0000-7181-8578-2b6ce586163b";
    // The session had REMEMBER (the cold run's turn): the same call is a repeat, so the resume prompt is delivered.
    writeFileSync(sb.pointer, `${JSON.stringify({ ...sb.readPointer(), id: stale }, null, 2)}\n`, { mode: 0o600 });
    const warm = cleanup.driver(sb.sessionpin(run(sb, ["--resume-prompt", ASK], [...EXEC, REMEMBER])));
    expect((await exitOf(warm, WAIT_MS * 4)).exitCode).toBe(0);
    expect(warm.text).toContain(`no rollout found for thread id ${stale}`);
    const starts = startsIn(sb.readLog());
    expect(starts.at(-2)).toEqual([...EXEC, "resume", stale, ASK]);
    expect(starts.at(-1)).toEqual([...EXEC, REMEMBER]);
    expect(sb.asideFiles("rejected")).toHaveLength(1);
    expect(sb.readPointer()["id"]).not.toBe(stale);
    expect(api().conversation(ASK)).toEqual([]);
  });

  it("interactive: pins the thread from its rollout, resumes it across a restart with `codex resume <id>`; the real /quit goodbye is read by the exit-hint rule", async () => {
    const sb = codexSandbox();
    const cold = cleanup.driver(sb.sessionpin(run(sb, ["--prompt", REMEMBER], ["codex"])));
    await cold.waitFor(onScreen("FAKE-API: noted the word zebra."), WAIT_MS * 2);
    // The TUI shows no ID while it runs: its rollout file in $HOME/.codex/sessions/… names it.
    const id = await waitUntil(() => (pointerExists(sb) && sb.readPointer()["state"] === "confirmed" ? String(sb.readPointer()["id"]) : undefined), "the rollout to pin the thread");
    expect(sb.readPointer()).toMatchObject({ agent: "codex", id, source: { rule: "rollout" }, history: [] });
    expect(startsIn(sb.readLog())).toEqual([["codex", REMEMBER]]);
    expect(api().conversation(REMEMBER).map((r) => r.headers["session-id"])).toEqual([id]);
    await settled(cold);
    // agentapi's shutdown; 0.169 dies of the SIGINT (so sessionpin exits 130) without a goodbye.
    expect((await stop(cold)).exitCode).toBe(130);

    const cast = join(sb.dir, "warm.cast");
    const warm = cleanup.driver(sb.sessionpin(run(sb, ["--prompt", REMEMBER, "--record", cast], ["codex"])));
    await waitUntil(() => startsIn(sb.readLog()).length === 2, "the warm start");
    expect(startsIn(sb.readLog()).at(-1)).toEqual(["codex", "resume", id]);
    // The resumed thread shows its earlier answer; the prompt is not sent again.
    await warm.waitFor(onScreen("FAKE-API: noted the word zebra."), WAIT_MS * 2);
    await settled(warm);
    warm.sendMessage(ASK);
    await warm.waitFor(onScreen("FAKE-API: the word is zebra."), WAIT_MS * 2);
    const resumed = api().conversation(ASK);
    expect(resumed.map((r) => r.headers["session-id"])).toEqual([id]);
    expect(asked(resumed[0]?.input ?? [])).toEqual([REMEMBER, ASK]);
    expect(api().requests.filter((r) => asked(r.input).at(-1) === REMEMBER)).toHaveLength(1);
    await settled(warm);
    // This time the user quits: 0.169's goodbye puts the command on its own indented row after
    // "run:"; the exit-hint rule reads it across the two rows, so a recording alone pins it.
    warm.sendMessage("/quit");
    expect((await exitOf(warm, WAIT_MS * 2)).exitCode).toBe(0);
    expect(rawText(warm)).toContain(`To continue this session, run:\n  \x1b[36mcodex resume ${id}\x1b[39m\n`);
    expect(warm.text).toMatch(new RegExp(`Token usage: total=\\d+ input=\\d+ output=\\d+\\nTo continue this session, run:\\n  codex resume ${id}$`, "m"));
    expect(replayOf(sb, cast)).toMatchObject({ status: 0, result: { agent: "codex", id, state: "confirmed", rule: "exit-hint" } });
    expect(takenRules(sb, cast)).toEqual(["codex/exit-hint"]);
    expect(sb.readPointer()).toMatchObject({ id, state: "confirmed", history: [] });
  });

  it("interactive, stale ID where sessionpin cannot tell (no rollouts yet): the real TUI refuses it and sessionpin falls back to a fresh thread with the prompt", async () => {
    const sb = codexSandbox();
    const stale = "01a20562-0000-7181-8578-2b6ce586163b";
    writePointerByHand(sb, { agent: "codex", id: stale, source: { rule: "rollout" } });
    expect(existsSync(join(sb.home, ".codex", "sessions"))).toBe(false);
    const cast = join(sb.dir, "fallback.cast");
    const driver = cleanup.driver(sb.sessionpin(run(sb, ["--prompt", REMEMBER, "--record", cast], ["codex"])));
    await driver.waitFor(onScreen("FAKE-API: noted the word zebra."), WAIT_MS * 3);
    expect(driver.text).toContain(`ERROR: No saved session found with ID ${stale}. Run \`codex resume\` without an ID to choose from existing sessions.`);
    const [resumeArgv, freshArgv] = startsIn(sb.readLog());
    expect(resumeArgv).toEqual(["codex", "resume", stale]);
    expect(freshArgv).toEqual(["codex", REMEMBER]);
    expect(sb.readLog()).toContain(`stored ID ${stale} rejected: codex printed "ERROR: No saved session found with ID ${stale}.`);
    expect(sb.readLog()).not.toContain("own store");
    expect(sb.asideFiles("rejected")).toHaveLength(1);
    const fresh = await waitUntil(() => (pointerExists(sb) && sb.readPointer()["id"] !== stale && sb.readPointer()["state"] === "confirmed" ? String(sb.readPointer()["id"]) : undefined), "the fresh thread's pin");
    expect(fresh).toMatch(UUID);
    expect(api().conversation(REMEMBER).map((r) => r.headers["session-id"])).toEqual([fresh]);
    expect((sb.readPointer()["history"] as Array<{ id: string }>).map((h) => h.id)).toEqual([stale]);
    // The /status card of 0.169 at 67 columns (no box drawn) and the plugin's status-session rule.
    await settled(driver);
    driver.sendMessage("/status");
    // (Drawn with cursor moves: the plain text runs the rows together.)
    await driver.waitFor(new RegExp(`Session: {13}${fresh}`), WAIT_MS);
    await settled(driver);
    expect((await stop(driver)).exitCode).toBe(130);
    expect(takenRules(sb, cast)).toEqual(["codex/status-session"]);
  });
});

describe(`Codex ${VERSION} headless conversations, one per key`, () => {
  // A loaded 2-core machine: a cold `codex exec` takes 2–5 s here, more while other CLIs run.
  const BOUND_MS = WAIT_MS * 4;
  const call = (sb: Sandbox, key: string, message: string) => oneShot(sb, key, [...EXEC, message], { boundMs: BOUND_MS });
  /** The conversation's own requests (not the title side call) whose newest user turn is `message`. */
  const turnsAsking = (message: string) => api().requests.filter((r) => r.path === "/v1/responses" && asked(r.input).at(-1) === message);

  it("three `codex exec` calls on one key continue one thread, each request carrying every earlier turn; a repeat sends nothing; two keys stay apart", async () => {
    const sb = codexSandbox();
    const thread = THREAD;
    const times = await converse((message) => call(sb, "thread-1", message), (n, message) => {
      const [request, ...more] = turnsAsking(message);
      expect(more).toEqual([]);
      expect(asked(request?.input ?? [])).toEqual(thread.slice(0, n + 1));
    });
    expect(turnsAsking("which word?")[0]?.answer).toBe("FAKE-API: the word is yak.");
    // One thread: Codex names it in the session-id header of every request.
    const threads = new Set(thread.map((message) => turnsAsking(message)[0]?.headers["session-id"]));
    expect(threads.size).toBe(1);
    expect([...threads][0]).toMatch(UUID);

    times.push((await repeatSendsNothing(() => call(sb, "thread-1", "which word?"), () => api().requests.length)).ms);

    const other = await call(sb, "thread-2", "which word?");
    times.push(other.ms);
    expect(other.code, other.stderr).toBe(0);
    const fresh = turnsAsking("which word?").filter((r) => !threads.has(r.headers["session-id"]));
    expect(fresh).toHaveLength(1);
    expect(asked(fresh[0]?.input ?? [])).toEqual(["which word?"]);
    expect(fresh[0]?.answer).toBe("FAKE-API: no word was given in this conversation.");
    console.log(`codex one-shot calls (ms): ${times.join(", ")}`);
  });

  it("two keys whose first calls overlap in one folder keep their own threads: the other run's new rollout is not taken for this one's", async () => {
    const sb = codexSandbox();
    // Each answer waits, so both runs are in flight, and each sees the other's rollout appear.
    api().delayMs = 3000;
    const alpha = call(sb, "thread-a", "remember the word alpha");
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const bravo = call(sb, "thread-b", "remember the word bravo");
    expect([(await alpha).code, (await bravo).code]).toEqual([0, 0]);
    api().delayMs = 0;
    const threadOf = (message: string): string | undefined => turnsAsking(message)[0]?.headers["session-id"] as string | undefined;
    expect(threadOf("remember the word alpha")).not.toBe(threadOf("remember the word bravo"));
    const listed = JSON.parse(execFileSync(process.execPath, [CLI, "sessions", "--json"], { cwd: sb.dir, env: sb.env, encoding: "utf8" })) as Array<{ key: string; id: string }>;
    expect(Object.fromEntries(listed.map((s) => [s.key, s.id]))).toEqual({ "thread-a": threadOf("remember the word alpha"), "thread-b": threadOf("remember the word bravo") });
    expect((await call(sb, "thread-a", "which word?")).code).toBe(0);
    expect(turnsAsking("which word?").map((r) => r.answer)).toEqual(["FAKE-API: the word is alpha."]);
  });
});
