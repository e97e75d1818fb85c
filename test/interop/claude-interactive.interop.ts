/**
 * Real Claude Code, interactive, inside an agentapi-like harness: sessionpin in a 67x1190 PTY
 * with TERM=vt100, messages typed the agentapi way (`x\b`, bracketed paste, `\r`), shut down the
 * agentapi way (SIGINT to sessionpin). Onboarding is settled offline ($HOME/.claude.json) and the
 * TUI gets ANTHROPIC_AUTH_TOKEN (an ANTHROPIC_API_KEY makes it ask whether to trust the key).
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { PtyDriver } from "../../src/pty/driver.js";
import { Cleanup, cwdOf, exitOf, sleep, waitUntil, WAIT_MS } from "../e2e/support.js";
import type { Sandbox } from "../helpers/sandbox.js";
import { FakeAnthropic, userTexts } from "./fake-anthropic.js";
import { claudeEnv, pinned, realSandbox, replayOf, run, settleClaudeOnboarding, settled, startsIn, takenRules, UUID, fakeApiPerTest } from "./support.js";

const cleanup = new Cleanup();
const api = fakeApiPerTest(cleanup, () => FakeAnthropic.start());

const VERSION = pinned("@anthropic-ai/claude-code");
const REMEMBER = "remember the word zebra";
const ASK = "which word?";
/** Claude's input box is ready for a message (its prompt row shows the `>`/`❯` caret). */
const READY = /^\s*[>❯]\s/m;

function claudeSandbox(): Sandbox {
  const sb = realSandbox(cleanup, claudeEnv(api().url, "auth-token"));
  settleClaudeOnboarding(sb, VERSION);
  return sb;
}

/** agentapi's shutdown: SIGINT to sessionpin (it forwards it to Claude's process group). */
async function stop(driver: PtyDriver): Promise<number> {
  driver.kill("SIGINT");
  return (await exitOf(driver, WAIT_MS * 2)).exitCode;
}

/** The live session file Claude keeps under its pid while it runs. */
function liveSession(sb: Sandbox): Record<string, unknown> | undefined {
  const dir = join(sb.home, ".claude", "sessions");
  if (!existsSync(dir)) return undefined;
  const file = readdirSync(dir).find((name) => /^\d+\.json$/.test(name));
  return file === undefined ? undefined : (JSON.parse(readFileSync(join(dir, file), "utf8")) as Record<string, unknown>);
}

/** Claude's screen once it answered `text` (the fake API's reply, shown after a `●`). */
const answered = (driver: PtyDriver, text: string): Promise<RegExpMatchArray> => driver.waitFor(new RegExp(`● ${text.replace(/[.?]/g, "\\$&")}`), WAIT_MS * 3);

/** A restart the way a Coder workspace does it: the same command line, the same pointer. */
async function warmStart(sb: Sandbox, id: string): Promise<PtyDriver> {
  const before = startsIn(sb.readLog()).length;
  const driver = cleanup.driver(sb.sessionpin(run(sb, ["--prompt", REMEMBER], ["claude"])));
  await waitUntil(() => startsIn(sb.readLog()).length > before, "the warm start");
  expect(startsIn(sb.readLog()).at(-1)).toEqual(["claude", "--resume", id]);
  // The resumed screen shows the earlier conversation and an empty input box; agentapi sends
  // its message once the screen is still.
  await driver.waitFor(READY, WAIT_MS * 2);
  await settled(driver);
  return driver;
}

describe(`Claude Code ${VERSION} interactive, agentapi-like`, () => {
  it("captures the ID chosen up front, confirms it by the transcript, resumes it across a restart; /status wrapped at 65 columns is read", async () => {
    const sb = claudeSandbox();
    const cast = join(sb.dir, "cold.cast");
    const cold = cleanup.driver(sb.sessionpin(run(sb, ["--prompt", REMEMBER, "--record", cast], ["claude"])));
    await answered(cold, "FAKE-API: noted the word zebra.");
    const id = String(sb.readPointer()["id"]);
    expect(id).toMatch(UUID);
    // The cold start named the session and took the task prompt as Claude's positional.
    expect(startsIn(sb.readLog())).toEqual([["claude", "--session-id", id, "--", REMEMBER]]);
    await waitUntil(() => sb.readPointer()["state"] === "confirmed", "the transcript to confirm the ID");
    expect(sb.readPointer()).toMatchObject({ agent: "claude", id, cwd: cwdOf(sb), source: { rule: "transcript" }, history: [] });
    expect(existsSync(join(sb.home, ".claude", "projects", cwdOf(sb).replace(/[^A-Za-z0-9]/g, "-"), `${id}.jsonl`))).toBe(true);
    // While Claude runs, its live session file names the same session.
    expect(liveSession(sb)).toMatchObject({ sessionId: id, kind: "interactive", version: VERSION });
    const first = api().conversation(REMEMBER);
    expect(first.length).toBeGreaterThan(0);
    expect(new Set(first.map((r) => r.sessionId))).toEqual(new Set([id]));

    // /status at agentapi's 67 columns: 2.1.330 puts the value at column 31 and breaks the
    // 36-character ID itself, its last character alone on the next row (not a terminal wrap).
    await settled(cold);
    cold.sendMessage("/status");
    await cold.waitFor(/Session kind:\s+interactive/, WAIT_MS);
    expect(cold.text).toMatch(new RegExp(`^ {2}Session ID: {17}${id.slice(0, 35)}\\n {30}${id.slice(35)}$`, "m"));
    cold.write("\x1b");
    await settled(cold);
    expect(await stop(cold)).toBe(0);
    // Claude's own exit hint, as the plugin's exit-hint rule expects it (column 0, 67 columns).
    expect(cold.text).toMatch(new RegExp(`^Resume this session with:\\n+claude --resume ${id}$`, "m"));
    expect(liveSession(sb)).toBeUndefined();
    // Replayed offline, the screen alone gives the ID: first by the /status row (the TUI wraps
    // the UUID at 65 columns, and the rows are joined back), then by the exit hint.
    expect(replayOf(sb, cast)).toMatchObject({ status: 0, result: { agent: "claude", id, rule: "status" } });
    expect(takenRules(sb, cast)).toEqual(["claude/status", "claude/exit-hint"]);

    // Restart: resumed without the prompt; the next message, sent the agentapi way, continues
    // the same conversation.
    const warm = await warmStart(sb, id);
    const before = api().requests.length;
    await sleep(1_500);
    expect(api().requests.slice(before).filter((r) => r.path === "/v1/messages")).toEqual([]);
    warm.sendMessage(ASK);
    await answered(warm, "FAKE-API: the word is zebra.");
    const asked = api().conversation(ASK);
    expect(asked).toHaveLength(1);
    expect(asked[0]?.sessionId).toBe(id);
    expect(userTexts(asked[0]?.messages ?? []).filter((t) => t !== "")).toEqual([REMEMBER, ASK]);
    expect(api().requests.filter((r) => r.path === "/v1/messages" && userTexts(r.messages).at(-1) === REMEMBER)).toHaveLength(1);

    expect(await stop(warm)).toBe(0);
    expect(warm.text).toContain(`claude --resume ${id}`);
    expect(sb.readPointer()).toMatchObject({ id, state: "confirmed", history: [] });
    expect(sb.asideFiles("rejected")).toEqual([]);
  });

  it("follows /clear to the new session (sessions/<pid>.json) and resumes that one after a restart", async () => {
    const sb = claudeSandbox();
    const cold = cleanup.driver(sb.sessionpin(run(sb, ["--prompt", REMEMBER], ["claude"])));
    await answered(cold, "FAKE-API: noted the word zebra.");
    const first = String(sb.readPointer()["id"]);
    await settled(cold);

    cold.sendMessage("/clear");
    const cleared = await waitUntil(() => {
      const pinned = String(sb.readPointer()["id"]);
      return pinned !== first ? pinned : undefined;
    }, "the pointer to follow /clear");
    expect(cleared).toMatch(UUID);
    expect(liveSession(sb)).toMatchObject({ sessionId: cleared });
    const followed = `claude now reports ${cleared} instead of ${first}: pointer follows, old ID kept in history`;
    await waitUntil(() => sb.readLog().includes(followed), "the log line of the follow");
    await settled(cold);
    cold.sendMessage("remember the word yak");
    await answered(cold, "FAKE-API: noted the word yak.");
    expect(api().conversation("remember the word yak").map((r) => r.sessionId)).toEqual([cleared]);
    await settled(cold);
    expect(await stop(cold)).toBe(0);
    expect(cold.text).toContain(`claude --resume ${cleared}`);
    const pointer = sb.readPointer();
    expect(pointer).toMatchObject({ id: cleared, state: "confirmed" });
    expect((pointer["history"] as Array<{ id: string }>).map((h) => h.id)).toEqual([first]);

    const warm = await warmStart(sb, cleared);
    warm.sendMessage(ASK);
    await answered(warm, "FAKE-API: the word is yak.");
    const asked = api().conversation(ASK);
    expect(asked.map((r) => r.sessionId)).toEqual([cleared]);
    // The cleared session starts after /clear: the zebra turn is not in it.
    expect(userTexts(asked[0]?.messages ?? []).join("\n")).not.toContain(REMEMBER);
    expect(await stop(warm)).toBe(0);
  });
});
