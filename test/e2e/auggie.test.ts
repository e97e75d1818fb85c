/**
 * End to end through real PTYs: `sessionpin run -- auggie …` against the fake Auggie on PATH
 * (fixtures/agents/auggie). Auggie shows its session ID only when the session closes, so the cold
 * start pins at exit; the warm start resumes with `--resume <id>` and never sends `--instruction`
 * again; a refused ID falls back to a fresh session with the task.
 */
import { randomUUID } from "node:crypto";
import { afterEach, describe, expect, it } from "vitest";
import { Sandbox, type FakeEvent } from "../helpers/sandbox.js";
import { Cleanup, exitOf, pointerExists, readBeside, runArgs, sleep, WAIT_MS, writePointerByHand } from "./support.js";

const cleanup = new Cleanup();
afterEach(() => cleanup.run());

const PROMPT = "Add retries to the HTTP client.";
const COMMAND = ["auggie", "--model", "sonnet4.5", "--workspace-root", "/w"];

const fakeEvents = (sb: Sandbox, event?: string): FakeEvent[] => sb.fakeEvents("auggie", event);

describe("auggie", () => {
  it("cold: passes the task as --instruction and pins the ID Auggie shows when the session closes", async () => {
    const sb = cleanup.sandbox();
    const driver = cleanup.driver(sb.sessionpin(runArgs(sb, ["--prompt", PROMPT], COMMAND)));
    await driver.waitFor(/Auggie: noted \(1 messages in this session\)/, WAIT_MS);
    expect(sb.fakeStarts("auggie")).toEqual([[...COMMAND.slice(1), "--instruction", PROMPT]]);
    const id = fakeEvents(sb, "session")[0]?.id;
    // Nothing on screen names the session yet, and Auggie documents no local store.
    await sleep(500);
    expect(pointerExists(sb)).toBe(false);

    driver.write("\x03");
    expect((await exitOf(driver)).exitCode).toBe(0);
    expect(sb.readPointer()).toMatchObject({ agent: "auggie", id, state: "provisional", source: { rule: "exit-resume-hint" } });
    expect(sb.fakeMessages("auggie")).toEqual([[id, PROMPT]]);
  });

  it("warm: resumes with --resume <id> and never sends the instruction again", async () => {
    const sb = cleanup.sandbox();
    const cold = cleanup.driver(sb.sessionpin(runArgs(sb, ["--prompt", PROMPT], COMMAND)));
    await cold.waitFor(/Auggie: noted/, WAIT_MS);
    cold.write("\x03");
    await exitOf(cold);
    const id = String(sb.readPointer()["id"]);

    const driver = cleanup.driver(sb.sessionpin(runArgs(sb, ["--prompt", PROMPT], COMMAND)));
    await driver.waitFor(/Resumed session \(1 messages\)/, WAIT_MS);
    expect(sb.fakeStarts("auggie")[1]).toEqual([...COMMAND.slice(1), "--resume", id]);
    await sleep(1_500);
    expect(sb.fakeMessages("auggie")).toEqual([[id, PROMPT]]);
    driver.sendMessage("Now add a test.");
    await driver.waitFor(/Auggie: noted \(2 messages in this session\)/, WAIT_MS);
    driver.write("\x03");
    expect((await exitOf(driver)).exitCode).toBe(0);
    expect(sb.fakeMessages("auggie")).toEqual([[id, PROMPT], [id, "Now add a test."]]);
    expect(sb.readPointer()).toMatchObject({ id, history: [] });
    expect(sb.asideFiles("rejected")).toEqual([]);
  });

  it("rejected: an ID Auggie refuses is set aside and a fresh session gets the task", async () => {
    const sb = cleanup.sandbox();
    const oldId = randomUUID();
    writePointerByHand(sb, { agent: "auggie", id: oldId, state: "provisional", source: { rule: "exit-resume-hint" } });
    const driver = cleanup.driver(sb.sessionpin(runArgs(sb, ["--prompt", PROMPT], COMMAND)));
    await driver.waitFor(/Auggie: noted \(1 messages in this session\)/, WAIT_MS);
    expect(sb.fakeStarts("auggie")).toEqual([[...COMMAND.slice(1), "--resume", oldId], [...COMMAND.slice(1), "--instruction", PROMPT]]);
    expect(fakeEvents(sb, "exit")[0]).toMatchObject({ code: 1 });
    const aside = sb.asideFiles("rejected");
    expect(aside).toHaveLength(1);
    expect(readBeside(sb, aside[0] as string)).toContain(oldId);

    driver.write("\x03");
    expect((await exitOf(driver)).exitCode).toBe(0);
    const newId = fakeEvents(sb, "session")[0]?.id;
    expect(sb.readPointer()).toMatchObject({ id: newId });
    expect(sb.readPointer()["history"]).toEqual([expect.objectContaining({ id: oldId })]);
  });
});
