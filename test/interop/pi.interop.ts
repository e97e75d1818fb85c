/**
 * Real pi (@mariozechner/pi-coding-agent, on Node) through sessionpin at agentapi's 67x1190,
 * against the fake Chat Completions API (a provider in $HOME/.pi/agent/models.json, PI_OFFLINE=1).
 * The suite is the pi family's (pi-family-suite.ts); here is what is pi's own: one-shot runs
 * without -p, and messages pi takes for options.
 */
import { describe, expect, it } from "vitest";
import { piSessionDir } from "../../src/agents/pi.js";
import { oneShot } from "./headless.js";
import { firstThenFollowUp, sessionsByKey, startsOf } from "./keyed-sessions.js";
import { describeFamily } from "./pi-family-suite.js";
import { asked, KNOWN, MODEL, piEnv, REMEMBER, THREAD, writePiConfig } from "./pi-family-support.js";
import { jsonLines } from "./support.js";

const { api, VERSION, COMMAND: PI, sandbox: piSandbox, dirOf, BOUND_MS } = describeFamily({
  name: "pi",
  npmPackage: "@mariozechner/pi-coding-agent",
  version: (pinned) => pinned,
  // pi has no retry switch to turn off: the fallback window outlasts its retries.
  configure: (sb, baseUrl) => writePiConfig(sb, baseUrl),
  env: piEnv,
  sessionDir: piSessionDir,
  // 0.73.1's session file starts with the header.
  titleLine: false,
  stale: "01a2145e-bf00-73cb-b3e6-ed06bac459d9",
  refusal: (id) => `No session found matching '${id}'`,
  closedPort: { text: /^Connection error\.$/m, title: "`Connection error.`" },
  jsonRefusedExit: 0,
  // Keyed calls in text mode: the answer alone on stdout.
  headlessMode: [],
});

describe(`pi ${VERSION} one-shot runs of its own`, () => {
  it("`pi --mode json MSG` without -p is one-shot too (0.73.1 answers once in json mode): its follow-up resumes in json mode with the message", async () => {
    const sb = piSandbox();
    const { row, followUp: warm } = await firstThenFollowUp(sb, "thread-json", (message) => oneShot(sb, "thread-json", [...PI, "--mode", "json", message], { boundMs: BOUND_MS }));
    const id = String(row?.id);
    expect(startsOf(row)).toEqual([
      ["pi", "--session-dir", dirOf(sb), ...MODEL, "--mode", "json", THREAD[0]],
      [...PI, "--mode", "json", "--session-dir", dirOf(sb), "--session", id, THREAD[2]],
    ]);
    expect(jsonLines(warm.stdout)[0]).toMatchObject({ type: "session", id });
    const [request, ...more] = api().conversation(THREAD[2] ?? "");
    expect(more).toEqual([]);
    expect(asked(request)).toEqual([THREAD[0], THREAD[2]]);
    expect(request?.answer).toBe(KNOWN);
  }, BOUND_MS * 3);

  it("a message starting with `-` reaches a one-shot run in argv with one space in front (0.73.1 takes no such word as a message), never typed", async () => {
    const sb = piSandbox();
    const cold = await oneShot(sb, "thread-dash", [...PI, "-p", REMEMBER], { boundMs: BOUND_MS });
    expect(cold.code, cold.stderr).toBe(0);
    const dash = "-which word?";
    const warm = await oneShot(sb, "thread-dash", [...PI, "-p", REMEMBER], { boundMs: BOUND_MS, options: [`--resume-prompt=${dash}`] });
    expect(warm.code, warm.stderr).toBe(0);
    const row = sessionsByKey(sb).get("thread-dash");
    expect(startsOf(row)[1]).toEqual([...PI, "-p", "--session-dir", dirOf(sb), "--session", String(row?.id), ` ${dash}`]);
    // The model got it as pi's message (asked() trims the space away), with the earlier turn.
    const [request, ...more] = api().conversation(dash);
    expect(more).toEqual([]);
    expect(asked(request)).toEqual([REMEMBER, dash]);
    expect(request?.answer).toBe(KNOWN);
    expect(warm.stdout).toContain(KNOWN);
    expect(row).toMatchObject({ messages: 2 });
  }, BOUND_MS * 3);
});
