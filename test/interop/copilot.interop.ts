/**
 * Real GitHub Copilot CLI (`@github/copilot`) through `sessionpin run`, offline: its
 * bring-your-own-key provider points at the shared fake Chat Completions API on 127.0.0.1
 * (copilot-support.ts). What each test proves is read from what the fake API received: a resumed
 * session sends its earlier turns again.
 *
 * Interactive runs are agentapi's: a 67x1190 PTY with TERM=vt100, messages typed as `x\b`, a
 * bracketed paste and `\r` once the screen is still, and SIGINT to sessionpin to stop.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { PtyDriver } from "../../src/demo/driver.js";
import { Cleanup, cwdOf, exitOf, sleep, waitUntil, WAIT_MS, writePointerByHand } from "../e2e/support.js";
import type { Sandbox } from "../helpers/sandbox.js";
import { FakeChat } from "./fake-chat.js";
import { fakeApiPerTest, jsonLines, pinned, rawText, realSandbox, replayOf, run, settled, startsIn, UUID, versionOf } from "./support.js";
import { askedWith, assistantTexts, copilotEnv, eventsFile, trustCwd, typedTexts } from "./copilot-support.js";

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
}

/** The fake API answered a request whose last typed turn is `text` with `answer`. */
const answered = (text: string, answer: string): Promise<true> =>
  waitUntil(() => askedWith(api(), text).some((r) => r.answer === answer), `the fake API to answer ${JSON.stringify(text)}`, WAIT_MS * 4);

/** The first line of the session's events.jsonl (Copilot's session.start). */
function sessionStart(sb: Sandbox, id: string): Record<string, unknown> {
  return JSON.parse(readFileSync(eventsFile(sb, id), "utf8").split("\n")[0] ?? "") as Record<string, unknown>;
}

describe(`GitHub Copilot CLI ${VERSION}, interactive, agentapi-like`, () => {
  it("pins the session named up front, confirms it from session-state, resumes it after a restart with the earlier turns", async () => {
    const sb = copilotSandbox();
    expect(versionOf(sb, "copilot")).toContain(VERSION);
    const cast = join(sb.dir, "cold.cast");
    const cold = cleanup.driver(sb.sessionpin(run(sb, ["--prompt", REMEMBER, "--record", cast], ["copilot"])));
    await answered(REMEMBER, NOTED);
    const id = String(sb.readPointer()["id"]);
    expect(id).toMatch(UUID);
    expect(startsIn(sb.readLog())).toEqual([["copilot", `--session-id=${id}`]]);
    await waitUntil(() => sb.readPointer()["state"] === "confirmed", "session-state to confirm the ID");
    expect(sb.readPointer()).toMatchObject({ agent: "copilot", id, cwd: cwdOf(sb), source: { rule: "session-state" }, history: [] });
    // The store `belongs` reads: its first line names the session and this cwd.
    expect(sessionStart(sb, id)).toMatchObject({ type: "session.start", data: { sessionId: id, copilotVersion: VERSION, context: { cwd: cwdOf(sb) } } });
    expect(askedWith(api(), REMEMBER)).toHaveLength(1);

    await settled(cold);
    await stop(cold);
    // The exit table, at 67 columns wrapped after `copilot` (the logo's last row beside it).
    expect(cold.text).toMatch(new RegExp(`^ +▔▔▔▔ +Resume {5}copilot\\n {11}--resume=${id}$`, "m"));
    // Replayed offline, the screen alone gives the ID, by the exit table.
    expect(replayOf(sb, cast)).toMatchObject({ status: 0, result: { agent: "copilot", id, rule: "exit-hint" } });

    // Restart: `copilot --resume=<id>`, without the prompt; the next message, typed the agentapi
    // way once the screen is still, reaches the API with the first conversation's turns.
    const warm = cleanup.driver(sb.sessionpin(run(sb, ["--prompt", REMEMBER], ["copilot"])));
    await waitUntil(() => startsIn(sb.readLog()).length === 2, "the warm start");
    expect(startsIn(sb.readLog())[1]).toEqual(["copilot", `--resume=${id}`]);
    await warm.waitFor(READY, WAIT_MS * 2);
    await settled(warm);
    await sleep(1_000);
    expect(api().completions()).toHaveLength(1);
    warm.sendMessage(ASK);
    await answered(ASK, TOLD);
    const asked = askedWith(api(), ASK);
    expect(asked).toHaveLength(1);
    expect(typedTexts(asked[0]?.messages ?? [])).toEqual([REMEMBER, ASK]);
    expect(assistantTexts(asked[0]?.messages ?? [])).toEqual([NOTED]);
    await settled(warm);
    await stop(warm);
    expect(warm.text).toMatch(new RegExp(`--resume=${id}$`, "m"));
    expect(sb.readPointer()).toMatchObject({ id, state: "confirmed", history: [] });
    expect(sb.asideFiles("rejected")).toEqual([]);
  }, 120_000);
});
