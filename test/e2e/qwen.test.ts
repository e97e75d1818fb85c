/**
 * End to end through real PTYs: `sessionpin run -- qwen …` against the fake Qwen Code on PATH
 * (fixtures/agents/qwen, shaped on 0.24.4), at agentapi's 67x1190. A cold start names the session
 * up front and the chats store confirms it; a warm start resumes with `--resume <id>` and no
 * prompt; `-p` runs are pinned from stream-json; an unknown ID falls back to a fresh session with
 * the prompt; an API failure on a warm start keeps the pointer.
 * Cold, warm, rejected and transient starts are the table in contract.test.ts; this file keeps
 * what it does not cover.
 */
import { randomUUID } from "node:crypto";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { Sandbox } from "../helpers/sandbox.js";
import { Cleanup, cli, cwdOf, exitOf, PROMPT, runArgs, WAIT_MS, waitUntil } from "./support.js";

const cleanup = new Cleanup();
afterEach(() => cleanup.run());

const FOLLOW_UP = "And now the docs.";
const chats = (sb: Sandbox): string => join(sb.home, ".qwen", "projects", cwdOf(sb).replace(/[^a-zA-Z0-9]/g, "-"), "chats");

/** A cold interactive start with the prompt, stopped with SIGINT once it was answered; the pinned ID. */
async function coldStart(sb: Sandbox): Promise<string> {
  const driver = cleanup.driver(sb.sessionpin(runArgs(sb, ["--prompt", PROMPT], ["qwen", "--model", "fake"])));
  await driver.waitFor(/◆︎ noted \(1 messages in this session\)/, WAIT_MS);
  await waitUntil(() => sb.readPointer()["state"] === "confirmed", "confirmation from chats/");
  driver.kill("SIGINT");
  expect((await exitOf(driver)).exitCode).toBe(130);
  return String(sb.readPointer()["id"]);
}

describe("qwen cold start", () => {
  it("names the session with --session-id, gives the TUI the prompt as -i, confirms it from chats/<id>.jsonl", async () => {
    const sb = cleanup.sandbox();
    const id = await coldStart(sb);
    expect(sb.fakeStarts("qwen")).toEqual([["--session-id", id, "--model", "fake", "-i", PROMPT]]);
    expect(sb.fakeMessages("qwen")).toEqual([[id, PROMPT]]);
    expect(existsSync(join(chats(sb), `${id}.jsonl`))).toBe(true);
    expect(sb.readPointer()).toMatchObject({ agent: "qwen", id, cwd: cwdOf(sb), state: "confirmed", source: { rule: "chats" }, history: [] });
    const log = sb.readLog();
    expect(log).toContain(`captured provisional ${id} (rule chosen-up-front)`);
    expect(log).toContain(`confirmed ${id} (rule chats)`);
    expect(log).not.toContain("instead of");
  });

  it("pins a -p -o stream-json run from its stream; a repeat plans nothing, --resume-prompt fills the -p slot", async () => {
    const sb = cleanup.sandbox({ FAKE_QWEN_NEXT_ID: randomUUID() });
    // -c names no session and runs as given: the ID must come from the output (or the store).
    const driver = cleanup.driver(sb.sessionpin(runArgs(sb, [], ["qwen", "-c", "-p", PROMPT, "-o", "stream-json"])));
    expect((await exitOf(driver)).exitCode).toBe(0);
    const id = String(sb.fakeEvents("qwen", "session")[0]?.id);
    expect(sb.fakeStarts("qwen")).toEqual([["-c", "-p", PROMPT, "-o", "stream-json"]]);
    expect(sb.readPointer()).toMatchObject({ agent: "qwen", id, state: "confirmed" });

    const plan = (extra: string[], command: string[]) => JSON.parse(cli(sb, ["plan", "--pointer", sb.pointer, ...extra, "--", "qwen", ...command]).stdout) as Record<string, unknown>;
    // The caller's own -c is never rewritten; the same call without it resumes the pinned session.
    expect(plan([], ["-c", "-p", PROMPT, "-o", "stream-json"])).toMatchObject({ mode: "given", id: null, argv: ["qwen", "-c", "-p", PROMPT, "-o", "stream-json"] });
    expect(plan([], ["-p", PROMPT, "-o", "stream-json"])).toMatchObject({ mode: "repeat", id, argv: null });
    expect(plan(["--resume-prompt", FOLLOW_UP], ["-p", PROMPT, "-o", "stream-json"])).toMatchObject({ mode: "warm", id, argv: ["qwen", "-o", "stream-json", "--resume", id, "-p", FOLLOW_UP] });
  });
});

describe("qwen warm start", () => {

  it("keeps the pointer when the model API is unreachable (a -p warm start that fails with [API Error: …])", async () => {
    const sb = cleanup.sandbox();
    const driver = cleanup.driver(sb.sessionpin(runArgs(sb, ["--prompt", PROMPT], ["qwen", "-p", PROMPT])));
    expect((await exitOf(driver)).exitCode).toBe(0);
    const id = String(sb.readPointer()["id"]);

    const offline = cleanup.driver(sb.sessionpin(runArgs(sb, ["--prompt", PROMPT, "--resume-prompt", FOLLOW_UP], ["qwen", "-p", PROMPT]), { env: { ...sb.env, FAKE_QWEN_OFFLINE: "1" } }));
    expect((await exitOf(offline)).exitCode).toBe(1);
    expect(offline.text).toContain("[API Error: Connection error. (cause: fetch failed)]");
    expect(sb.fakeStarts("qwen").at(-1)).toEqual(["--resume", id, "-p", FOLLOW_UP]);
    expect(sb.fakeStarts("qwen")).toHaveLength(2);
    expect(sb.readPointer()).toMatchObject({ id, history: [] });
    expect(sb.asideFiles("rejected")).toEqual([]);
  });
});
