/**
 * End to end through real PTYs: `sessionpin run -- kiro-cli chat …` against the fake Kiro CLI on
 * PATH (fixtures/agents/kiro-cli). The session file Kiro saves after each turn pins the ID while it
 * runs; the warm start resumes with `chat --resume-id <id>` and no prompt; Kiro's silent fallback
 * to a new session counts as a refusal, so the fresh start gets the task.
 * Cold, warm, rejected and transient starts are the table in contract.test.ts; this file keeps
 * what it does not cover.
 */

import { afterEach, describe, expect, it } from "vitest";
import { Sandbox, type FakeEvent } from "../helpers/sandbox.js";
import { Cleanup, cwdOf, exitOf, hasExited, pointerExists, runArgs, waitUntil, WAIT_MS } from "./support.js";

const cleanup = new Cleanup();
afterEach(() => cleanup.run());

const PROMPT = "Add a health check endpoint.";
const COMMAND = ["kiro-cli", "chat", "--agent", "dev", "--trust-all-tools"];

const fakeEvents = (sb: Sandbox, event?: string): FakeEvent[] => sb.fakeEvents("kiro", event);

describe("kiro", () => {
  it("cold: types the prompt, pins the session from the file Kiro saves for this folder while it runs", async () => {
    const sb = cleanup.sandbox();
    const driver = cleanup.driver(sb.sessionpin(runArgs(sb, ["--prompt", PROMPT], COMMAND)));
    await driver.waitFor(/Kiro: noted \(1 messages in this session\)/, WAIT_MS);
    const id = fakeEvents(sb, "session")[0]?.id;
    await waitUntil(() => pointerExists(sb), "the pointer file");
    expect(await hasExited(driver)).toBe(false);
    expect(sb.readPointer()).toMatchObject({ agent: "kiro", id, state: "confirmed", cwd: cwdOf(sb), source: { rule: "kiro-sessions" } });
    expect(sb.fakeStarts("kiro")).toEqual([COMMAND.slice(1)]);
    expect(sb.fakeMessages("kiro")).toEqual([[id, PROMPT]]);

    driver.write("\x03");
    expect((await exitOf(driver)).exitCode).toBe(0);
    expect(driver.text).toContain(`kiro-cli chat --resume-id ${id}`);
    expect(sb.readPointer()).toMatchObject({ id, history: [] });
  });
});
