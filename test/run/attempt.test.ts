/**
 * The live loop of one attempt, with a fake agent and the manual clock: no PTY, no sleeping.
 * Real-PTY behaviour (bytes, signals, exit codes through a terminal) is proven in test/e2e.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { Extractor } from "../../src/engine/extract.js";
import { claude } from "../../src/agents/claude.js";
import type { AgentPlugin } from "../../src/agents/types.js";
import { omp, ompSessionDir } from "../../src/agents/omp.js";
import { SessionTracker, type PinEvent } from "../../src/engine/tracker.js";
import type { Logger } from "../../src/log/logger.js";
import { runAttempt, type AttemptOptions } from "../../src/run/attempt.js";
import type { Capturing, Warm } from "../../src/run/options.js";
import { ManualClock } from "../helpers/clock.js";
import { FakeScreen, FakeSpawner } from "../helpers/fake-pty.js";

const ID = "0f3c2a9e-5b7d-4e21-9c4a-8d6f1e2b3a40";
const lines: string[] = [];
const log: Logger = { info: (m) => void lines.push(m), warn: (m) => void lines.push(m), close: () => undefined };

const relay = { attach: () => undefined, detach: () => undefined, stopRequested: undefined };
// A warm start on a terminal: input passes, stdout is not held.
const WARM: Warm = { fallbackWindowMs: 10_000, dropInput: false, holdStdout: false };

const captureOf = (plugin: AgentPlugin): Capturing => ({
  extractor: new Extractor(plugin, new SessionTracker({ id: ID, state: "confirmed", rule: "transcript" }), 67),
  onPin: () => undefined,
  context: { home: "/nonexistent-home", cwd: "/w", env: {} },
});

function attempt(extra: Partial<AttemptOptions> = {}) {
  const clock = new ManualClock();
  const spawner = new FakeSpawner();
  const screen = new FakeScreen();
  const pins: PinEvent[] = [];
  const options: AttemptOptions = {
    launch: { argv: ["claude", "--resume", ID], cwd: "/w", env: {} },
    wiring: { terminal: screen, spawn: spawner.spawn, relay, onSpawn: () => undefined },
    report: { log },
    time: { clock },
    capture: {
      extractor: new Extractor(claude, new SessionTracker({ id: ID, state: "confirmed", rule: "transcript" }), 67),
      onPin: (event) => void pins.push(event),
      context: { home: "/nonexistent-home", cwd: "/w", env: {} },
    },
    ...extra,
  };
  const outcome = runAttempt(options);
  return { clock, agent: spawner.last, screen, pins, outcome };
}

describe("one attempt, live loop", () => {
  it("reads rows a TUI ended with cursor moves or a CR with the read that ended them, while the agent waits", async () => {
    const { clock, agent, pins, outcome } = attempt();
    const other = "1b2c3d4e-5f60-4718-8293-a4b5c6d7e8f9";
    agent.print(`banner\r\n\x1b[3;1HSession ID: ${other}\x1b[5;1H> `);
    expect(pins).toEqual([expect.objectContaining({ kind: "changed", pinned: expect.objectContaining({ id: other }) })]);
    const third = "2c3d4e5f-6071-4829-93a4-b5c6d7e8f9a0";
    agent.print(`\x1b[2K\rSession ID: ${third}\r`);
    expect(pins.at(-1)).toEqual(expect.objectContaining({ kind: "changed", pinned: expect.objectContaining({ id: third }) }));
    agent.end(0);
    await outcome;
    expect(clock.pending).toBe(0);
  });

  it("passes output to the screen first and pauses the agent when the screen pushes back", async () => {
    const { agent, screen, outcome } = attempt();
    agent.print("hello\r\n");
    expect(Buffer.concat(screen.shown).toString()).toBe("hello\r\n");
    screen.full = true;
    agent.print("more");
    expect(agent.paused).toBe(true);
    agent.end(0);
    expect((await outcome).status).toEqual({ exitCode: 0, signal: 0 });
  });

  it("a rejection inside the fallback window stops the agent: SIGTERM, then SIGKILL after the grace period", async () => {
    const { clock, agent, outcome } = attempt({ warm: WARM });
    clock.advance(1_000);
    agent.print(`No conversation found with session ID: ${ID}\r\n`);
    expect(agent.signals).toEqual(["SIGTERM"]);
    clock.advance(2_999);
    expect(agent.signals).toEqual(["SIGTERM"]);
    clock.advance(1);
    expect(agent.signals).toEqual(["SIGTERM", "SIGKILL"]);
    agent.end(0, 9);
    expect((await outcome).rejected).toContain("No conversation found");
  });

  it("the same text after the window, or after a turn was typed, rejects nothing", async () => {
    const late = attempt({ warm: WARM });
    late.clock.advance(10_000);
    late.agent.print(`No conversation found with session ID: ${ID}\r\n`);
    late.agent.end(1);
    expect(await late.outcome).not.toHaveProperty("rejected");
    expect(late.agent.signals).toEqual([]);
  });

  it("a non-zero exit inside the window rejects an agent whose words for it are unknown; a transient text before it keeps the ID", async () => {
    const unsaid = { ...claude, saysRejected: false };
    const failed = attempt({ warm: WARM, capture: captureOf(unsaid) });
    failed.clock.advance(500);
    failed.agent.end(1);
    expect((await failed.outcome).rejected).toMatch(/exited with 1 after 500 ms, within the 10000 ms fallback window/);

    // Claude says when it has no such conversation: an exit without those words keeps the ID.
    const said = attempt({ warm: WARM });
    said.agent.print("API Error: 400 {\"type\":\"error\",\"error\":{\"type\":\"invalid_request_error\"}}\r\n");
    said.clock.advance(500);
    said.agent.end(1);
    expect(await said.outcome).not.toHaveProperty("rejected");

    // One of claude's transient texts: the failure says nothing about the session.
    const noPrompt = attempt({ warm: WARM });
    noPrompt.agent.print("Error: Provide a prompt to continue the conversation.\r\n");
    noPrompt.agent.end(1);
    expect(await noPrompt.outcome).not.toHaveProperty("rejected");
  });

  it("a warm one-shot run's stdout is held until the agent shows a session, and a rejected one's goes to stderr", async () => {
    const held = { ...WARM, holdStdout: true };
    const shown = (screen: FakeScreen): string => Buffer.concat(screen.shown).toString();
    const answered = attempt({ warm: held });
    answered.screen.streamsApart = true;
    answered.agent.print("thinking\n");
    answered.agent.print("warning\n", "stderr");
    expect(shown(answered.screen)).toBe("");
    expect(Buffer.concat(answered.screen.stderr).toString()).toBe("warning\n");
    const other = "1b2c3d4e-5f60-4718-8293-a4b5c6d7e8f9";
    answered.agent.print(`Session ID: ${other}\n`);
    expect(shown(answered.screen)).toBe(`thinking\nSession ID: ${other}\n`);
    answered.agent.end(0);
    expect(await answered.outcome).not.toHaveProperty("rejected");

    const refused = attempt({ warm: held });
    refused.screen.streamsApart = true;
    refused.agent.print(`No conversation found with session ID: ${ID}\n`);
    refused.agent.end(1);
    expect((await refused.outcome).rejected).toContain("No conversation found");
    expect(shown(refused.screen)).toBe("");
    expect(Buffer.concat(refused.screen.stderr).toString()).toBe(`No conversation found with session ID: ${ID}\n`);
    expect(refused.clock.pending).toBe(0);
  });

  it("held stdout goes out once the fallback window has passed", async () => {
    const { clock, agent, screen, outcome } = attempt({ warm: { ...WARM, holdStdout: true } });
    screen.streamsApart = true;
    agent.print("answer\n");
    clock.advance(9_999);
    expect(screen.shown).toEqual([]);
    clock.advance(1);
    expect(Buffer.concat(screen.shown).toString()).toBe("answer\n");
    agent.end(0);
    expect(await outcome).not.toHaveProperty("rejected");
  });

  it("types the prompt once, after the output went quiet, as a bracketed paste then Enter", async () => {
    const { clock, agent, outcome } = attempt({ prompt: { text: "fix the build", quietMs: 300, maxWaitMs: 20_000 } });
    agent.print("welcome\r\n");
    clock.advance(299);
    expect(agent.typed).toEqual([]);
    agent.print("> ");
    clock.advance(299);
    expect(agent.typed).toEqual([]);
    clock.advance(1);
    expect(agent.typed).toEqual(["\x1b[200~fix the build\x1b[201~"]);
    agent.print("fix the build");
    clock.advance(300);
    clock.advance(60_000);
    expect(agent.typed).toEqual(["\x1b[200~fix the build\x1b[201~", "\r"]);
    agent.end(0);
    await outcome;
  });

  it("a prompt waits at most maxWaitMs for a screen that never goes quiet", async () => {
    const { clock, agent, outcome } = attempt({ prompt: { text: "go", quietMs: 300, maxWaitMs: 2_000 } });
    for (let t = 0; t < 1_900; t += 100) {
      agent.print(".");
      clock.advance(100);
    }
    expect(agent.typed).toEqual([]);
    clock.advance(100);
    expect(agent.typed[0]).toBe("\x1b[200~go\x1b[201~");
    agent.end(0);
    await outcome;
  });

  it("a session file the agent writes as it starts is its session, even when it was written before the store was first looked at", async () => {
    const home = mkdtempSync(join(tmpdir(), "sessionpin-attempt-"));
    try {
      const context = { home, cwd: "/w", env: {} };
      const dir = ompSessionDir(context);
      mkdirSync(dir, { recursive: true });
      const session = (id: string) => writeFileSync(join(dir, `2026-11-27T03-30-59-000Z_${id}.jsonl`), `${JSON.stringify({ type: "session", version: 3, id, cwd: "/w" })}\n`);
      session("a1b2c3d4-0000-4000-8000-000000000001"); // an earlier run's
      const spawner = new FakeSpawner();
      const pins: PinEvent[] = [];
      const outcome = runAttempt({
        launch: { argv: ["omp", "hello"], cwd: "/w", env: {} },
        wiring: {
          terminal: new FakeScreen(),
          // The agent is quicker than sessionpin: its file is there when spawn returns.
          spawn: (argv) => {
            session(ID);
            return spawner.spawn(argv);
          },
          relay, onSpawn: () => undefined,
        },
        report: { log },
        time: { clock: new ManualClock() },
        capture: { extractor: new Extractor(omp, new SessionTracker(), 67), onPin: (event) => void pins.push(event), context },
      });
      spawner.last.end(0);
      await outcome;
      expect(pins.map((event) => event.pinned.id)).toEqual([ID]);
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });
});
