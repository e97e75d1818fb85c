/**
 * End to end through real PTYs: `sessionpin run -- omp …` against the fake omp on PATH
 * (fixtures/agents/omp), at agentapi's 67x1190: omp gets a session folder of its own, the json
 * header pins the ID and the session file confirms it, warm starts use `--session <id>` in that
 * folder, and an unknown session falls back.
 * Cold, warm, rejected and transient starts are the table in contract.test.ts; this file keeps
 * what it does not cover.
 */

import { readdirSync } from "node:fs";
import { afterEach, describe, expect, it } from "vitest";
import { ompSessionDir } from "../../src/agents/omp.js";
import type { Sandbox, FakeEvent } from "../helpers/sandbox.js";
import { Cleanup, cwdOf, exitOf, hasExited, pointerExists, PROMPT, runArgs, sleep, WAIT_MS, waitUntil } from "./support.js";

const cleanup = new Cleanup();
afterEach(() => cleanup.run());

const fakeEvents = (sb: Sandbox, event?: string): FakeEvent[] => sb.fakeEvents("omp", event);

describe("omp", () => {
  it("json mode in its own session folder: the header pins the ID, the session file confirms it; the TUI resumes it by ID", async () => {
    const sb = cleanup.sandbox({ FAKE_OMP_TURN_MS: "1500" });
    const dir = ompSessionDir({ home: sb.home, cwd: cwdOf(sb) });
    const cold = cleanup.driver(sb.sessionpin(runArgs(sb, ["--prompt", PROMPT], ["omp", "--mode", "json"])));
    await waitUntil(() => pointerExists(sb), "the pointer file");
    expect(await hasExited(cold)).toBe(false);
    const id = String(fakeEvents(sb, "session")[0]?.id);
    expect(sb.readPointer()).toMatchObject({ agent: "omp", id, state: "provisional", source: { rule: "session-header" } });
    expect((await exitOf(cold)).exitCode).toBe(0);
    expect(sb.fakeStarts("omp")).toEqual([["--session-dir", dir, "--mode", "json", PROMPT]]);
    expect(readdirSync(dir)).toEqual([expect.stringMatching(new RegExp(`^\\d{4}-\\d\\d-\\d\\dT[\\d-]+Z_${id}\\.jsonl$`))]);
    expect(sb.readPointer()).toMatchObject({ id, state: "confirmed", source: { rule: "session-file" } });

    const warm = cleanup.driver(sb.sessionpin(runArgs(sb, ["--prompt", PROMPT], ["omp", "--model", "sonnet"])));
    await warm.waitFor(/resumed \(1 messages\)/, WAIT_MS);
    expect(sb.fakeStarts("omp")[1]).toEqual(["--model", "sonnet", "--session-dir", dir, "--session", id]);
    await sleep(1_500);
    warm.sendMessage("And now the docs.");
    await warm.waitFor(/omp: noted \(2 messages in this session\)/, WAIT_MS);
    warm.write("\x03");
    expect((await exitOf(warm)).exitCode).toBe(0);
    expect(sb.fakeMessages("omp")).toEqual([[id, PROMPT], [id, "And now the docs."]]);
    expect(sb.readPointer()).toMatchObject({ id, state: "confirmed", history: [] });
  });

  it("interactive: the session file appearing in omp's folder captures the ID while omp runs", async () => {
    const sb = cleanup.sandbox();
    const driver = cleanup.driver(sb.sessionpin(runArgs(sb, ["--prompt", PROMPT], ["omp"])));
    await driver.waitFor(/omp: noted \(1 messages in this session\)/, WAIT_MS);
    await waitUntil(() => pointerExists(sb), "the pointer file");
    const id = String(fakeEvents(sb, "session")[0]?.id);
    expect(sb.readPointer()).toMatchObject({ id, state: "confirmed", source: { rule: "session-file" }, cwd: cwdOf(sb) });
    expect(await hasExited(driver)).toBe(false);
    driver.write("\x03");
    expect((await exitOf(driver)).exitCode).toBe(0);
  });
});
