/**
 * The resume contract, one table over every agent with session IDs, end to end through real PTYs
 * against the fake agents on PATH (fixtures/agents), at agentapi's 67x1190:
 * - cold: the agent starts as the row says, gets the prompt once, and the ID it used is pinned;
 * - warm: the pinned ID is resumed with the row's argv, the prompt is never sent again;
 * - rejected: the agent refuses a stored ID, which is set aside, and a fresh session gets the
 *   prompt in the same run, the old ID kept in history;
 * - transient: a warm start that fails for a reason the plugin says is not about the ID keeps the
 *   pointer (the agent here is a stand-in on PATH that prints that reason and exits 1).
 * Assertions are on the pointer file, what the fake agents logged and the pin events sessionpin
 * posts to --notify, not on sessionpin's log. What only one agent does lives in its own file.
 */
import { randomUUID } from "node:crypto";
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { delimiter, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it, type TestContext } from "vitest";
import { ompSessionDir } from "../../src/agents/omp.js";
import { agents } from "../../src/agents/registry.js";
import type { PtyDriver } from "../../src/pty/driver.js";
import { FAKE_AGENTS, type Sandbox } from "../helpers/sandbox.js";
import { Cleanup, cwdOf, eventsOf, exitOf, newThreadId, PROMPT, readBeside, runArgs, sleep, waitUntil, writePointerByHand } from "./support.js";

interface Row {
  /** The plugin, as the pointer names it. */
  readonly agent: string;
  /** The interactive invocation, cold and warm alike. */
  readonly command: readonly string[];
  /** Every start a cold run makes, given the ID it pinned (matchers where sessionpin picks a name). */
  readonly cold: (id: string, sb: Sandbox) => unknown[];
  /** The warm start's arguments. */
  readonly warm: (id: string, sb: Sandbox) => string[];
  /** An ID of the agent's grammar that no session has. */
  readonly stale: () => string;
  /**
   * What the fake prints when it refuses `id`. Cursor documents no text, only an early non-zero
   * exit, and its fake opens a new chat instead: a stand-in on PATH refuses the ID for it.
   */
  readonly rejection: ((id: string) => string) | "early exit";
  /** A failure the plugin keeps the pointer for; none: a failure after the fallback window. */
  readonly transient: string | undefined;
  /** The pointer's state once a cold session ended. */
  readonly coldState?: "provisional" | "confirmed";
  /** How the session is ended: keys typed, or SIGINT as agentapi sends it; and the exit code then. */
  readonly stop?: string;
  readonly stopCode?: number;
  /** The fake's events file (.fake-<name>-events.jsonl); Amp's fake logs elsewhere. */
  readonly fake?: string;
}

const GOOSE_NAME = expect.stringMatching(/^sessionpin-[0-9a-f-]{36}$/) as unknown;

const ROWS: readonly Row[] = [
  {
    agent: "amp", command: ["amp", "--mode", "smart"],
    cold: (id) => [["--mode", "smart", "threads", "new"], ["--mode", "smart", "threads", "continue", id]],
    warm: (id) => ["--mode", "smart", "threads", "continue", id],
    stale: newThreadId, rejection: (id) => `Error: Thread ${id} does not exist.`,
    transient: "Error: Cannot reach Amp servers. Are you offline?",
  },
  {
    agent: "auggie", fake: "auggie", command: ["auggie", "--model", "sonnet4.5", "--workspace-root", "/w"], stop: "SIGINT",
    cold: () => [["--model", "sonnet4.5", "--workspace-root", "/w", "--instruction", PROMPT]],
    warm: (id) => ["--model", "sonnet4.5", "--workspace-root", "/w", "--resume", id],
    stale: randomUUID, rejection: (id) => `No session found matching '${id}'`,
    transient: "Warning: fetch failed (ECONNREFUSED: connect ECONNREFUSED 127.0.0.1:9)",
  },
  {
    agent: "claude", fake: "claude", command: ["claude", "--model", "sonnet"],
    cold: (id) => [["--session-id", id, "--model", "sonnet", "--", PROMPT]],
    warm: (id) => ["--model", "sonnet", "--resume", id],
    stale: randomUUID, rejection: (id) => `No conversation found with session ID: ${id}`,
    transient: "Not logged in · Please run /login",
  },
  {
    agent: "codex", fake: "codex", command: ["codex", "-m", "o3"],
    cold: () => [["-m", "o3", PROMPT]],
    warm: (id) => ["-m", "o3", "resume", id],
    stale: randomUUID, rejection: (id) => `ERROR: No saved session found with ID ${id}.`,
    transient: "Error: No prompt provided. Either specify one as an argument or pipe the prompt into stdin.",
  },
  {
    agent: "copilot", fake: "copilot", command: ["copilot", "--model", "gpt-5"],
    cold: (id) => [["--model", "gpt-5", `--session-id=${id}`]],
    warm: (id) => ["--model", "gpt-5", `--resume=${id}`],
    stale: randomUUID, rejection: (id) => `Error: No session, task, or name matched '${id}'.`,
    transient: "Error: No authentication information found.",
  },
  {
    agent: "cursor", fake: "cursor", command: ["cursor-agent", "--model", "gpt-5"],
    cold: () => [["--model", "gpt-5", PROMPT]],
    warm: (id) => ["--model", "gpt-5", `--resume=${id}`],
    stale: randomUUID, rejection: "early exit",
    transient: "Error: Authentication required. Please run 'agent login' first, or set CURSOR_API_KEY environment variable.",
  },
  {
    agent: "gemini", fake: "gemini", command: ["gemini", "-m", "flash"], stop: "\x03\x03",
    cold: (id) => [["-m", "flash", `--prompt-interactive=${PROMPT}`, "--session-id", id]],
    warm: (id) => ["-m", "flash", "--resume", id],
    // No session at all in the folder yet: 0.61 says so rather than that the ID is unknown.
    stale: randomUUID, rejection: () => "Error resuming session: No previous sessions found for this project.",
    transient: "Invalid auth method selected.",
  },
  {
    agent: "goose", fake: "goose", command: ["goose", "session"], coldState: "provisional",
    // Named up front; goose's own ID, from its banner, then replaces the name.
    cold: () => [["session", "-n", GOOSE_NAME]],
    warm: (id) => ["session", "-r", "--session-id", id],
    stale: () => "20990101_7", rejection: (id) => `error: Cannot resume session ${id} - no such session exists`,
    transient: "No provider configured. Run 'goose configure' first.",
  },
  {
    agent: "kiro", fake: "kiro", command: ["kiro-cli", "chat", "--agent", "dev", "--trust-all-tools"],
    cold: () => [["chat", "--agent", "dev", "--trust-all-tools"]],
    warm: (id) => ["chat", "--agent", "dev", "--trust-all-tools", "--resume-id", id],
    // Kiro falls back to a new session by itself; sessionpin stops it and starts one with the task.
    stale: randomUUID, rejection: () => "No saved sessions found for this directory. Starting new session.",
    transient: undefined,
  },
  {
    agent: "omp", fake: "omp", command: ["omp"],
    cold: (_, sb) => [["--session-dir", ompDir(sb), PROMPT]],
    warm: (id, sb) => ["--session-dir", ompDir(sb), "--session", id],
    stale: randomUUID, rejection: (id) => `Session "${id}" not found.`,
    transient: "401 fake chat API: refused",
  },
  {
    agent: "opencode", fake: "opencode", command: ["opencode"],
    cold: () => [["--prompt", PROMPT]],
    warm: (id) => ["-s", id],
    stale: () => "ses_494719016ffe85dkDMj0FPRbHK", rejection: (id) => `Session not found: ${id}`,
    transient: "Error: Cannot connect to API: Unable to connect. Is the computer able to access the url?",
  },
  {
    agent: "qwen", fake: "qwen", command: ["qwen", "--model", "fake"], stop: "SIGINT", stopCode: 130,
    cold: (id) => [["--session-id", id, "--model", "fake", "-i", PROMPT]],
    warm: (id) => ["--model", "fake", "--resume", id],
    stale: randomUUID, rejection: (id) => `No saved session found with ID ${id}.`,
    transient: "[API Error: Connection error. (cause: fetch failed)]",
  },
];

function ompDir(sb: Sandbox): string {
  return ompSessionDir({ home: sb.home, cwd: cwdOf(sb) });
}

/** A cleanup of this test's own: the rows' cases run side by side. */
function cleanupOf(context: TestContext): Cleanup {
  const cleanup = new Cleanup();
  context.onTestFinished(() => cleanup.run());
  return cleanup;
}

/** The pin events sessionpin posts (--notify), for every sandbox of this file. */
interface PinEvent {
  readonly kind: "captured" | "confirmed" | "resumed" | "rejected" | "changed";
  readonly id: string;
  readonly pointer: string;
}
const posted: PinEvent[] = [];
let hook = "";
let server: Server | undefined;
beforeAll(async () => {
  server = createServer((req, res) => {
    let body = "";
    req.on("data", (chunk: Buffer) => (body += chunk.toString()));
    req.on("end", () => {
      posted.push(JSON.parse(body) as PinEvent);
      res.end("ok");
    });
  });
  await new Promise<void>((resolve) => server?.listen(0, "127.0.0.1", resolve));
  hook = `http://127.0.0.1:${(server.address() as AddressInfo).port}/pins`;
});
afterAll(async () => {
  server?.closeAllConnections();
  await new Promise((resolve) => server?.close(resolve));
});

/** The pin events of this sandbox's pointer, as [kind, id]. */
const pins = (sb: Sandbox): Array<[string, string]> => posted.filter((e) => e.pointer === sb.pointer).map((e) => [e.kind, e.id]);

/** Every start of the row's fake agent, in order. */
function starts(sb: Sandbox, row: Row): string[][] {
  return row.fake === undefined ? eventsOf(sb, "start").map((e) => e.argv) : sb.fakeStarts(row.fake);
}

/** Every message the fake received, as [its session, the text]. */
function messages(sb: Sandbox, row: Row): Array<[unknown, unknown]> {
  return row.fake === undefined ? eventsOf(sb, "message").map((e) => [e["thread"], e["text"]]) : sb.fakeMessages(row.fake);
}

function run(cleanup: Cleanup, sb: Sandbox, row: Row, env: NodeJS.ProcessEnv = {}, options: readonly string[] = []): PtyDriver {
  return cleanup.driver(sb.sessionpin(runArgs(sb, ["--prompt", PROMPT, "--notify", hook, ...options], row.command), { env: { ...sb.env, ...env } }));
}

async function stop(driver: PtyDriver, row: Row): Promise<number> {
  if (row.stop === "SIGINT") driver.kill("SIGINT");
  else driver.write(row.stop ?? "\x03");
  return (await exitOf(driver)).exitCode;
}

/** A cold start, ended once the prompt reached the agent; the pinned ID. */
async function cold(cleanup: Cleanup, sb: Sandbox, row: Row): Promise<string> {
  const driver = run(cleanup, sb, row);
  await waitUntil(() => messages(sb, row).length === 1, "the prompt to reach the agent");
  expect(await stop(driver, row)).toBe(row.stopCode ?? 0);
  return String(sb.readPointer()["id"]);
}

/**
 * Stands in for the agent on PATH: a start that names `id` logs its arguments, prints `text` and
 * exits 1 (after `delayMs`); any other start runs the fake agent.
 */
function failingAgent(sb: Sandbox, row: Row, id: string, text: string, delayMs: number): { env: NodeJS.ProcessEnv; argv: () => unknown } {
  const bin = join(sb.dir, "failing-bin");
  const log = join(sb.dir, "failing-argv.json");
  mkdirSync(bin, { recursive: true });
  const script = join(bin, String(row.command[0]));
  writeFileSync(script, `#!/usr/bin/env node
const argv = process.argv.slice(2);
if (argv.some((arg) => arg.includes(${JSON.stringify(id)}))) {
  require("node:fs").writeFileSync(${JSON.stringify(log)}, JSON.stringify(argv));
  process.stderr.write(${JSON.stringify(`${text}\n`)});
  setTimeout(() => process.exit(1), ${delayMs});
} else {
  // The terminal's Ctrl-C is the fake's to handle.
  process.on("SIGINT", () => {});
  const run = require("node:child_process").spawnSync(${JSON.stringify(join(FAKE_AGENTS, String(row.command[0])))}, argv, { stdio: "inherit" });
  process.exit(run.status ?? 1);
}
`);
  chmodSync(script, 0o755);
  return { env: { PATH: `${bin}${delimiter}${sb.env["PATH"] ?? ""}` }, argv: () => JSON.parse(readFileSync(log, "utf8")) as unknown };
}

// Each case waits on PTYs and processes far more than it computes: the rows run side by side.
describe.concurrent.each(ROWS)("$agent", (row) => {
  it("cold: starts as given, delivers the prompt once and pins the ID the agent used", async (context) => {
    const cleanup = cleanupOf(context);
    const sb = cleanup.sandbox();
    const id = await cold(cleanup, sb, row);
    expect(messages(sb, row)).toEqual([[id, PROMPT]]);
    expect(starts(sb, row)).toEqual(row.cold(id, sb));
    expect(sb.readPointer()).toMatchObject({ version: 1, agent: row.agent, id, state: row.coldState ?? "confirmed", cwd: cwdOf(sb) });
    await waitUntil(() => pins(sb).at(-1)?.[1] === id, "the pin event of the ID");
    expect(pins(sb)[0]?.[0]).toBe("captured");
    expect(pins(sb).map(([kind]) => kind)).not.toContain("rejected");
  });

  it("warm: resumes the pinned ID and never sends the prompt again", async (context) => {
    const cleanup = cleanupOf(context);
    const sb = cleanup.sandbox();
    const id = await cold(cleanup, sb, row);
    const before = starts(sb, row).length;
    const coldPins = pins(sb).length;
    const pinned = sb.readPointer();
    const driver = run(cleanup, sb, row);
    await waitUntil(() => starts(sb, row).length > before, "the warm start");
    // The prompt would be typed after 0.3 s of quiet.
    await sleep(1_000);
    expect(await stop(driver, row)).toBe(row.stopCode ?? 0);
    expect(starts(sb, row).slice(before)).toEqual([row.warm(id, sb)]);
    expect(messages(sb, row)).toEqual([[id, PROMPT]]);
    expect(sb.readPointer()).toMatchObject({ agent: row.agent, id, history: pinned["history"] });
    expect(sb.asideFiles("rejected")).toEqual([]);
    await waitUntil(() => pins(sb).length > coldPins, "the resumed event");
    expect(pins(sb).slice(coldPins)[0]).toEqual(["resumed", id]);
    expect(pins(sb).slice(coldPins).map(([kind]) => kind)).not.toContain("rejected");
  });

  it("rejected: the refused ID is set aside and a fresh session gets the prompt in the same run", async (context) => {
    const cleanup = cleanupOf(context);
    const sb = cleanup.sandbox();
    const stale = row.stale();
    const old = writePointerByHand(sb, { agent: row.agent, id: stale, source: { rule: "by-hand" } });
    const refusing = row.rejection === "early exit" ? failingAgent(sb, row, stale, "", 0) : undefined;
    const driver = run(cleanup, sb, row, refusing?.env);
    await waitUntil(() => messages(sb, row).length === 1, "the prompt to reach the fresh session");
    await waitUntil(() => sb.readPointer()["id"] !== stale, "the fresh session's pin");
    expect(await stop(driver, row)).toBe(row.stopCode ?? 0);
    if (refusing !== undefined) expect(refusing.argv()).toEqual(row.warm(stale, sb));
    else if (row.rejection !== "early exit") expect(driver.text).toContain(row.rejection(stale));
    const pointer = sb.readPointer();
    const id = String(pointer["id"]);
    expect(messages(sb, row)).toEqual([[id, PROMPT]]);
    expect(starts(sb, row)).toEqual([...(refusing === undefined ? [row.warm(stale, sb)] : []), ...row.cold(id, sb)]);
    expect(pointer["history"]).toEqual(expect.arrayContaining([expect.objectContaining({ id: stale, reason: expect.stringMatching(/^rejected: /) as unknown })]));
    const aside = sb.asideFiles("rejected");
    expect(aside).toHaveLength(1);
    expect(aside[0]).toMatch(/^pointer\.rejected-\d{8}T\d{6}Z\.json$/);
    expect(JSON.parse(readBeside(sb, aside[0] as string))).toEqual(old);
    await waitUntil(() => pins(sb).at(-1)?.[1] === id, "the fresh session's pin event");
    expect(pins(sb).slice(0, 2)).toEqual([["resumed", stale], ["rejected", stale]]);
    expect(pins(sb)[2]?.[0]).toBe("captured");
  });

  it(`transient: a warm start that fails ${row.transient === undefined ? "after the fallback window" : "for a reason not about the ID"} keeps the pointer`, async (context) => {
    const cleanup = cleanupOf(context);
    const sb = cleanup.sandbox();
    const stale = row.stale();
    const before = writePointerByHand(sb, { agent: row.agent, id: stale, source: { rule: "by-hand" } });
    const failing = row.transient === undefined ? failingAgent(sb, row, stale, "error: something else went wrong", 600) : failingAgent(sb, row, stale, row.transient, 0);
    const driver = run(cleanup, sb, row, failing.env, row.transient === undefined ? ["--fallback-window", "0.2"] : []);
    expect((await exitOf(driver)).exitCode).toBe(1);
    expect(failing.argv()).toEqual(row.warm(String(before["id"]), sb));
    expect(sb.readPointer()).toEqual(before);
    expect(sb.asideFiles("rejected")).toEqual([]);
    await waitUntil(() => pins(sb).length > 0, "the resumed event");
    expect(pins(sb)).toEqual([["resumed", before["id"]]]);
  });
});

// Agents without session IDs (Q, Aider) have nothing to resume; Pi has no fake here and is
// proven against the real CLI (test/interop/pi.interop.ts).
const WITHOUT_FAKE = ["pi"];

it("the table has a row for every built-in agent with session IDs and a fake", () => {
  const pinnable = Object.values(agents).filter((plugin) => plugin.grammar.source !== "^(?:(?!))$").map((plugin) => plugin.name);
  expect([...ROWS.map((row) => row.agent), ...WITHOUT_FAKE].sort()).toEqual(pinnable.sort());
});
