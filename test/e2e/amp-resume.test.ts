/**
 * End to end through real PTYs: `sessionpin run -- amp …` against the fake Amp on PATH, the way
 * agentapi drives it (67x1190, TERM=vt100). Cold start pins, warm start resumes, a rejected ID
 * falls back to a fresh thread, offline failures keep the pointer.
 * Cold, warm, rejected and transient starts are the table in contract.test.ts; this file keeps
 * what it does not cover.
 */
import { mkdirSync, readdirSync, readFileSync, renameSync, statSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { FAKE_AGENTS } from "../helpers/sandbox.js";
import {
  Cleanup, cli, coldStart, cwdOf, eventsOf, exitOf, hasExited, messages, newThreadId, pointerExists, QUIET,
  runArgs, sleep, waitUntil, WAIT_MS, writePointerByHand,
} from "./support.js";

const cleanup = new Cleanup();
afterEach(() => cleanup.run());

const PROMPT = "Fix the failing build, then run the tests.";

describe("cold interactive start", () => {
  it("creates the thread up front, pins it while the agent runs, and types the prompt exactly once", async () => {
    const sb = cleanup.sandbox();
    const driver = cleanup.driver(sb.sessionpin(runArgs(sb, ["--prompt", PROMPT], ["amp", "--mode", "smart"])));

    // The pointer must land while the agent is still running, not at exit.
    await waitUntil(() => pointerExists(sb), "the pointer file");
    expect(await hasExited(driver)).toBe(false);
    const pointer = sb.readPointer();

    const created = eventsOf(sb, "thread-new");
    expect(created).toHaveLength(1);
    const id = String(created[0]?.["id"]);
    expect(id).toMatch(/^T-[0-9a-f-]{36}$/);
    expect(created[0]?.argv).toEqual(["--mode", "smart", "threads", "new"]);
    expect(pointer).toMatchObject({
      version: 1, agent: "amp", id, state: "confirmed", cwd: cwdOf(sb), source: { rule: "threads-new" }, history: [],
    });
    // The agent that pointer belongs to has not exited yet.
    await waitUntil(() => eventsOf(sb, "start").length >= 2, "the agent's start");
    const starts = eventsOf(sb, "start").map((e) => e.argv);
    expect(starts).toEqual([["--mode", "smart", "threads", "new"], ["--mode", "smart", "threads", "continue", id]]);
    const agentPid = eventsOf(sb, "start")[1]?.pid;
    expect(eventsOf(sb, "exit").map((e) => e.pid)).not.toContain(agentPid);

    // Private: 0600 file in a 0700 folder.
    expect(statSync(sb.pointer).mode & 0o777).toBe(0o600);
    expect(statSync(dirname(sb.pointer)).mode & 0o777).toBe(0o700);

    await driver.waitFor(/Amp: noted \(1 messages in this thread\)/, WAIT_MS);
    // Give a second delivery every chance to happen before counting.
    await sleep(1_000);
    expect(messages(sb)).toEqual([PROMPT]);
    expect(eventsOf(sb, "message")[0]).toMatchObject({ thread: id, pid: agentPid });

    driver.write("\x03");
    expect((await exitOf(driver)).exitCode).toBe(0);
    expect(sb.readLog()).toContain(`captured confirmed ${id} (rule threads-new)`);
  });

  it("reads the prompt from --prompt-file without its trailing newline", async () => {
    const sb = cleanup.sandbox();
    const file = join(sb.dir, "prompt.txt");
    writeFileSync(file, `${PROMPT}\n`);
    const driver = cleanup.driver(sb.sessionpin(runArgs(sb, ["--prompt-file", file], ["amp", "--mode", "smart"])));
    await driver.waitFor(/Amp: noted \(1 messages in this thread\)/, WAIT_MS);
    driver.write("\x03");
    expect((await exitOf(driver)).exitCode).toBe(0);
    expect(messages(sb)).toEqual([PROMPT]);
  });
});

describe("warm start", () => {
  it("plans warm, resumes with threads continue <id>, never re-sends the prompt, passes input through", async () => {
    const sb = cleanup.sandbox();
    const id = await coldStart(cleanup, sb, PROMPT);
    const capturedAt = sb.readPointer()["capturedAt"];

    const plan = cli(sb, ["plan", "--pointer", sb.pointer, "--prompt", PROMPT, "--", "amp", "--mode", "smart"]);
    expect(plan.stderr).toBe("");
    expect(plan.status).toBe(0);
    expect(plan.stdout.trimEnd().split("\n")).toHaveLength(1);
    expect(JSON.parse(plan.stdout)).toMatchObject({
      mode: "warm", agent: "amp", id, argv: ["amp", "--mode", "smart", "threads", "continue", id], pointer: sb.pointer,
      steps: [{ step: "launch", argv: ["amp", "--mode", "smart", "threads", "continue", id] }], deliver: null,
    });

    const startsBefore = eventsOf(sb, "start").length;
    const driver = cleanup.driver(sb.sessionpin(runArgs(sb, ["--prompt", PROMPT], ["amp", "--mode", "smart"])));
    await driver.waitFor(/continued, 1 messages/, WAIT_MS);
    const warmStarts = eventsOf(sb, "start").slice(startsBefore);
    expect(warmStarts.map((e) => e.argv)).toEqual([["--mode", "smart", "threads", "continue", id]]);
    expect(eventsOf(sb, "thread-new")).toHaveLength(1);

    // Well past the quiet period: no prompt may be typed on a warm start.
    await sleep(2_000);
    expect(messages(sb)).toEqual([PROMPT]);

    driver.sendMessage("And now the docs.");
    await driver.waitFor(/Amp: noted \(2 messages in this thread\)/, WAIT_MS);
    expect(eventsOf(sb, "message").map((e) => [e["thread"], e["text"]])).toEqual([[id, PROMPT], [id, "And now the docs."]]);
    expect(messages(sb).filter((text) => text === PROMPT)).toHaveLength(1);

    driver.write("\x03");
    expect((await exitOf(driver)).exitCode).toBe(0);
    // The pointer still names the same thread, and was not replaced by a new capture.
    expect(sb.readPointer()).toMatchObject({ id, state: "confirmed", capturedAt });
    expect(sb.asideFiles("rejected")).toEqual([]);
    expect(sb.readLog()).toMatch(new RegExp(`warm start: resuming confirmed ${id}`));
  });

  it("refuses a pointer of another working folder at an explicit --pointer, and leaves it untouched (exit 3)", async () => {
    const sb = cleanup.sandbox();
    writePointerByHand(sb, { cwd: "/somewhere/else" });
    const before = readFileSync(sb.pointer);
    const driver = cleanup.driver(sb.sessionpin(runArgs(sb, [], ["amp"])));
    expect((await exitOf(driver)).exitCode).toBe(3);
    expect(driver.text.trim()).toMatch(/^sessionpin: .*pointer\.json holds amp's session for \/somewhere\/else, not amp's for .*; left untouched\./);
    expect(readFileSync(sb.pointer)).toEqual(before);
    expect(eventsOf(sb, "start")).toEqual([]);
  });

  it("never resumes a pointer of another working folder at the default path: it is set aside, and a fresh thread starts", async () => {
    const sb = cleanup.sandbox();
    const state = join(sb.dir, "module", "agentapi-state.json");
    const pointer = join(sb.dir, "module", "sessionpin-amp.json");
    const foreign = writePointerByHand(sb, { cwd: "/somewhere/else" });
    mkdirSync(dirname(pointer), { recursive: true });
    renameSync(sb.pointer, pointer);
    const driver = cleanup.driver(sb.sessionpin(["run", "--prompt-quiet", QUIET, "--", "amp"], { env: { ...sb.env, AGENTAPI_STATE_FILE: state } }));
    await driver.waitFor(/new thread/, WAIT_MS);
    driver.write("\x03");
    expect((await exitOf(driver)).exitCode).toBe(0);
    const continued = eventsOf(sb, "start").map((e) => e.argv).filter((argv) => argv.includes("continue"));
    expect(continued.flat()).not.toContain(foreign["id"]);
    expect(eventsOf(sb, "thread-new")).toHaveLength(1);
    const unused = readdirSync(dirname(pointer)).filter((name) => name.includes(".unused-"));
    expect(unused).toHaveLength(1);
    expect(readFileSync(join(dirname(pointer), unused[0] as string), "utf8")).toContain(String(foreign["id"]));
    expect(JSON.parse(readFileSync(pointer, "utf8"))["id"]).toBe(eventsOf(sb, "thread-new")[0]?.["id"]);
  });
});

describe("threads new fails", () => {
  it("runs the user's command as given, pins nothing and logs why", async () => {
    const sb = cleanup.sandbox({ FAKE_AMP_OFFLINE: "1" });
    const driver = cleanup.driver(sb.sessionpin(runArgs(sb, ["--prompt", PROMPT], ["amp", "--mode", "smart"])));
    const { exitCode } = await exitOf(driver);
    expect(exitCode).toBe(1);
    expect(eventsOf(sb, "start").map((e) => e.argv)).toEqual([["--mode", "smart", "threads", "new"], ["--mode", "smart"]]);
    expect(pointerExists(sb)).toBe(false);
    const log = sb.readLog();
    expect(log).toMatch(/threads new` failed .*Cannot reach Amp servers/);
    expect(log).toMatch(/running the command as given, nothing can be pinned/);
  });
});

describe("execute mode", () => {
  it("pins the stream-json session at its result, delivers the prompt as the -x message, output identical to amp run directly", async () => {
    const id = newThreadId();
    const sb = cleanup.sandbox({ FAKE_AMP_NEXT_ID: id });
    const driver = cleanup.driver(sb.sessionpin(runArgs(sb, ["--prompt", PROMPT], ["amp", "-x", "--stream-json"])));
    const { exitCode } = await exitOf(driver);
    expect(exitCode).toBe(0);
    expect(eventsOf(sb, "thread-new")).toHaveLength(1);
    expect(eventsOf(sb, "start")).toHaveLength(1);
    expect(messages(sb)).toEqual([PROMPT]);
    expect(sb.readPointer()).toMatchObject({ agent: "amp", id, state: "confirmed", cwd: cwdOf(sb), source: { rule: "result" } });
    expect(sb.readLog()).toMatch(new RegExp(`captured provisional ${id}.*\\n(.*\\n)*.*confirmed ${id} \\(rule result\\)`));

    // The same run directly, in the same folder (the init line names the cwd) on fresh fake state.
    const direct = cleanup.driver(
      sb.direct([join(FAKE_AGENTS, "amp"), "-x", PROMPT, "--stream-json"], { env: { ...sb.env, FAKE_AMP_HOME: join(sb.dir, "fresh-amp") } }),
    );
    expect((await exitOf(direct)).exitCode).toBe(0);
    expect(direct.output.length).toBeGreaterThan(0);
    expect(driver.output.toString("utf8")).toBe(direct.output.toString("utf8"));
    expect(Buffer.compare(driver.output, direct.output)).toBe(0);
  });

  it("a warm start never sends the same -x message again (a repeat: not started, exit 4); a new one continues the thread", async () => {
    const id = newThreadId();
    const sb = cleanup.sandbox({ FAKE_AMP_NEXT_ID: id });
    const first = cleanup.driver(sb.sessionpin(runArgs(sb, ["--prompt", PROMPT], ["amp", "-x", "--stream-json"])));
    expect((await exitOf(first)).exitCode).toBe(0);
    const plan = cli(sb, ["plan", "--pointer", sb.pointer, "--prompt", PROMPT, "--", "amp", "-x", "--stream-json"]);
    expect(JSON.parse(plan.stdout)).toMatchObject({ mode: "repeat", id, argv: null, deliver: null });
    const before = sb.readPointer();
    const again = cleanup.driver(sb.sessionpin(runArgs(sb, ["--prompt", PROMPT], ["amp", "-x", "--stream-json"])));
    expect((await exitOf(again)).exitCode).toBe(4);
    expect(eventsOf(sb, "start")).toHaveLength(1);
    expect(sb.readPointer()).toEqual(before);

    const next = cleanup.driver(sb.sessionpin(runArgs(sb, [], ["amp", "-x", "now the docs", "--stream-json"])));
    expect((await exitOf(next)).exitCode).toBe(0);
    expect(eventsOf(sb, "thread-new")).toHaveLength(1);
    expect(messages(sb)).toEqual([PROMPT, "now the docs"]);
    expect(sb.readPointer()).toMatchObject({ id, messages: [{}, {}] });
  });
});
