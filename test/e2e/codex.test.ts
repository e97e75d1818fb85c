/**
 * End to end through real PTYs: `sessionpin run -- codex …` against the fake Codex CLI on PATH
 * (fixtures/agents/codex), at agentapi's 67x1190. Cold starts pin thread.started's ID and the rollout
 * confirms it, warm starts resume with `resume <id>` and no prompt, a rejected ID falls back, a
 * missing exec prompt keeps the pointer, and a forked thread is followed with the old ID in history.
 * Cold, warm, rejected and transient starts are the table in contract.test.ts; this file keeps
 * what it does not cover.
 */
import { randomUUID } from "node:crypto";
import { afterEach, describe, expect, it } from "vitest";
import { Sandbox, type FakeEvent } from "../helpers/sandbox.js";
import { Cleanup, cwdOf, exitOf, hasExited, pointerExists, PROMPT, runArgs, WAIT_MS, waitUntil } from "./support.js";

const cleanup = new Cleanup();
afterEach(() => cleanup.run());

const fakeEvents = (sb: Sandbox, event?: string): FakeEvent[] => sb.fakeEvents("codex", event);
const history = (sb: Sandbox): Array<{ id: string; reason: string }> => sb.readPointer()["history"] as Array<{ id: string; reason: string }>;

/** A cold interactive start with the prompt, ended with Ctrl-C once answered; the pinned ID. */
async function coldTui(sb: Sandbox): Promise<string> {
  const driver = cleanup.driver(sb.sessionpin(runArgs(sb, ["--prompt", PROMPT], ["codex", "-m", "o3"])));
  await driver.waitFor(/Codex: noted \(1 messages in this thread\)/, WAIT_MS);
  await waitUntil(() => pointerExists(sb) && sb.readPointer()["state"] === "confirmed", "the rollout's confirmation");
  driver.write("\x03");
  expect((await exitOf(driver)).exitCode).toBe(0);
  return String(sb.readPointer()["id"]);
}

describe("codex exec, cold", () => {
  it("pins thread.started's ID while Codex runs, the rollout confirms it, the prompt goes in argv once", async () => {
    const sb = cleanup.sandbox({ FAKE_CODEX_TURN_MS: "2000" });
    const driver = cleanup.driver(sb.sessionpin(runArgs(sb, ["--prompt", PROMPT], ["codex", "exec", "--json"])));

    await waitUntil(() => pointerExists(sb), "the pointer file");
    expect(await hasExited(driver)).toBe(false);
    const id = String(fakeEvents(sb, "thread")[0]?.id);
    expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    expect(sb.readPointer()).toMatchObject({ version: 1, agent: "codex", id, cwd: cwdOf(sb), history: [] });
    // The rollout lands when the turn starts: the store confirms before the turn is over.
    await waitUntil(() => sb.readPointer()["state"] === "confirmed", "confirmation from the rollout");
    expect(sb.readPointer()).toMatchObject({ id, state: "confirmed", source: { rule: "rollout" } });
    expect(await hasExited(driver)).toBe(false);

    expect((await exitOf(driver)).exitCode).toBe(0);
    expect(driver.text).toContain('"type":"turn.completed"');
    expect(sb.fakeStarts("codex")).toEqual([["exec", "--json", PROMPT]]);
    expect(sb.fakeMessages("codex")).toEqual([[id, PROMPT]]);
    expect(sb.readLog()).toMatch(new RegExp(`captured provisional ${id} \\(rule thread-started, line 1\\)[^]*confirmed ${id} \\(rule rollout\\)`));
  });

  it("pins the stderr banner's session id when --json is not given", async () => {
    const id = randomUUID();
    const sb = cleanup.sandbox({ FAKE_CODEX_NEXT_ID: id, FAKE_CODEX_TURN_MS: "300" });
    const driver = cleanup.driver(sb.sessionpin(runArgs(sb, ["--prompt", PROMPT], ["codex", "exec", "--skip-git-repo-check"])));
    expect((await exitOf(driver)).exitCode).toBe(0);
    expect(driver.text).toContain(`session id: ${id}`);
    expect(sb.readPointer()).toMatchObject({ id, state: "confirmed" });
    expect(sb.readLog()).toContain(`captured provisional ${id} (rule session-banner`);
  });
});

describe("codex warm start", () => {
  it("exec: a repeated message starts nothing (exit 4); a new one runs `codex exec --json resume <id> MSG`", async () => {
    const sb = cleanup.sandbox({ FAKE_CODEX_TURN_MS: "200" });
    const cold = cleanup.driver(sb.sessionpin(runArgs(sb, ["--prompt", PROMPT], ["codex", "exec", "--json"])));
    expect((await exitOf(cold)).exitCode).toBe(0);
    const before = sb.readPointer();
    const id = String(before["id"]);

    const repeat = cleanup.driver(sb.sessionpin(runArgs(sb, ["--prompt", PROMPT], ["codex", "exec", "--json"])));
    expect((await exitOf(repeat)).exitCode).toBe(4);
    expect(sb.fakeStarts("codex")).toEqual([["exec", "--json", PROMPT]]);
    // Not a rejection: the pointer stays as it was, nothing is set aside, no fresh thread is made.
    expect(sb.readPointer()).toEqual(before);
    expect(sb.asideFiles("rejected")).toEqual([]);

    const next = cleanup.driver(sb.sessionpin(runArgs(sb, [], ["codex", "exec", "--json", "Now the docs."])));
    expect((await exitOf(next)).exitCode).toBe(0);
    expect(sb.fakeStarts("codex")).toEqual([["exec", "--json", PROMPT], ["exec", "--json", "resume", id, "Now the docs."]]);
    expect(sb.fakeMessages("codex")).toEqual([[id, PROMPT], [id, "Now the docs."]]);
    expect(sb.readLog()).toContain(`warm start: resuming confirmed ${id}`);
    expect(sb.readLog()).not.toMatch(/rejected/);
  });

  it("exec with --resume-prompt: resumes as `codex exec --json resume <id> <message>`, never the task prompt", async () => {
    const sb = cleanup.sandbox({ FAKE_CODEX_TURN_MS: "200" });
    const args = ["--prompt", PROMPT, "--resume-prompt", "Continue where you left off."];
    const cold = cleanup.driver(sb.sessionpin(runArgs(sb, args, ["codex", "exec", "--json"])));
    expect((await exitOf(cold)).exitCode).toBe(0);
    const id = String(sb.readPointer()["id"]);

    const warm = cleanup.driver(sb.sessionpin(runArgs(sb, args, ["codex", "exec", "--json"])));
    expect((await exitOf(warm)).exitCode).toBe(0);
    expect(sb.fakeStarts("codex")).toEqual([["exec", "--json", PROMPT], ["exec", "--json", "resume", id, "Continue where you left off."]]);
    expect(sb.fakeMessages("codex")).toEqual([[id, PROMPT], [id, "Continue where you left off."]]);
    expect(sb.readPointer()).toMatchObject({ id, state: "confirmed" });
  });

  it("exec resume that mints a new thread id: the pointer follows it and keeps the old one in history", async () => {
    const sb = cleanup.sandbox({ FAKE_CODEX_TURN_MS: "200" });
    const args = ["--prompt", PROMPT, "--resume-prompt", "Continue where you left off."];
    const cold = cleanup.driver(sb.sessionpin(runArgs(sb, args, ["codex", "exec", "--json"])));
    expect((await exitOf(cold)).exitCode).toBe(0);
    const old = String(sb.readPointer()["id"]);

    const minted = randomUUID();
    const warm = cleanup.driver(sb.sessionpin(runArgs(sb, args, ["codex", "exec", "--json"]), { env: { ...sb.env, FAKE_CODEX_FORK: "1", FAKE_CODEX_NEXT_ID: minted } }));
    expect((await exitOf(warm)).exitCode).toBe(0);
    await waitUntil(() => sb.readPointer()["id"] === minted || undefined, "the pointer on the minted thread");
    expect(history(sb)).toEqual([expect.objectContaining({ id: old })]);
    expect(sb.readLog()).toContain(`now reports ${minted} instead of ${old}`);
  });
});

describe("codex switches thread after a warm start", () => {
  it("follows a forked thread (/fork, /status, exit hint): the pointer moves, the old ID stays in history", async () => {
    const sb = cleanup.sandbox();
    const id = await coldTui(sb);

    const driver = cleanup.driver(sb.sessionpin(runArgs(sb, [], ["codex", "-m", "o3"])));
    await driver.waitFor(/Resumed thread \(1 messages\)/, WAIT_MS);
    driver.sendMessage("/fork");
    await driver.waitFor(/Forked into a new thread/, WAIT_MS);
    driver.sendMessage("/status");
    await driver.waitFor(/Forked from: +[0-9a-f-]{36}/, WAIT_MS);
    const forked = /Session: +([0-9a-f-]{36})/.exec(driver.text.slice(driver.text.lastIndexOf("Forked into")))?.[1];
    expect(forked).toBeDefined();
    expect(forked).not.toBe(id);
    // The pointer follows while Codex still runs; the parent named by `Forked from:` is never taken.
    await waitUntil(() => sb.readPointer()["id"] === forked, "the pointer to follow the fork");
    driver.sendMessage("Continue on the fork.");
    await driver.waitFor(/Codex: noted \(2 messages in this thread\)/, WAIT_MS);
    driver.write("\x03");
    expect((await exitOf(driver)).exitCode).toBe(0);

    expect(driver.text).toContain(`To continue this session, run codex resume ${forked}`);
    expect(sb.readPointer()).toMatchObject({ id: forked, state: "confirmed" });
    expect(history(sb)).toEqual([expect.objectContaining({ id, reason: `codex switched to ${forked}` })]);
    expect(sb.readLog()).toContain(`codex now reports ${forked} instead of ${id}: pointer follows, old ID kept in history`);
    expect(sb.fakeMessages("codex")).toEqual([[id, PROMPT], [forked, "Continue on the fork."]]);
  });
});
