/**
 * The real Claude Code, Codex and Gemini CLIs called by name through sessionpin's PATH shims
 * (issue 40): `sessionpin shim install claude codex gemini --dir <shims>` by the built CLI, the
 * shim folder first on PATH and the real CLIs' folder after it, then `claude …` as a CI script or
 * agentapi's start script types it. No `sessionpin run`, no --pointer: the pointer is the default
 * one of the folder. What the fake model API received (the earlier turn sent again, and so the
 * word "remembered") proves that a second start continued the first one's session; sessionpin's
 * own log is only shown when a test fails.
 */
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { PtyDriver } from "../../src/pty/driver.js";
import { Cleanup, exitOf, waitUntil, WAIT_MS } from "../e2e/support.js";
import { CLI, type Sandbox } from "../helpers/sandbox.js";
import { typeLikeAgentapi } from "./gemini-support.js";
import { AGENTS, bareEnv, callByName, confirmedPointer, logsOf, pointersOf, shimmedSandbox, stateDir, type Fake, type Shimmed } from "./shim-support.js";
import { fakeApiPerTest, onScreen, settled } from "./support.js";

const REMEMBER = "remember the word zebra";
const ASK = "which word?";
const NOTED = "FAKE-API: noted the word zebra.";
const RECALLED = "FAKE-API: the word is zebra.";
/** One real call or one wait on a loaded 2-core machine (a cold Gemini 0.61 takes 5–20 s). */
const SLOW = WAIT_MS * 4;

for (const agent of AGENTS) {
  describe(`${agent.label} ${agent.version} called by name through its shim`, () => {
    const cleanup = new Cleanup();
    const fake = fakeApiPerTest(cleanup, () => agent.start());
    const sandboxes: Sandbox[] = [];
    // A failed test shows what sessionpin logged and what the fake API received.
    afterEach((context) => {
      if (context.task.result?.state === "fail") {
        for (const sb of sandboxes) console.log(`sessionpin logs of ${sb.dir}:\n${logsOf(sb)}`);
        console.log(`fake API: ${fake().count()} requests; turns ending with ${JSON.stringify(REMEMBER)}: ${JSON.stringify(fake().turnsEndingWith(REMEMBER))}; with ${JSON.stringify(ASK)}: ${JSON.stringify(fake().turnsEndingWith(ASK))}`);
      }
      sandboxes.length = 0;
    });

    function sandbox(tui: boolean): Shimmed {
      const shimmed = shimmedSandbox(cleanup);
      sandboxes.push(shimmed.sb);
      agent.prepare(shimmed.sb, fake(), tui);
      return shimmed;
    }

    /** The one request that asked `message`, checked to carry `turns` and to get `answer`. */
    function turnOf(api: Fake, message: string, turns: readonly string[], answer: string) {
      const [turn, ...more] = api.turnsEndingWith(message);
      expect(more, `${message} reached the API more than once`).toEqual([]);
      expect(turn?.asked).toEqual(turns);
      expect(turn?.answer).toBe(answer);
      return turn;
    }

    it(`one-shot: \`${agent.oneShot("…").join(" ")}\` twice by name; the second request carries the first turn`, async () => {
      const t0 = Date.now();
      const { sb } = sandbox(false);
      const first = await callByName(sb, agent.oneShot(REMEMBER), SLOW);
      expect(first.code, first.stderr).toBe(0);
      expect(first.stdout).toContain(NOTED);
      const cold = turnOf(fake(), REMEMBER, [REMEMBER], NOTED);
      // The shim ran it through sessionpin: the folder's default pointer names a session.
      expect(pointersOf(sb, agent.name)).toHaveLength(1);

      // The same script's next step: a new message, the same command line otherwise.
      const second = await callByName(sb, agent.oneShot(ASK), SLOW);
      expect(second.code, second.stderr).toBe(0);
      expect(second.stdout).toContain(RECALLED);
      const resumed = turnOf(fake(), ASK, [REMEMBER, ASK], RECALLED);
      // Claude and Codex name their session in every request: the same one.
      if (cold?.session !== undefined) expect(resumed?.session).toBe(cold.session);
      // The first message was not sent again as a turn of its own.
      expect(fake().turnsEndingWith(REMEMBER)).toHaveLength(1);
      console.log(`${agent.name} shimmed one-shot: ${first.ms} ms, then ${second.ms} ms; test ${Date.now() - t0} ms`);
    }, 2 * SLOW + WAIT_MS);

    it(`interactive: \`${agent.name}\` by name in agentapi's PTY, a message typed, SIGINT, \`${agent.name}\` again: the follow-up's request carries the first turn`, async () => {
      const t0 = Date.now();
      const { sb } = sandbox(true);
      /** agentapi's start: the agent by name in a 67x1190 PTY with TERM=vt100, typed to once its screen is still. */
      const start = async (): Promise<PtyDriver> => {
        const driver = cleanup.driver(sb.direct([agent.name]));
        await driver.waitFor(agent.ready, SLOW);
        await settled(driver, 2_000, SLOW);
        return driver;
      };
      /** agentapi's shutdown: SIGINT to the process it started (the shim execs sessionpin, which forwards it). */
      const stop = async (driver: PtyDriver): Promise<number> => {
        driver.kill("SIGINT");
        return (await exitOf(driver, WAIT_MS * 2)).exitCode;
      };

      const cold = await start();
      await typeLikeAgentapi(cold, REMEMBER);
      await cold.waitFor(onScreen(NOTED), SLOW);
      const first = turnOf(fake(), REMEMBER, [REMEMBER], NOTED);
      // agentapi stops a workspace whenever; here once sessionpin has the session from the agent's own store.
      await waitUntil(() => confirmedPointer(sb, agent.name), "the pointer to be confirmed", SLOW);
      await settled(cold);
      expect(await stop(cold)).toBe(agent.sigintExit);
      const coldMs = Date.now() - t0;

      const warm = await start();
      await typeLikeAgentapi(warm, ASK);
      await warm.waitFor(onScreen(RECALLED), SLOW);
      const resumed = turnOf(fake(), ASK, [REMEMBER, ASK], RECALLED);
      if (first?.session !== undefined) expect(resumed?.session).toBe(first.session);
      // The restart typed nothing of its own: the first message reached the API once.
      expect(fake().turnsEndingWith(REMEMBER)).toHaveLength(1);
      await settled(warm);
      expect(await stop(warm)).toBe(agent.sigintExit);
      console.log(`${agent.name} shimmed interactive: cold run ${coldMs} ms; test ${Date.now() - t0} ms`);
    }, 2 * SLOW + 2 * WAIT_MS);

    it(`\`${agent.name} --version\` through the shim is the bare one's: the same stdout, stderr and exit code, and no pointer`, () => {
      const t0 = Date.now();
      const shimmed = sandbox(false);
      const { sb, shims, real } = shimmed;
      // The shim runs the next `${agent.name}` on PATH after its own folder: the real one.
      const listed = spawnSync(process.execPath, [CLI, "shim", "list", "--json", "--dir", shims], { cwd: sb.dir, env: sb.env, encoding: "utf8", timeout: WAIT_MS });
      expect((JSON.parse(listed.stdout) as { shims: Array<{ name: string; real: string | null }> }).shims.find((s) => s.name === agent.name)?.real).toBe(join(real, agent.name));

      // latin1: one character per byte, so equal strings are equal bytes.
      const version = (env: NodeJS.ProcessEnv) => spawnSync(agent.name, ["--version"], { cwd: sb.dir, env, encoding: "latin1", timeout: SLOW });
      const bare = version(bareEnv(shimmed));
      const shim = version(sb.env);
      expect(bare.error).toBeUndefined();
      expect(shim.error).toBeUndefined();
      expect(bare.stdout).toContain(agent.version);
      expect({ stdout: shim.stdout, stderr: shim.stderr, status: shim.status, signal: shim.signal }).toEqual({ stdout: bare.stdout, stderr: bare.stderr, status: bare.status, signal: bare.signal });
      expect(bare.status).toBe(0);
      // Straight to the agent: sessionpin wrote no pointer, no log, not even its state folder.
      expect(existsSync(stateDir(sb))).toBe(false);
      console.log(`${agent.name} --version: bare ${JSON.stringify(bare.stdout)} (stderr ${bare.stderr.length} bytes); test ${Date.now() - t0} ms`);
    }, 3 * WAIT_MS);
  });
}
