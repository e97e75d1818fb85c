/**
 * Real GitHub Copilot CLI (`@github/copilot`) through `sessionpin run`, offline: its
 * bring-your-own-key provider points at the shared fake Chat Completions API on 127.0.0.1
 * (copilot-support.ts). What each test proves is read from what the fake API received: a resumed
 * session sends its earlier turns again.
 *
 * Interactive runs are agentapi's: a 67x1190 PTY with TERM=vt100, messages typed as `x\b`, a
 * bracketed paste and `\r` once the screen is still, and SIGINT to sessionpin to stop.
 */
import { randomUUID } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { PtyDriver } from "../../src/pty/driver.js";
import { Cleanup, cli, cwdOf, exitOf, sleep, waitUntil, WAIT_MS, writePointerByHand } from "../e2e/support.js";
import type { Sandbox } from "../helpers/sandbox.js";
import { FakeChat } from "./fake-chat.js";
import { oneShot, repeatSendsNothing, type OneShotResult } from "./headless.js";
import { closedPort, fakeApiPerTest, jsonLines, pinned, rawText, realSandbox, replayOf, run, settled, startsIn, UUID, versionOf } from "./support.js";
import { askedWith, assistantTexts, copilotEnv, eventsFile, sessionState, trustCwd, typedTexts } from "./copilot-support.js";

const cleanup = new Cleanup();
const api = fakeApiPerTest(cleanup, () => FakeChat.start());

const VERSION = pinned("@github/copilot");
const REMEMBER = "remember the word zebra";
const NOTED = "FAKE-API: noted the word zebra.";
const ASK = "which word?";
const TOLD = "FAKE-API: the word is zebra.";
/** The TUI's status row under its input box: it is up (the screen draws words with cursor moves, so answers are read from the API). */
const READY = /Interactive · /;
const ONE_SHOT = ["-p", REMEMBER, "--output-format", "json", "--allow-all-tools"];

function copilotSandbox(env: NodeJS.ProcessEnv = {}): Sandbox {
  const sb = realSandbox(cleanup, { ...copilotEnv(api().url), ...env });
  trustCwd(sb);
  return sb;
}

/** agentapi's shutdown: SIGINT to sessionpin (it forwards it to Copilot's process group). */
async function stop(driver: PtyDriver): Promise<void> {
  driver.kill("SIGINT");
  await exitOf(driver, WAIT_MS * 2);
  // The PTY's last bytes (Copilot's exit table) can arrive after the exit is reported.
  await sleep(500);
}

/**
 * Whether Copilot printed its exit table for `id`, in the shape the exit-hint rule reads. 1.0.102
 * dies of the SIGINT about 200 ms after it arrives; on this loaded 2-core machine it sometimes
 * printed nothing in that time (no table, not even the alternate screen left), which is why the
 * pin comes from session-state and never depends on the table.
 */
function exitTable(driver: PtyDriver, id: string): boolean {
  if (!driver.text.includes("--resume=")) return false;
  expect(driver.text).toMatch(new RegExp(`^ +(?:▔▔▔▔|█ ▘▝ █) +Resume {5}copilot\\n {11}--resume=${id}$`, "m"));
  return true;
}

/** The fake API answered a request whose last typed turn is `text` with `answer`. */
async function answered(driver: PtyDriver, sb: Sandbox, text: string, answer: string): Promise<void> {
  try {
    await waitUntil(() => askedWith(api(), text).some((r) => r.answer === answer), `the fake API to answer ${JSON.stringify(text)}`, WAIT_MS * 4);
  } catch (error) {
    throw new Error(`${String(error)}\nlog:\n${sb.readLog()}\nscreen:\n${driver.text}`);
  }
}

/**
 * `sessionpin run` for the TUI: the prompt is typed once the screen was quiet for 2 s, as agentapi
 * does (Copilot 1.0.102 draws its start screen in steps; a shorter pause can type into it early).
 */
const runTui = (sb: Sandbox, options: readonly string[], command: readonly string[]): string[] => run(sb, [...options, "--prompt-quiet", "2"], command);

/**
 * The first line of the session's events.jsonl (Copilot's session.start), once it is written
 * whole: the file is not always there with the folder, and not always with its first line.
 */
async function sessionStart(sb: Sandbox, id: string): Promise<Record<string, unknown>> {
  const firstLine = (): string | undefined => {
    const text = existsSync(eventsFile(sb, id)) ? readFileSync(eventsFile(sb, id), "utf8") : "";
    return text.includes("\n") ? text.slice(0, text.indexOf("\n")) : undefined;
  };
  return JSON.parse(await waitUntil(firstLine, "events.jsonl's first line")) as Record<string, unknown>;
}

describe(`GitHub Copilot CLI ${VERSION}, interactive, agentapi-like`, () => {
  it("pins the session named up front, confirms it from session-state, resumes it after a restart with the earlier turns", async () => {
    const sb = copilotSandbox();
    expect(versionOf(sb, "copilot")).toContain(VERSION);
    const cast = join(sb.dir, "cold.cast");
    const cold = cleanup.driver(sb.sessionpin(runTui(sb, ["--prompt", REMEMBER, "--record", cast], ["copilot"])));
    await answered(cold, sb, REMEMBER, NOTED);
    const id = String(sb.readPointer()["id"]);
    expect(id).toMatch(UUID);
    expect(startsIn(sb.readLog())).toEqual([["copilot", `--session-id=${id}`]]);
    await waitUntil(() => sb.readPointer()["state"] === "confirmed", "session-state to confirm the ID");
    expect(sb.readPointer()).toMatchObject({ agent: "copilot", id, cwd: cwdOf(sb), source: { rule: "session-state" }, history: [] });
    // The store `belongs` reads: its first line names the session and this cwd.
    expect(await sessionStart(sb, id)).toMatchObject({ type: "session.start", data: { sessionId: id, copilotVersion: VERSION, context: { cwd: cwdOf(sb) } } });
    expect(askedWith(api(), REMEMBER)).toHaveLength(1);

    await settled(cold);
    await stop(cold);
    // The exit table, at 67 columns wrapped after `copilot` (the logo's last row beside it), when
    // Copilot printed it (see exitTable); replayed offline, the screen alone then gives the ID.
    if (exitTable(cold, id)) expect(replayOf(sb, cast)).toMatchObject({ status: 0, result: { agent: "copilot", id, rule: "exit-hint" } });

    // Restart: `copilot --resume=<id>`, without the prompt; the next message, typed the agentapi
    // way once the screen is still, reaches the API with the first conversation's turns.
    const warm = cleanup.driver(sb.sessionpin(runTui(sb, ["--prompt", REMEMBER], ["copilot"])));
    await waitUntil(() => startsIn(sb.readLog()).length === 2, "the warm start");
    expect(startsIn(sb.readLog())[1]).toEqual(["copilot", `--resume=${id}`]);
    await warm.waitFor(READY, WAIT_MS * 2);
    await settled(warm);
    await sleep(1_000);
    expect(api().completions()).toHaveLength(1);
    warm.sendMessage(ASK);
    await answered(warm, sb, ASK, TOLD);
    const asked = askedWith(api(), ASK);
    expect(asked).toHaveLength(1);
    expect(typedTexts(asked[0]?.messages ?? [])).toEqual([REMEMBER, ASK]);
    expect(assistantTexts(asked[0]?.messages ?? [])).toEqual([NOTED]);
    await settled(warm);
    await stop(warm);
    exitTable(warm, id);
    expect(sb.readPointer()).toMatchObject({ id, state: "confirmed", history: [] });
    expect(sb.asideFiles("rejected")).toEqual([]);
  }, 120_000);
});

describe(`GitHub Copilot CLI ${VERSION}, interactive, without an ID named up front`, () => {
  it("`--name` keeps sessionpin from naming the session: the store (session-state, cwd in events.jsonl) captures it while Copilot runs", async () => {
    const sb = copilotSandbox();
    const driver = cleanup.driver(sb.sessionpin(runTui(sb, ["--prompt", REMEMBER], ["copilot", "--name", "zebra-notes"])));
    await answered(driver, sb, REMEMBER, NOTED);
    expect(startsIn(sb.readLog())).toEqual([["copilot", "--name", "zebra-notes"]]);
    // Pinned while Copilot still runs: neither the exit table nor a JSON line gave it.
    const id = await waitUntil(() => (existsSync(sb.pointer) ? String(sb.readPointer()["id"]) : undefined), "the store to capture the session", WAIT_MS * 2);
    expect(id).toMatch(UUID);
    expect(sb.readPointer()).toMatchObject({ agent: "copilot", id, state: "confirmed", source: { rule: "session-state" } });
    expect(await sessionStart(sb, id)).toMatchObject({ data: { sessionId: id, context: { cwd: cwdOf(sb) } } });
    expect(sb.readLog()).toContain(`captured confirmed ${id} (rule session-state)`);
    await settled(driver);
    await stop(driver);
    exitTable(driver, id);
    expect(sb.readPointer()).toMatchObject({ id, history: [] });
  }, 120_000);
});

describe(`GitHub Copilot CLI ${VERSION}, one-shot (-p --output-format json)`, () => {
  it("pins the ID named up front, confirmed by the result line; resumes it headless (`-p MSG --resume=<id>`) with --resume-prompt", async () => {
    const sb = copilotSandbox();
    const cast = join(sb.dir, "print.cast");
    const first = cleanup.driver(sb.sessionpin(run(sb, ["--record", cast], ["copilot", ...ONE_SHOT])));
    expect((await exitOf(first, WAIT_MS * 4)).exitCode).toBe(0);
    const id = String(sb.readPointer()["id"]);
    expect(id).toMatch(UUID);
    expect(startsIn(sb.readLog())).toEqual([["copilot", ...ONE_SHOT, `--session-id=${id}`]]);
    const lines = jsonLines(rawText(first));
    // 1.0.102 prints no session.start on stdout; its last line, `result`, names the session.
    expect(lines.filter((line) => line["type"] === "session.start")).toEqual([]);
    expect(lines.at(-1)).toMatchObject({ type: "result", sessionId: id, exitCode: 0 });
    expect(sb.readPointer()).toMatchObject({ agent: "copilot", id, state: "confirmed", cwd: cwdOf(sb) });
    expect(replayOf(sb, cast)).toMatchObject({ status: 0, result: { agent: "copilot", id, rule: "result" } });
    expect(askedWith(api(), REMEMBER)).toHaveLength(1);

    const second = cleanup.driver(sb.sessionpin(run(sb, ["--resume-prompt", ASK], ["copilot", ...ONE_SHOT])));
    expect((await exitOf(second, WAIT_MS * 4)).exitCode).toBe(0);
    expect(startsIn(sb.readLog())[1]).toEqual(["copilot", "--output-format", "json", "--allow-all-tools", `--resume=${id}`, "-p", ASK]);
    const asked = askedWith(api(), ASK);
    expect(asked).toHaveLength(1);
    expect(typedTexts(asked[0]?.messages ?? [])).toEqual([REMEMBER, ASK]);
    expect(asked[0]?.answer).toBe(TOLD);
    expect(jsonLines(rawText(second)).at(-1)).toMatchObject({ type: "result", sessionId: id });
    expect(sb.readPointer()).toMatchObject({ id, state: "confirmed", history: [] });
  }, 120_000);
});

describe(`GitHub Copilot CLI ${VERSION}, a stored ID it does not know`, () => {
  it("interactive, where sessionpin cannot tell (no session-state folder yet): `Error: No session, task, or name matched` sets the pointer aside, and the same run starts a fresh session with the prompt", async () => {
    const sb = copilotSandbox();
    const stale = randomUUID();
    writePointerByHand(sb, { agent: "copilot", id: stale, source: { rule: "session-state" } });
    expect(existsSync(sessionState(sb))).toBe(false);
    const driver = cleanup.driver(sb.sessionpin(runTui(sb, ["--prompt", REMEMBER], ["copilot"])));
    await answered(driver, sb, REMEMBER, NOTED);
    const fresh = String(sb.readPointer()["id"]);
    expect(fresh).toMatch(UUID);
    expect(fresh).not.toBe(stale);
    expect(startsIn(sb.readLog())).toEqual([["copilot", `--resume=${stale}`], ["copilot", `--session-id=${fresh}`]]);
    expect(driver.text).toContain(`Error: No session, task, or name matched '${stale}'.`);
    expect(sb.asideFiles("rejected")).toHaveLength(1);
    expect(sb.readLog()).toContain(`copilot printed "Error: No session, task, or name matched '${stale}'.`);
    expect(sb.readLog()).not.toContain("own store");
    const asked = askedWith(api(), REMEMBER);
    expect(asked).toHaveLength(1);
    expect(typedTexts(asked[0]?.messages ?? [])).toEqual([REMEMBER]);
    await waitUntil(() => sb.readPointer()["state"] === "confirmed", "session-state to confirm the fresh ID");
    await settled(driver);
    await stop(driver);
  }, 120_000);

  it("one-shot, a session gone from session-state (which holds this sandbox's other session): set aside before launch, Copilot is never asked to resume it, the fresh session gets the command's own prompt", async () => {
    const sb = copilotSandbox();
    const cold = cleanup.driver(sb.sessionpin(run(sb, [], ["copilot", ...ONE_SHOT])));
    expect((await exitOf(cold, WAIT_MS * 4)).exitCode).toBe(0);
    const first = String(sb.readPointer()["id"]);
    // The folder the store check looks in is the one the real CLI wrote the cold session to.
    expect(existsSync(eventsFile(sb, first))).toBe(true);
    const stale = randomUUID();
    writePointerByHand(sb, { agent: "copilot", id: stale, source: { rule: "result" } });
    const command = ["copilot", "-p", ASK, "--output-format", "json", "--allow-all-tools"];
    const driver = cleanup.driver(sb.sessionpin(run(sb, [], command)));
    expect((await exitOf(driver, WAIT_MS * 4)).exitCode).toBe(0);
    expect(driver.text).not.toContain("No session, task, or name matched");
    expect(startsIn(sb.readLog()).flat().join(" ")).not.toContain(stale);
    expect(sb.readLog()).toContain(`session ${stale} is gone from copilot's own store (looked in ${sessionState(sb)})`);
    expect(sb.asideFiles("gone")).toHaveLength(1);
    expect(sb.asideFiles("rejected")).toEqual([]);
    const fresh = String(sb.readPointer()["id"]);
    expect(fresh).toMatch(UUID);
    expect([stale, first]).not.toContain(fresh);
    expect(startsIn(sb.readLog()).at(-1)).toEqual([...command, `--session-id=${fresh}`]);
    // The fresh session got the message alone: it never saw the cold run's word.
    const asked = askedWith(api(), ASK);
    expect(asked).toHaveLength(1);
    expect(typedTexts(asked[0]?.messages ?? [])).toEqual([ASK]);
    await waitUntil(() => sb.readPointer()["state"] === "confirmed", "session-state to confirm the fresh ID");
  }, 120_000);

  it("one-shot, where sessionpin cannot tell (no session-state folder yet): the warm `-p MSG --resume=<stale>` is refused, and the same run starts the command's own prompt fresh", async () => {
    const sb = copilotSandbox();
    const stale = randomUUID();
    writePointerByHand(sb, { agent: "copilot", id: stale, source: { rule: "result" } });
    expect(existsSync(sessionState(sb))).toBe(false);
    // The pointer knows no message, so the command's own is new to the session: the warm start
    // delivers it (a follow-up), not the resume prompt.
    const driver = cleanup.driver(sb.sessionpin(run(sb, ["--resume-prompt", ASK], ["copilot", ...ONE_SHOT])));
    expect((await exitOf(driver, WAIT_MS * 4)).exitCode).toBe(0);
    const fresh = String(sb.readPointer()["id"]);
    expect(fresh).not.toBe(stale);
    expect(startsIn(sb.readLog())).toEqual([
      ["copilot", "--output-format", "json", "--allow-all-tools", `--resume=${stale}`, "-p", REMEMBER],
      ["copilot", ...ONE_SHOT, `--session-id=${fresh}`],
    ]);
    expect(sb.asideFiles("rejected")).toHaveLength(1);
    expect(driver.text).toContain(`Error: No session, task, or name matched '${stale}'.`);
    expect(sb.readLog()).not.toContain("own store");
    expect(askedWith(api(), ASK)).toEqual([]);
    expect(askedWith(api(), REMEMBER)).toHaveLength(1);
    expect(sb.readPointer()).toMatchObject({ id: fresh, state: "confirmed" });
  }, 120_000);
});

describe(`GitHub Copilot CLI ${VERSION}, warm start that fails on the provider, not the ID`, () => {
  /** A session of this sandbox, pinned by a one-shot run through sessionpin. */
  async function pinnedSession(sb: Sandbox): Promise<string> {
    const driver = cleanup.driver(sb.sessionpin(run(sb, [], ["copilot", ...ONE_SHOT])));
    expect((await exitOf(driver, WAIT_MS * 4)).exitCode).toBe(0);
    return String(sb.readPointer()["id"]);
  }

  it("interactive, no provider configured (`Offline mode requires a local model provider`, exit 1): the pointer is kept", async () => {
    const sb = copilotSandbox();
    const id = await pinnedSession(sb);
    const env = { ...sb.env };
    delete env["COPILOT_PROVIDER_BASE_URL"];
    const driver = cleanup.driver(sb.sessionpin(run(sb, ["--prompt", REMEMBER], ["copilot"]), { env }));
    const exit = await exitOf(driver, WAIT_MS * 2);
    expect(exit.exitCode).not.toBe(0);
    expect(driver.text).toContain("Offline mode requires a local model provider.");
    expect(startsIn(sb.readLog()).slice(1)).toEqual([["copilot", `--resume=${id}`]]);
    expect(sb.readPointer()).toMatchObject({ id, state: "confirmed" });
    expect(sb.asideFiles("rejected")).toEqual([]);
  }, 120_000);

  it("one-shot, the provider refuses with HTTP 401 (`Authentication failed with provider`): the pointer is kept", async () => {
    const sb = copilotSandbox();
    const id = await pinnedSession(sb);
    api().refuseWith = 401;
    const driver = cleanup.driver(sb.sessionpin(run(sb, ["--resume-prompt", ASK], ["copilot", "-p", REMEMBER, "--allow-all-tools"])));
    const exit = await exitOf(driver, WAIT_MS * 4);
    expect(exit.exitCode).toBe(1);
    expect(driver.text).toContain("Authentication failed with provider at");
    expect(startsIn(sb.readLog()).slice(1)).toEqual([["copilot", "--allow-all-tools", `--resume=${id}`, "-p", ASK]]);
    // It did resume: the refused request carried the earlier turns.
    expect(askedWith(api(), ASK).map((r) => typedTexts(r.messages))).toContainEqual([REMEMBER, ASK]);
    expect(sb.readPointer()).toMatchObject({ id, state: "confirmed" });
    expect(sb.asideFiles("rejected")).toEqual([]);
  }, 120_000);

  it("one-shot, the provider's port is closed (`Could not connect to local model provider`, after ~23 s of retries): the pointer is kept", async () => {
    const sb = copilotSandbox();
    const id = await pinnedSession(sb);
    const env = { ...sb.env, COPILOT_PROVIDER_BASE_URL: `http://127.0.0.1:${await closedPort()}/v1` };
    // A window longer than Copilot's retries, so only the transient text keeps the pointer.
    const driver = cleanup.driver(sb.sessionpin(run(sb, ["--resume-prompt", ASK, "--fallback-window", "90"], ["copilot", "-p", REMEMBER, "--allow-all-tools"]), { env }));
    const exit = await exitOf(driver, 90_000);
    expect(exit.exitCode).toBe(1);
    expect(driver.text).toMatch(/Could not connect to local model provider at http:\/\/127\.0\.0\.1:\d+\/v1\./);
    expect(startsIn(sb.readLog())).toHaveLength(2);
    expect(sb.readPointer()).toMatchObject({ id, state: "confirmed" });
    expect(sb.asideFiles("rejected")).toEqual([]);
  }, 120_000);
});

describe(`GitHub Copilot CLI ${VERSION}, /clear`, () => {
  it("follows /clear to the new session through session-state (old ID in history) and resumes that one after a restart", async () => {
    const sb = copilotSandbox();
    const cold = cleanup.driver(sb.sessionpin(runTui(sb, ["--prompt", REMEMBER], ["copilot"])));
    await answered(cold, sb, REMEMBER, NOTED);
    const first = String(sb.readPointer()["id"]);
    await settled(cold);

    cold.sendMessage("/clear");
    await settled(cold);
    cold.sendMessage("remember the word yak");
    await answered(cold, sb, "remember the word yak", "FAKE-API: noted the word yak.");
    const cleared = await waitUntil(() => {
      const id = String(sb.readPointer()["id"]);
      return id !== first ? id : undefined;
    }, "the pointer to follow /clear", WAIT_MS * 2);
    expect(cleared).toMatch(UUID);
    expect(sb.readPointer()).toMatchObject({ id: cleared, source: { rule: "session-state" } });
    expect((sb.readPointer()["history"] as Array<{ id: string }>).map((h) => h.id)).toEqual([first]);
    expect(await sessionStart(sb, cleared)).toMatchObject({ data: { sessionId: cleared, context: { cwd: cwdOf(sb) } } });
    // The cleared session's request carries no zebra turn.
    expect(typedTexts(askedWith(api(), "remember the word yak")[0]?.messages ?? [])).toEqual(["remember the word yak"]);
    await settled(cold);
    await stop(cold);
    exitTable(cold, cleared);

    const warm = cleanup.driver(sb.sessionpin(runTui(sb, ["--prompt", REMEMBER], ["copilot"])));
    await waitUntil(() => startsIn(sb.readLog()).length === 2, "the warm start");
    expect(startsIn(sb.readLog())[1]).toEqual(["copilot", `--resume=${cleared}`]);
    await warm.waitFor(READY, WAIT_MS * 2);
    await settled(warm);
    warm.sendMessage(ASK);
    await answered(warm, sb, ASK, "FAKE-API: the word is yak.");
    expect(typedTexts(askedWith(api(), ASK)[0]?.messages ?? [])).toEqual(["remember the word yak", ASK]);
    await settled(warm);
    await stop(warm);
  }, 120_000);
});

describe(`GitHub Copilot CLI ${VERSION} headless conversations, one per key`, () => {
  /** One call of a CI job or chat bridge: no TTY, stdin closed; a loaded 2-core machine runs 1.0.102 in 5–25 s. */
  const BOUND_MS = WAIT_MS * 4;
  const call = async (sb: Sandbox, key: string, message: string): Promise<OneShotResult> => {
    const result = await oneShot(sb, key, ["copilot", "-p", message, "--output-format", "json", "--allow-all-tools"], { boundMs: BOUND_MS });
    console.log(`copilot ${VERSION}, key ${key}, ${JSON.stringify(message)}: exit ${String(result.code)} in ${result.ms} ms`);
    return result;
  };
  /** The session a call's JSON output named (its last line, `result`). */
  const sessionOf = (result: OneShotResult): unknown => jsonLines(result.stdout).find((l) => l["type"] === "result")?.["sessionId"];

  it("three calls on one key continue one session, each request carrying every earlier turn; a repeat sends nothing; two keys stay apart", async () => {
    const sb = copilotSandbox();
    const thread = [REMEMBER, "remember the word yak", ASK];
    const sessions = new Set<unknown>();
    for (const [n, message] of thread.entries()) {
      const result = await call(sb, "thread-1", message);
      expect(result.code, result.stderr).toBe(0);
      sessions.add(sessionOf(result));
      // The fake API saw this message once, after every earlier message of the thread and its answer.
      const [request, ...more] = askedWith(api(), message);
      expect(more).toEqual([]);
      expect(typedTexts(request?.messages ?? [])).toEqual(thread.slice(0, n + 1));
      expect(assistantTexts(request?.messages ?? [])).toEqual(thread.slice(0, n).map((m) => m.replace("remember the word", "FAKE-API: noted the word") + "."));
    }
    expect(askedWith(api(), ASK).map((r) => r.answer)).toEqual(["FAKE-API: the word is yak."]);
    expect(sessions.size).toBe(1);
    const [id] = [...sessions];
    expect(id).toMatch(UUID);

    // A retried step: the message the session already had is not sent again, Copilot is not started.
    await repeatSendsNothing(() => call(sb, "thread-1", ASK), () => api().requests.length);

    // Another thread in the same folder: a conversation of its own, which knows no word.
    const other = await call(sb, "thread-2", ASK);
    expect(other.code, other.stderr).toBe(0);
    const otherId = sessionOf(other);
    expect(otherId).toMatch(UUID);
    expect(otherId).not.toBe(id);
    const fresh = askedWith(api(), ASK).filter((r) => typedTexts(r.messages).length === 1);
    expect(fresh.map((r) => r.answer)).toEqual(["FAKE-API: no word was given in this conversation."]);

    // What a bridge reads to map its threads to sessions.
    const listed = JSON.parse(cli(sb, ["sessions", "--json"]).stdout) as Array<Record<string, unknown>>;
    expect(listed.map((row) => [row["key"], row["id"], row["messages"]]).sort()).toEqual([["thread-1", id, 3], ["thread-2", otherId, 1]]);
  }, 6 * WAIT_MS * 4);
});
