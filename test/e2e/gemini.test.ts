/**
 * End to end through real PTYs: `sessionpin run -- gemini …` against the fake Gemini CLI on PATH
 * (fixtures/agents/gemini), at agentapi's 67x1190. Cold starts name the session with --session-id,
 * warm starts resume it with --resume and no prompt, a refused ID falls back to a fresh session.
 * Cold, warm, rejected and transient starts are the table in contract.test.ts; this file keeps
 * what it does not cover.
 */
import { randomUUID } from "node:crypto";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { captureAll } from "../../src/engine/capture/pipeline.js";
import { Cleanup, cli, cwdOf, exitOf, hasExited, pointerExists, PROMPT, runArgs, sleep, UUID, WAIT_MS, waitUntil } from "./support.js";

const cleanup = new Cleanup();
afterEach(() => cleanup.run());

describe("gemini cold start", () => {
  it("pins the ID it chose with --session-id while Gemini runs, hands it the prompt once (--prompt-interactive=), confirms from the chats store", async () => {
    const sb = cleanup.sandbox();
    const driver = cleanup.driver(sb.sessionpin(runArgs(sb, ["--prompt", PROMPT], ["gemini", "-m", "flash"])));
    await waitUntil(() => pointerExists(sb), "the pointer file");
    expect(await hasExited(driver)).toBe(false);
    const id = String(sb.readPointer()["id"]);
    expect(id).toMatch(UUID);
    expect(sb.readPointer()).toMatchObject({ agent: "gemini", cwd: cwdOf(sb), history: [] });
    await waitUntil(() => sb.fakeStarts("gemini").length > 0, "gemini's start");
    expect(sb.fakeStarts("gemini")).toEqual([["-m", "flash", `--prompt-interactive=${PROMPT}`, "--session-id", id]]);

    // Gemini writes chats/session-<time>-<id8>.jsonl: the store confirms the chosen ID.
    const confirmed = await waitUntil(() => (sb.readPointer()["state"] === "confirmed" ? sb.readPointer() : undefined), "a confirmed pointer");
    expect(confirmed).toMatchObject({ id, source: { rule: "chats" } });
    await driver.waitFor(/noted \(1 messages in this session\)/, WAIT_MS);
    await sleep(800);
    expect(sb.fakeMessages("gemini")).toEqual([[id, PROMPT]]);

    driver.write("\x03\x03");
    expect((await exitOf(driver)).exitCode).toBe(0);
    expect(driver.text).toMatch(new RegExp(`To resume this session: gemini --resume +│\n│  ${id} +│`));
    expect(sb.readPointer()).toMatchObject({ id, state: "confirmed" });
    expect(sb.readLog()).toContain(`captured provisional ${id} (rule chosen-up-front)`);
  });

  it("at 67 columns, pins a session the user named with --session-id from the wrapped exit box", async () => {
    const sb = cleanup.sandbox();
    const own = randomUUID();
    const driver = cleanup.driver(sb.sessionpin(runArgs(sb, ["--prompt", PROMPT], ["gemini", "--session-id", own])));
    await driver.waitFor(/noted \(1 messages in this session\)/, WAIT_MS);
    // Nothing to choose and nothing printed yet: the chats file holds only 8 characters of the ID.
    expect(pointerExists(sb)).toBe(false);
    driver.write("\x03\x03");
    expect((await exitOf(driver)).exitCode).toBe(0);
    expect(sb.fakeStarts("gemini")).toEqual([["--session-id", own, `--prompt-interactive=${PROMPT}`]]);
    // The Session ID row breaks inside the UUID at 67 columns; the two rows are read as one.
    expect(driver.text).toContain(`${"Session ID:".padEnd(28)}${own.slice(0, 33)}  │\n│${" ".repeat(30)}${own.slice(33)} `);
    const logged = new RegExp(`captured provisional ${own} \\(rule exit-box, line (\\d+)\\)`).exec(sb.readLog());
    // The capture came from the row holding the UUID's last characters, not from the resume hint below.
    const rows = captureAll([driver.output]);
    expect(rows.find((row) => row.n === Number(logged?.[1]))?.text).toMatch(new RegExp(`^│ +${own.slice(33)} +│$`));
    expect(sb.readPointer()).toMatchObject({ agent: "gemini", id: own, state: "confirmed", source: { rule: "chats" } });
  });
});

describe("gemini warm start", () => {

  it("drops Gemini's own -i prompt on the warm start", async () => {
    const sb = cleanup.sandbox();
    const cold = cleanup.driver(sb.sessionpin(runArgs(sb, [], ["gemini", "-i", PROMPT, "--approval-mode", "yolo"])));
    await cold.waitFor(/noted \(1 messages in this session\)/, WAIT_MS);
    cold.write("\x03\x03");
    expect((await exitOf(cold)).exitCode).toBe(0);
    const id = String(sb.readPointer()["id"]);

    const warm = cleanup.driver(sb.sessionpin(runArgs(sb, [], ["gemini", "-i", PROMPT, "--approval-mode", "yolo"])));
    await warm.waitFor(/Resumed session \(1 messages\)/, WAIT_MS);
    warm.write("\x03\x03");
    expect((await exitOf(warm)).exitCode).toBe(0);
    expect(sb.fakeStarts("gemini")).toEqual([["-i", PROMPT, "--approval-mode", "yolo", "--session-id", id], ["--approval-mode", "yolo", "--resume", id]]);
    expect(sb.fakeMessages("gemini")).toEqual([[id, PROMPT]]);
  });
});

describe("gemini rejected ID", () => {

  it("a session that never took a turn is refused on resume (Gemini lists only sessions with messages) and falls back", async () => {
    const sb = cleanup.sandbox();
    const first = cleanup.driver(sb.sessionpin(runArgs(sb, [], ["gemini"])));
    await first.waitFor(/New session/, WAIT_MS);
    const id = await waitUntil(() => (pointerExists(sb) && sb.readPointer()["state"] === "confirmed" ? String(sb.readPointer()["id"]) : undefined), "the store's confirmation");
    first.write("\x03\x03");
    expect((await exitOf(first)).exitCode).toBe(0);

    const second = cleanup.driver(sb.sessionpin(runArgs(sb, ["--prompt", PROMPT], ["gemini"])));
    await second.waitFor(/noted \(1 messages in this session\)/, WAIT_MS);
    second.write("\x03\x03");
    expect((await exitOf(second)).exitCode).toBe(0);
    expect(sb.fakeStarts("gemini").map((argv) => argv.at(-2))).toEqual(["--session-id", "--resume", "--session-id"]);
    expect(sb.fakeStarts("gemini")[1]).toEqual(["--resume", id]);
    expect(sb.asideFiles("rejected")).toHaveLength(1);
    expect(sb.readPointer()["id"]).not.toBe(id);
    expect(sb.fakeMessages("gemini").map(([, text]) => text)).toEqual([PROMPT]);
  });
});

describe("gemini under agentapi's stop and in one-shot mode", () => {
  it("SIGINT (agentapi's stop) ends the TUI with exit 0 and no exit box; the chats store had confirmed the chosen ID", async () => {
    const sb = cleanup.sandbox();
    const driver = cleanup.driver(sb.sessionpin(runArgs(sb, ["--prompt", PROMPT], ["gemini"])));
    await driver.waitFor(/noted \(1 messages in this session\)/, WAIT_MS);
    const id = await waitUntil(() => (sb.readPointer()["state"] === "confirmed" ? String(sb.readPointer()["id"]) : undefined), "the store's confirmation");
    // One Ctrl-C only warns (0.61.0).
    driver.write("\x03");
    await driver.waitFor(/Press Ctrl\+C again to exit\./, WAIT_MS);
    await sleep(300);
    expect(await hasExited(driver)).toBe(false);
    driver.kill("SIGINT");
    expect((await exitOf(driver)).exitCode).toBe(0);
    expect(driver.text).not.toContain("Session ID:");
    expect(sb.readPointer()).toMatchObject({ id, state: "confirmed", source: { rule: "chats" } });
  });

  it("a one-shot warm start stays one-shot: a repeat starts nothing (exit 4, pointer kept), `-p MSG` with --resume-prompt", async () => {
    const sb = cleanup.sandbox();
    const cold = cleanup.driver(sb.sessionpin(runArgs(sb, [], ["gemini", "-p", PROMPT, "-o", "stream-json"])));
    expect((await exitOf(cold)).exitCode).toBe(0);
    const id = await waitUntil(() => (sb.readPointer()["state"] === "confirmed" ? String(sb.readPointer()["id"]) : undefined), "the store's confirmation");

    const before = sb.readPointer();
    const bare = cleanup.driver(sb.sessionpin(runArgs(sb, [], ["gemini", "-p", PROMPT, "-o", "stream-json"])));
    expect((await exitOf(bare)).exitCode).toBe(4);
    expect(sb.readPointer()).toEqual(before);
    expect(sb.asideFiles("rejected")).toEqual([]);

    const warm = cleanup.driver(sb.sessionpin(runArgs(sb, ["--resume-prompt", "And now the docs."], ["gemini", "-p", PROMPT, "-o", "stream-json"])));
    expect((await exitOf(warm)).exitCode).toBe(0);
    expect(sb.fakeStarts("gemini").slice(1)).toEqual([["-o", "stream-json", "--resume", id, "-p", "And now the docs."]]);
    expect(sb.fakeMessages("gemini")).toEqual([[id, PROMPT], [id, "And now the docs."]]);
  });
});

describe("doctor on Gemini's own settings", () => {
  it("warns while session retention, the auth method or folder trust would lose or refuse the session, and says ok once they are set", () => {
    const sb = cleanup.sandbox();
    const checks = (): Record<string, string> => {
      const report = JSON.parse(cli(sb, ["doctor", "--json", "--pointer", sb.pointer, "--", "gemini"]).stdout) as { checks: Array<{ name: string; status: string }> };
      return Object.fromEntries(report.checks.filter((c) => c.name.startsWith("gemini-")).map((c) => [c.name, c.status]));
    };
    expect(checks()).toEqual({ "gemini-retention": "warn", "gemini-auth": "warn", "gemini-trust": "warn" });
    const root = join(sb.home, ".gemini");
    mkdirSync(root, { recursive: true });
    writeFileSync(join(root, "settings.json"), JSON.stringify({ security: { auth: { selectedType: "gemini-api-key" } }, general: { sessionRetention: { enabled: false } } }));
    writeFileSync(join(root, "trustedFolders.json"), JSON.stringify({ [cwdOf(sb)]: "TRUST_FOLDER" }));
    expect(checks()).toEqual({ "gemini-retention": "ok", "gemini-auth": "ok", "gemini-trust": "ok" });
  });
});
