/**
 * End to end through real PTYs: `sessionpin run -- opencode …` against the fake OpenCode CLI on PATH
 * (fixtures/agents/opencode), at agentapi's 67x1190: `run --format json` pins and confirms the session,
 * the TUI resumes it with `-s <id>` and no prompt, and an unknown session falls back.
 * Cold, warm, rejected and transient starts are the table in contract.test.ts; this file keeps
 * what it does not cover.
 */
import { afterEach, describe, expect, it } from "vitest";
import type { Sandbox, FakeEvent } from "../helpers/sandbox.js";
import { Cleanup, cli, cwdOf, exitOf, hasExited, pointerExists, PROMPT, runArgs, sleep, WAIT_MS, waitUntil } from "./support.js";

const cleanup = new Cleanup();
afterEach(() => cleanup.run());

const fakeEvents = (sb: Sandbox, event?: string): FakeEvent[] => sb.fakeEvents("opencode", event);

describe("opencode", () => {
  it("run --format json: pins sessionID while OpenCode runs, confirms it by its log or at step_finish; the TUI then resumes with -s <id>", async () => {
    const sb = cleanup.sandbox({ FAKE_OPENCODE_TURN_MS: "1500" });
    const cold = cleanup.driver(sb.sessionpin(runArgs(sb, ["--prompt", PROMPT], ["opencode", "run", "--format", "json"])));
    await waitUntil(() => pointerExists(sb), "the pointer file");
    expect(await hasExited(cold)).toBe(false);
    const id = String(fakeEvents(sb, "session")[0]?.id);
    expect(id).toMatch(/^ses_[0-9a-f]{12}[0-9A-Za-z]{14}$/);
    expect(sb.readPointer()).toMatchObject({ agent: "opencode", id, state: "provisional", source: { rule: "step-start" }, cwd: cwdOf(sb) });
    expect((await exitOf(cold)).exitCode).toBe(0);
    // Whichever comes first: the log's `message=created` line (polled) or the turn's step_finish.
    expect(sb.readPointer()).toMatchObject({ id, state: "confirmed", source: { rule: expect.stringMatching(/^(log-created|step-finish)$/) as unknown } });
    expect(sb.fakeStarts("opencode")).toEqual([["run", "--format", "json", PROMPT]]);

    const warm = cleanup.driver(sb.sessionpin(runArgs(sb, ["--prompt", PROMPT], ["opencode", "--agent", "build"])));
    await warm.waitFor(/resumed \(1 messages\)/, WAIT_MS);
    expect(sb.fakeStarts("opencode")[1]).toEqual(["--agent", "build", "-s", id]);
    await sleep(1_500);
    expect(sb.fakeMessages("opencode")).toEqual([[id, PROMPT]]);
    warm.sendMessage("And now the docs.");
    await warm.waitFor(/OpenCode: noted \(2 messages in this session\)/, WAIT_MS);
    warm.write("\x03");
    expect((await exitOf(warm)).exitCode).toBe(0);
    expect(warm.text).toContain(`opencode -s ${id}`);
    expect(sb.readPointer()).toMatchObject({ id, state: "confirmed", history: [] });
  });

  it("a warm `run` never repeats its message (exit 4, pointer kept); OpenCode's refusal to run without one keeps the pointer", async () => {
    const sb = cleanup.sandbox({ FAKE_OPENCODE_TURN_MS: "100" });
    const cold = cleanup.driver(sb.sessionpin(runArgs(sb, ["--prompt", PROMPT], ["opencode", "run", "--format", "json"])));
    expect((await exitOf(cold)).exitCode).toBe(0);
    const before = sb.readPointer();
    const repeat = cleanup.driver(sb.sessionpin(runArgs(sb, ["--prompt", PROMPT], ["opencode", "run", "--format", "json"])));
    expect((await exitOf(repeat)).exitCode).toBe(4);
    expect(sb.fakeStarts("opencode")).toHaveLength(1);
    expect(sb.readPointer()).toEqual(before);
    // An empty resume prompt reaches OpenCode as no message at all: its own refusal is not a rejection.
    const warm = cleanup.driver(sb.sessionpin(runArgs(sb, ["--prompt", PROMPT, "--resume-prompt", ""], ["opencode", "run", "--format", "json"])));
    expect((await exitOf(warm)).exitCode).toBe(1);
    expect(warm.text).toContain("You must provide a message or a command");
    expect(sb.readPointer()).toEqual(before);
    expect(sb.asideFiles("rejected")).toEqual([]);
  });

  it("a warm run whose model request fails (401) keeps the pointer: json's APIError event, plain run's header", async () => {
    const sb = cleanup.sandbox({ FAKE_OPENCODE_TURN_MS: "100" });
    const cold = cleanup.driver(sb.sessionpin(runArgs(sb, ["--prompt", PROMPT], ["opencode", "run", "--format", "json"])));
    expect((await exitOf(cold)).exitCode).toBe(0);
    const before = sb.readPointer();
    sb.env["FAKE_OPENCODE_PROVIDER"] = "401";
    for (const command of [["opencode", "run", "--format", "json"], ["opencode", "run"]]) {
      const warm = cleanup.driver(sb.sessionpin(runArgs(sb, ["--prompt", PROMPT, "--resume-prompt", "And the docs?"], command)));
      expect((await exitOf(warm)).exitCode).toBe(1);
      expect(sb.fakeStarts("opencode").at(-1)).toEqual([...command.slice(1), "-s", before["id"], "And the docs?"]);
      expect(warm.text).toMatch(command.length > 2 ? /"name":"APIError"/ : /Error: refused/);
    }
    expect(sb.fakeStarts("opencode")).toHaveLength(3);
    expect(sb.readPointer()).toEqual(before);
    expect(sb.asideFiles("rejected")).toEqual([]);
  });
});

describe("opencode in `sessionpin plugins`", () => {
  it("names the session log among its capture sources", () => {
    const sb = cleanup.sandbox();
    const listed = cli(sb, ["plugins"]).stdout.split("\n");
    const at = listed.findIndex((line) => line.startsWith("opencode "));
    expect(listed[at + 1]).toContain("session log (log-created)");
  });
});
