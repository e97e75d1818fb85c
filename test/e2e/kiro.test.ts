/**
 * End to end through real PTYs: `sessionpin run -- kiro-cli chat …` against the fake Kiro CLI on
 * PATH (fixtures/agents/kiro-cli). The session file Kiro saves after each turn pins the ID while it
 * runs; the warm start resumes with `chat --resume-id <id>` and no prompt; Kiro's silent fallback
 * to a new session counts as a refusal, so the fresh start gets the task.
 */
import { randomUUID } from "node:crypto";
import { afterEach, describe, expect, it } from "vitest";
import { Sandbox, type FakeEvent } from "../helpers/sandbox.js";
import { Cleanup, cwdOf, exitOf, hasExited, pointerExists, readBeside, runArgs, sleep, waitUntil, WAIT_MS, writePointerByHand } from "./support.js";

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

  it("warm: resumes with chat --resume-id <id> and sends no prompt", async () => {
    const sb = cleanup.sandbox();
    const cold = cleanup.driver(sb.sessionpin(runArgs(sb, ["--prompt", PROMPT], COMMAND)));
    await cold.waitFor(/Kiro: noted/, WAIT_MS);
    cold.write("\x03");
    await exitOf(cold);
    const id = String(sb.readPointer()["id"]);

    const driver = cleanup.driver(sb.sessionpin(runArgs(sb, ["--prompt", PROMPT], COMMAND)));
    await driver.waitFor(/Resumed session \(1 messages\)/, WAIT_MS);
    expect(sb.fakeStarts("kiro")[1]).toEqual(["chat", "--agent", "dev", "--trust-all-tools", "--resume-id", id]);
    await sleep(1_500);
    expect(sb.fakeMessages("kiro")).toEqual([[id, PROMPT]]);
    driver.sendMessage("Now add a test.");
    await driver.waitFor(/Kiro: noted \(2 messages in this session\)/, WAIT_MS);
    driver.write("\x03");
    expect((await exitOf(driver)).exitCode).toBe(0);
    expect(sb.fakeMessages("kiro")).toEqual([[id, PROMPT], [id, "Now add a test."]]);
    expect(sb.readPointer()).toMatchObject({ id, state: "confirmed", history: [] });
    expect(sb.asideFiles("rejected")).toEqual([]);
  });

  it("rejected: Kiro's silent fallback to a new session sets the pointer aside and starts fresh with the prompt", async () => {
    const sb = cleanup.sandbox();
    const oldId = randomUUID();
    writePointerByHand(sb, { agent: "kiro", id: oldId, source: { rule: "kiro-sessions" } });
    const driver = cleanup.driver(sb.sessionpin(runArgs(sb, ["--prompt", PROMPT], COMMAND)));
    await driver.waitFor(/Kiro: noted \(1 messages in this session\)/, WAIT_MS);
    expect(driver.text).toContain("No saved sessions found for this directory. Starting new session.");
    expect(sb.fakeStarts("kiro")).toEqual([["chat", "--agent", "dev", "--trust-all-tools", "--resume-id", oldId], COMMAND.slice(1)]);
    // The attempt that fell back was stopped before it got the task; the fresh session got it.
    const fresh = fakeEvents(sb, "session").at(-1)?.id;
    expect(fresh).not.toBe(oldId);
    expect(sb.fakeMessages("kiro")).toEqual([[fresh, PROMPT]]);

    const aside = sb.asideFiles("rejected");
    expect(aside).toHaveLength(1);
    expect(readBeside(sb, aside[0] as string)).toContain(oldId);
    await waitUntil(() => pointerExists(sb) && sb.readPointer()["id"] === fresh, "the fresh session's pin");
    expect(sb.readPointer()["history"]).toEqual([expect.objectContaining({ id: oldId })]);
    driver.write("\x03");
    expect((await exitOf(driver)).exitCode).toBe(0);
    const log = sb.readLog();
    expect(log).toMatch(/rejection seen on line \d+; stopping the agent/);
    expect(log).toMatch(new RegExp(`stored ID ${oldId} rejected: kiro printed "No saved sessions found`));
  });
});
