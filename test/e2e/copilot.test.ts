/**
 * End to end through real PTYs: `sessionpin run -- copilot …` against the fake Copilot CLI on PATH
 * (fixtures/agents/copilot), at agentapi's 67x1190. Cold start names the session up front and pins
 * it while the agent runs, warm start resumes with `--resume=<id>` and no prompt, a silent new
 * session (builds before 1.0.49) is followed (old ID in history), and the refusal of 1.0.49+
 * (the fake's default, as the real 1.0.102) falls back.
 * Cold, warm, rejected and transient starts are the table in contract.test.ts; this file keeps
 * what it does not cover.
 */
import { randomUUID } from "node:crypto";
import { afterEach, describe, expect, it } from "vitest";
import { Sandbox, type FakeEvent } from "../helpers/sandbox.js";
import { Cleanup, cli, cwdOf, exitOf, hasExited, pointerExists, PROMPT, runArgs, sleep, WAIT_MS, waitUntil, writePointerByHand } from "./support.js";

const cleanup = new Cleanup();
afterEach(() => cleanup.run());

const FOLLOW_UP = "And now the docs.";

const fakeEvents = (sb: Sandbox, event?: string): FakeEvent[] => sb.fakeEvents("copilot", event);

function copilotPointer(sb: Sandbox, id: string): void {
  writePointerByHand(sb, { agent: "copilot", id, source: { rule: "session-state" } });
}

describe("copilot cold start", () => {
  it("names the session with --session-id, pins it while Copilot runs, confirms it from session-state, types the prompt once", async () => {
    const sb = cleanup.sandbox();
    const driver = cleanup.driver(sb.sessionpin(runArgs(sb, ["--prompt", PROMPT], ["copilot", "--model", "gpt-5"])));

    await waitUntil(() => sb.fakeStarts("copilot").length === 1 && pointerExists(sb), "the agent's start and the pointer file");
    const argv = sb.fakeStarts("copilot")[0] ?? [];
    const id = String(argv[2]).replace("--session-id=", "");
    expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    expect(argv).toEqual(["--model", "gpt-5", `--session-id=${id}`]);
    expect(sb.readPointer()).toMatchObject({ version: 1, agent: "copilot", id, cwd: cwdOf(sb), history: [] });

    // The fake writes session-state/<id>/events.jsonl at start: the store confirms while it runs.
    await waitUntil(() => sb.readPointer()["state"] === "confirmed", "confirmation from session-state");
    expect(sb.readPointer()).toMatchObject({ id, state: "confirmed", source: { rule: "session-state" } });
    expect(await hasExited(driver)).toBe(false);

    await driver.waitFor(/Copilot: noted \(1 messages in this session\)/, WAIT_MS);
    await sleep(1_000);
    expect(sb.fakeMessages("copilot")).toEqual([[id, PROMPT]]);

    driver.write("\x03");
    expect((await exitOf(driver)).exitCode).toBe(0);
    await sleep(500); // a PTY's last bytes can arrive after its exit is reported
    // The exit table names the same session (wrapped as at 67 columns): nothing changes.
    expect(driver.text).toMatch(new RegExp(`Resume {5}copilot\\n+ {11}--resume=${id}$`, "m"));
    expect(sb.readPointer()).toMatchObject({ id, state: "confirmed", history: [] });
    const log = sb.readLog();
    expect(log).toContain(`captured provisional ${id} (rule chosen-up-front)`);
    expect(log).toContain(`confirmed ${id} (rule session-state)`);
    expect(log).not.toContain("instead of");
  });

  it("pins a -p --output-format json run from its result line; a repeat plans nothing, --resume-prompt or a new message resume with -p", async () => {
    const sb = cleanup.sandbox();
    const driver = cleanup.driver(sb.sessionpin(runArgs(sb, [], ["copilot", "-p", PROMPT, "--output-format", "json", "--allow-all-tools"])));
    expect((await exitOf(driver)).exitCode).toBe(0);
    const id = String(sb.fakeStarts("copilot")[0]?.at(-1)).replace("--session-id=", "");
    // Like the real 1.0.102: no session.start on stdout, `result` carries the ID.
    expect(driver.text).not.toContain("session.start");
    expect(driver.text).toContain(`{"type":"result","sessionId":"${id}"`);
    expect(sb.readPointer()).toMatchObject({ agent: "copilot", id, state: "confirmed" });
    expect(sb.fakeMessages("copilot")).toEqual([[id, PROMPT]]);

    const plan = cli(sb, ["plan", "--pointer", sb.pointer, "--", "copilot", "-p", PROMPT, "--output-format", "json", "--allow-all-tools"]);
    expect(plan.status).toBe(0);
    expect(JSON.parse(plan.stdout)).toMatchObject({ mode: "repeat", agent: "copilot", id, argv: null });
    const next = cli(sb, ["plan", "--pointer", sb.pointer, "--", "copilot", "-p", FOLLOW_UP, "--output-format", "json", "--allow-all-tools"]);
    expect(JSON.parse(next.stdout)).toMatchObject({
      mode: "warm", argv: ["copilot", "--output-format", "json", "--allow-all-tools", `--resume=${id}`, "-p", FOLLOW_UP], deliver: { what: "follow-up" },
    });
    const resumed = cli(sb, ["plan", "--pointer", sb.pointer, "--resume-prompt", FOLLOW_UP, "--", "copilot", "-p", PROMPT, "--output-format", "json", "--allow-all-tools"]);
    expect(JSON.parse(resumed.stdout)).toMatchObject({
      mode: "warm", argv: ["copilot", "--output-format", "json", "--allow-all-tools", `--resume=${id}`, "-p", FOLLOW_UP],
    });
  });
});

describe("copilot silent new session (builds before 1.0.49)", () => {
  it("detects that Copilot opened a new session for an unknown ID: the pointer follows it, the old ID stays in history", async () => {
    const oldId = randomUUID();
    const newId = randomUUID();
    const sb = cleanup.sandbox({ FAKE_COPILOT_NEXT_ID: newId, FAKE_COPILOT_SILENT_NEW: "1" });
    copilotPointer(sb, oldId);

    const driver = cleanup.driver(sb.sessionpin(runArgs(sb, ["--prompt", PROMPT], ["copilot"])));
    await driver.waitFor(/New session/, WAIT_MS);
    expect(sb.fakeStarts("copilot")).toEqual([[`--resume=${oldId}`]]);
    expect(fakeEvents(sb, "session")).toMatchObject([{ id: newId, resumed: false }]);
    // Nothing said so far names another session: the pointer still holds the stored ID.
    expect(sb.readPointer()).toMatchObject({ id: oldId, history: [] });
    await sleep(1_500);
    expect(sb.fakeMessages("copilot")).toEqual([]);

    driver.sendMessage(FOLLOW_UP);
    await driver.waitFor(/Copilot: noted \(1 messages in this session\)/, WAIT_MS);
    driver.write("\x03");
    expect((await exitOf(driver)).exitCode).toBe(0);

    const pointer = sb.readPointer();
    expect(pointer).toMatchObject({ agent: "copilot", id: newId, state: "confirmed" });
    expect(pointer["history"]).toEqual([expect.objectContaining({ id: oldId, reason: `copilot switched to ${newId}` })]);
    expect(sb.readLog()).toContain(`copilot now reports ${newId} instead of ${oldId}: pointer follows, old ID kept in history`);
    expect(sb.asideFiles("rejected")).toEqual([]);
    expect(sb.fakeMessages("copilot")).toEqual([[newId, FOLLOW_UP]]);
  });
});
