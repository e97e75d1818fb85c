/**
 * End to end through real PTYs: `sessionpin run -- auggie …` against the fake Auggie on PATH
 * (fixtures/agents/auggie, shaped after the real 0.36.0). The session file Auggie writes under
 * ~/.augment/sessions while it runs pins the ID, so agentapi's SIGINT (after which 0.36.0 prints
 * nothing) loses nothing; the warm start resumes with `--resume <id>` and never sends
 * `--instruction` again; a refused ID falls back to a fresh session with the task.
 * Cold, warm, rejected and transient starts are the table in contract.test.ts; this file keeps
 * what it does not cover.
 */

import { afterEach, describe, expect, it } from "vitest";
import { Sandbox, type FakeEvent } from "../helpers/sandbox.js";
import { Cleanup, cwdOf, exitOf, runArgs, waitUntil, WAIT_MS } from "./support.js";

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
});
