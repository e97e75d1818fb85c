/**
 * End to end through real PTYs: `sessionpin run -- auggie …` against the fake Auggie on PATH
 * (fixtures/agents/auggie, shaped after the real 0.36.0). The session file Auggie writes under
 * ~/.augment/sessions while it runs pins the ID, so agentapi's SIGINT (after which 0.36.0 prints
 * nothing) loses nothing; the warm start resumes with `--resume <id>` and never sends
 * `--instruction` again; a refused ID falls back to a fresh session with the task.
 */
import { randomUUID } from "node:crypto";
import { afterEach, describe, expect, it } from "vitest";
import { Sandbox, type FakeEvent } from "../helpers/sandbox.js";
import { Cleanup, cwdOf, exitOf, readBeside, runArgs, sleep, waitUntil, WAIT_MS, writePointerByHand } from "./support.js";

const cleanup = new Cleanup();
afterEach(() => cleanup.run());

const PROMPT = "Add retries to the HTTP client.";
const COMMAND = ["auggie", "--model", "sonnet4.5", "--workspace-root", "/w"];

const fakeEvents = (sb: Sandbox, event?: string): FakeEvent[] => sb.fakeEvents("auggie", event);
const pinnedId = (sb: Sandbox): Promise<string> =>
  waitUntil(() => {
    try {
      const pointer = sb.readPointer();
      return pointer["state"] === "confirmed" ? String(pointer["id"]) : undefined;
    } catch {
      return undefined;
    }
  }, "the session file to pin the ID");

describe("auggie", () => {
  it("cold: passes the task as --instruction and pins the session file while Auggie runs; SIGINT loses nothing", async () => {
    const sb = cleanup.sandbox();
    const driver = cleanup.driver(sb.sessionpin(runArgs(sb, ["--prompt", PROMPT], COMMAND)));
    await driver.waitFor(/Auggie: noted \(1 messages in this session\)/, WAIT_MS);
    expect(sb.fakeStarts("auggie")).toEqual([[...COMMAND.slice(1), "--instruction", PROMPT]]);
    const id = fakeEvents(sb, "session")[0]?.id;
    expect(await pinnedId(sb)).toBe(id);
    expect(sb.readPointer()).toMatchObject({ agent: "auggie", id, cwd: cwdOf(sb), source: { rule: "session-file" } });

    driver.kill("SIGINT");
    expect((await exitOf(driver)).exitCode).toBe(0);
    expect(driver.text).not.toContain("auggie session resume");
    expect(sb.readPointer()).toMatchObject({ id, state: "confirmed" });
    expect(sb.fakeMessages("auggie")).toEqual([[id, PROMPT]]);
  });

  it("warm: resumes with --resume <id> and never sends the instruction again", async () => {
    const sb = cleanup.sandbox();
    const cold = cleanup.driver(sb.sessionpin(runArgs(sb, ["--prompt", PROMPT], COMMAND)));
    await cold.waitFor(/Auggie: noted/, WAIT_MS);
    const id = await pinnedId(sb);
    cold.kill("SIGINT");
    await exitOf(cold);

    const driver = cleanup.driver(sb.sessionpin(runArgs(sb, ["--prompt", PROMPT], COMMAND)));
    await driver.waitFor(/Resumed session \(1 exchanges\)/, WAIT_MS);
    expect(sb.fakeStarts("auggie")[1]).toEqual([...COMMAND.slice(1), "--resume", id]);
    await sleep(1_500);
    expect(sb.fakeMessages("auggie")).toEqual([[id, PROMPT]]);
    driver.sendMessage("Now add a test.");
    await driver.waitFor(/Auggie: noted \(2 messages in this session\)/, WAIT_MS);
    // Two Ctrl+C: Auggie's own exit, with its resume tip.
    driver.write("\x03");
    driver.write("\x03");
    expect((await exitOf(driver)).exitCode).toBe(0);
    expect(driver.text).toContain(`auggie session resume ${id}`);
    // Like 0.36.0, the fake keeps agentapi's `x` (it does not take \b as a backspace).
    expect(sb.fakeMessages("auggie")).toEqual([[id, PROMPT], [id, "xNow add a test."]]);
    expect(sb.readPointer()).toMatchObject({ id, history: [] });
    expect(sb.asideFiles("rejected")).toEqual([]);
  });

  it("print mode: the result line and the session file pin the ID; --resume-prompt resumes headless with --print kept", async () => {
    const sb = cleanup.sandbox();
    const print = ["auggie", "--print", "--output-format", "json"];
    const cold = cleanup.driver(sb.sessionpin(runArgs(sb, [], [...print, PROMPT])));
    expect((await exitOf(cold)).exitCode).toBe(0);
    const id = await pinnedId(sb);
    expect(cold.text).toContain(`"session_id":"${id}"`);
    const warm = cleanup.driver(sb.sessionpin(runArgs(sb, ["--resume-prompt", "Now add a test."], [...print, PROMPT])));
    expect((await exitOf(warm)).exitCode).toBe(0);
    expect(sb.fakeStarts("auggie")[1]).toEqual([...print.slice(1), "--resume", id, "--instruction", "Now add a test."]);
    expect(sb.fakeMessages("auggie")).toEqual([[id, PROMPT], [id, "Now add a test."]]);
    expect(sb.readPointer()).toMatchObject({ id, history: [] });
  });

  it("rejected: an ID Auggie refuses is set aside and a fresh session gets the task", async () => {
    const sb = cleanup.sandbox();
    const oldId = randomUUID();
    writePointerByHand(sb, { agent: "auggie", id: oldId, state: "confirmed", source: { rule: "session-file" } });
    const driver = cleanup.driver(sb.sessionpin(runArgs(sb, ["--prompt", PROMPT], COMMAND)));
    await driver.waitFor(/Auggie: noted \(1 messages in this session\)/, WAIT_MS);
    expect(driver.text).toContain(`No session found matching '${oldId}'`);
    expect(sb.fakeStarts("auggie")).toEqual([[...COMMAND.slice(1), "--resume", oldId], [...COMMAND.slice(1), "--instruction", PROMPT]]);
    expect(fakeEvents(sb, "exit")[0]).toMatchObject({ code: 1 });
    const aside = sb.asideFiles("rejected");
    expect(aside).toHaveLength(1);
    expect(readBeside(sb, aside[0] as string)).toContain(oldId);

    const newId = fakeEvents(sb, "session")[0]?.id;
    expect(await pinnedId(sb)).toBe(newId);
    driver.kill("SIGINT");
    expect((await exitOf(driver)).exitCode).toBe(0);
    expect(sb.readPointer()["history"]).toEqual([expect.objectContaining({ id: oldId })]);
  });
});
