/**
 * End to end through real PTYs: `sessionpin run -- claude …` against the fake Claude Code on PATH
 * (fixtures/agents/claude), at agentapi's 67x1190. Cold starts name the session with --session-id
 * and the transcript confirms it; warm starts resume with --resume and no prompt; a rejected ID
 * falls back; a fork on resume moves the pointer.
 * Cold, warm, rejected and transient starts are the table in contract.test.ts; this file keeps
 * what it does not cover.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { Sandbox, type FakeEvent } from "../helpers/sandbox.js";
import { Cleanup, cli, cwdOf, exitOf, hasExited, pointerExists, PROMPT, runArgs, sleep, UUID, WAIT_MS, waitUntil } from "./support.js";

const cleanup = new Cleanup();
afterEach(() => cleanup.run());

const events = (sb: Sandbox, kind?: string): FakeEvent[] => sb.fakeEvents("claude", kind);
const transcript = (sb: Sandbox, id: string): string => join(sb.home, ".claude", "projects", cwdOf(sb).replace(/[^A-Za-z0-9]/g, "-"), `${id}.jsonl`);

/** A cold interactive start with the prompt, ended with Ctrl-C once answered; returns the pinned ID. */
async function coldStart(sb: Sandbox, command: string[] = ["claude", "--model", "sonnet"]): Promise<string> {
  const driver = cleanup.driver(sb.sessionpin(runArgs(sb, ["--prompt", PROMPT], command)));
  await driver.waitFor(/noted \(1 messages in this session\)/, WAIT_MS);
  await waitUntil(() => sb.readPointer()["state"] === "confirmed", "the confirmed pointer");
  driver.write("\x03");
  expect((await exitOf(driver)).exitCode).toBe(0);
  return String(sb.readPointer()["id"]);
}

describe("claude cold start", () => {
  it("names the session with --session-id, pins it while Claude runs, and confirms it by the transcript", async () => {
    const sb = cleanup.sandbox();
    const driver = cleanup.driver(sb.sessionpin(runArgs(sb, ["--prompt", PROMPT], ["claude", "--model", "sonnet"])));
    await waitUntil(() => pointerExists(sb) && events(sb, "start").length > 0, "the pointer and Claude's start");
    expect(await hasExited(driver)).toBe(false);

    const [argv] = sb.fakeStarts("claude");
    const id = String(argv?.[1]);
    expect(id).toMatch(UUID);
    expect(argv).toEqual(["--session-id", id, "--model", "sonnet", "--", PROMPT]);
    // Named up front, so the pointer exists before any turn: provisional until the transcript does.
    await driver.waitFor(/noted \(1 messages in this session\)/, WAIT_MS);
    await waitUntil(() => sb.readPointer()["state"] === "confirmed", "the transcript to confirm the ID");
    expect(existsSync(transcript(sb, id))).toBe(true);
    expect(sb.readPointer()).toMatchObject({ agent: "claude", id, state: "confirmed", cwd: cwdOf(sb), source: { rule: "transcript" }, history: [] });
    expect(sb.fakeMessages("claude")).toEqual([[id, PROMPT]]);

    driver.write("\x03");
    expect((await exitOf(driver)).exitCode).toBe(0);
    expect(driver.text).toContain(`claude --resume ${id}`);
    const log = sb.readLog();
    expect(log).toContain(`captured provisional ${id} (rule chosen-up-front)`);
    expect(log).toContain(`confirmed ${id} (rule transcript)`);
  });

  it("pins a print-mode run from its stream-json result", async () => {
    const sb = cleanup.sandbox();
    const command = ["claude", "-p", "--output-format", "stream-json", "--verbose"];
    const driver = cleanup.driver(sb.sessionpin(runArgs(sb, ["--prompt", PROMPT], command)));
    expect((await exitOf(driver)).exitCode).toBe(0);
    const id = String(sb.fakeStarts("claude")[0]?.[1]);
    expect(sb.fakeStarts("claude")).toEqual([["--session-id", id, "-p", "--output-format", "stream-json", "--verbose", "--", PROMPT]]);
    expect(driver.text).toContain(`"type":"result","subtype":"success"`);
    expect(sb.readPointer()).toMatchObject({ id, state: "confirmed" });
    expect(sb.readLog()).toMatch(new RegExp(`confirmed ${id} \\(rule (result|transcript)\\)`));
  });
});

describe("claude warm start", () => {
  it("resumes with --resume <id> and other args kept, never sends the prompt again", async () => {
    const sb = cleanup.sandbox();
    const id = await coldStart(sb);

    const plan = cli(sb, ["plan", "--pointer", sb.pointer, "--prompt", PROMPT, "--", "claude", "--model", "sonnet"]);
    expect(plan.status).toBe(0);
    expect(JSON.parse(plan.stdout)).toMatchObject({ mode: "warm", agent: "claude", id, argv: ["claude", "--model", "sonnet", "--resume", id], pointer: sb.pointer });

    const driver = cleanup.driver(sb.sessionpin(runArgs(sb, ["--prompt", PROMPT], ["claude", "--model", "sonnet"])));
    await driver.waitFor(/resumed \(1 messages\)/, WAIT_MS);
    expect(sb.fakeStarts("claude").at(-1)).toEqual(["--model", "sonnet", "--resume", id]);
    await sleep(1_500);
    expect(sb.fakeMessages("claude")).toEqual([[id, PROMPT]]);

    driver.sendMessage("And now the docs.");
    await driver.waitFor(/noted \(2 messages in this session\)/, WAIT_MS);
    driver.write("\x03");
    expect((await exitOf(driver)).exitCode).toBe(0);
    expect(sb.fakeMessages("claude")).toEqual([[id, PROMPT], [id, "And now the docs."]]);
    expect(sb.readPointer()).toMatchObject({ id, state: "confirmed", history: [] });
    expect(sb.asideFiles("rejected")).toEqual([]);
    expect(sb.readLog()).toContain(`warm start: resuming confirmed ${id}`);
  });

  it("follows the fork when --fork-session gives the resumed session a new ID", async () => {
    const sb = cleanup.sandbox();
    const command = ["claude", "--fork-session"];
    const id = await coldStart(sb, command);
    const driver = cleanup.driver(sb.sessionpin(runArgs(sb, ["--prompt", PROMPT], command)));
    await driver.waitFor(/resumed \(1 messages\)/, WAIT_MS);
    expect(sb.fakeStarts("claude").at(-1)).toEqual(["--fork-session", "--resume", id]);
    // sessions/<pid>.json names the fork while Claude runs; its transcript confirms it.
    const fork = await waitUntil(() => {
      const pinned = sb.readPointer()["id"];
      return pinned !== id ? String(pinned) : undefined;
    }, "the pointer to follow the fork");
    expect(fork).toMatch(UUID);
    await waitUntil(() => sb.readPointer()["state"] === "confirmed", "the fork's transcript");
    driver.sendMessage("Keep going.");
    await driver.waitFor(/noted \(2 messages in this session\)/, WAIT_MS);
    driver.write("\x03");
    expect((await exitOf(driver)).exitCode).toBe(0);
    expect(sb.fakeMessages("claude")).toEqual([[id, PROMPT], [fork, "Keep going."]]);
    const pointer = sb.readPointer();
    expect(pointer).toMatchObject({ id: fork, state: "confirmed" });
    expect((pointer["history"] as Array<{ id: string }>).map((h) => h.id)).toEqual([id]);
    expect(sb.readLog()).toContain(`claude now reports ${fork} instead of ${id}: pointer follows, old ID kept in history`);
  });

  it("a print-mode run repeating its message starts nothing (exit 4); a new message continues the session", async () => {
    const sb = cleanup.sandbox();
    const command = ["claude", "-p", "--output-format", "stream-json", "--verbose"];
    const cold = cleanup.driver(sb.sessionpin(runArgs(sb, ["--prompt", PROMPT], command)));
    expect((await exitOf(cold)).exitCode).toBe(0);
    const before = sb.readPointer();
    const starts = sb.fakeStarts("claude").length;

    const repeat = cleanup.driver(sb.sessionpin(runArgs(sb, ["--prompt", PROMPT], command)));
    expect((await exitOf(repeat)).exitCode).toBe(4);
    expect(repeat.text).toContain("session already had this message");
    expect(sb.fakeStarts("claude")).toHaveLength(starts);
    expect(sb.readPointer()).toEqual(before);
    expect(sb.asideFiles("rejected")).toEqual([]);

    const next = cleanup.driver(sb.sessionpin(runArgs(sb, [], [...command, "Now the docs."])));
    expect((await exitOf(next)).exitCode).toBe(0);
    expect(sb.fakeStarts("claude").at(-1)).toEqual(["-p", "--output-format", "stream-json", "--verbose", "--resume", before["id"], "--", "Now the docs."]);
    expect(sb.fakeMessages("claude")).toEqual([[before["id"], PROMPT], [before["id"], "Now the docs."]]);
    expect(sb.readPointer()).toMatchObject({ id: before["id"], messages: [{}, {}] });
  });
});
