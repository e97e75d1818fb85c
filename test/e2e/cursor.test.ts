/**
 * End to end through real PTYs: `sessionpin run -- cursor-agent …` against the fake Cursor CLI on
 * PATH (fixtures/agents/cursor-agent). Print mode pins from the stream's result, the interactive
 * TUI from its chat folder; warm starts resume with --resume=<id> and no prompt.
 * Cold, warm, rejected and transient starts are the table in contract.test.ts; this file keeps
 * what it does not cover.
 */

import { afterEach, describe, expect, it } from "vitest";
import { Sandbox, type FakeEvent } from "../helpers/sandbox.js";
import { Cleanup, cwdOf, exitOf, runArgs } from "./support.js";

const cleanup = new Cleanup();
afterEach(() => cleanup.run());

const PROMPT = "Summarise the README.";

const events = (sb: Sandbox, kind?: string): FakeEvent[] => sb.fakeEvents("cursor", kind);

describe("cursor", () => {
  it("pins a print-mode run from its init line and confirms it once its first turn completed", async () => {
    const sb = cleanup.sandbox();
    const driver = cleanup.driver(sb.sessionpin(runArgs(sb, ["--prompt", PROMPT], ["cursor-agent", "-p", "--output-format", "stream-json"])));
    expect((await exitOf(driver)).exitCode).toBe(0);
    expect(events(sb, "start").map((e) => e.argv)).toEqual([["-p", "--output-format", "stream-json", PROMPT]]);
    const chat = events(sb, "message")[0]?.chat;
    expect(sb.readPointer()).toMatchObject({ agent: "cursor", id: chat, state: "confirmed", cwd: cwdOf(sb) });
    // Every stream line carries the chat's session_id (Cursor's output-format reference): init
    // captures it, and the result (or the chat's folder) confirms it.
    expect(sb.readLog()).toMatch(new RegExp(`captured provisional ${chat} \\(rule system-init`));
    expect(sb.readLog()).toMatch(new RegExp(`confirmed ${chat} \\(rule (result|chat-folder)`));
  });

  it("keeps the pointer when a warm start fails for want of a login", async () => {
    const sb = cleanup.sandbox();
    const cold = cleanup.driver(sb.sessionpin(runArgs(sb, ["--prompt", PROMPT], ["cursor-agent", "-p", "--output-format", "stream-json"])));
    expect((await exitOf(cold)).exitCode).toBe(0);
    const before = sb.readPointer();
    const warm = cleanup.driver(sb.sessionpin(runArgs(sb, ["--prompt", PROMPT], ["cursor-agent"]), { env: { ...sb.env, FAKE_CURSOR_NO_AUTH: "1" } }));
    expect((await exitOf(warm)).exitCode).toBe(1);
    expect(warm.text).toContain("Authentication required");
    expect(events(sb, "start").at(-1)?.argv).toEqual([`--resume=${String(before["id"])}`]);
    expect(sb.readPointer()).toEqual(before);
    expect(sb.asideFiles("rejected")).toEqual([]);
  });
});
