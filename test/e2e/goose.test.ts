/**
 * End to end through real PTYs: `sessionpin run -- goose …` against the fake goose on PATH
 * (fixtures/agents/goose), at agentapi's 67x1190. Cold starts name the session `sessionpin-<uuid>`
 * and follow goose's own ID from its banner; warm starts are `goose session -r --session-id <id>`
 * with no prompt and no --instructions; a refused ID falls back to a fresh session.
 * Cold, warm, rejected and transient starts are the table in contract.test.ts; this file keeps
 * what it does not cover.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { Sandbox } from "../helpers/sandbox.js";
import { Cleanup, cwdOf, exitOf, hasExited, pointerExists, PROMPT, runArgs, sleep, WAIT_MS, waitUntil, writePointerByHand } from "./support.js";

const cleanup = new Cleanup();
afterEach(() => cleanup.run());

const NAME = /^sessionpin-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const GOOSE_ID = /^\d{8}_\d+$/;

/** The sessions the fake goose stored, as {id, name}. */
const sessions = (sb: Sandbox): Array<{ id: string; name: string }> =>
  JSON.parse(readFileSync(join(sb.home, ".local/share/goose/sessions/fake-sessions.json"), "utf8")).sessions;

async function coldStart(sb: Sandbox, env: NodeJS.ProcessEnv = {}): Promise<string> {
  const driver = cleanup.driver(sb.sessionpin(runArgs(sb, ["--prompt", PROMPT], ["goose", "session"]), { env: { ...sb.env, ...env } }));
  await driver.waitFor(/noted \(1 messages in this session\)/, WAIT_MS);
  driver.write("\x03");
  expect((await exitOf(driver)).exitCode).toBe(0);
  return String(sb.readPointer()["id"]);
}

describe("goose cold start", () => {
  it("names the session up front, then follows goose's own ID from the banner while goose runs, typing the prompt once", async () => {
    const sb = cleanup.sandbox();
    const driver = cleanup.driver(sb.sessionpin(runArgs(sb, ["--prompt", PROMPT], ["goose", "session"])));
    await waitUntil(() => sb.fakeStarts("goose").length > 0, "goose's start");
    const [argv] = sb.fakeStarts("goose");
    const name = String(argv?.at(-1));
    expect(argv).toEqual(["session", "-n", name]);
    expect(name).toMatch(NAME);

    const pointer = await waitUntil(() => (pointerExists(sb) && GOOSE_ID.test(String(sb.readPointer()["id"])) ? sb.readPointer() : undefined), "goose's ID in the pointer");
    expect(await hasExited(driver)).toBe(false);
    const [stored] = sessions(sb);
    expect(stored).toEqual(expect.objectContaining({ name }));
    expect(pointer).toMatchObject({ agent: "goose", id: stored?.id, state: "provisional", cwd: cwdOf(sb), source: { rule: "banner" } });
    expect(pointer["history"]).toEqual([expect.objectContaining({ id: name, reason: `goose switched to ${stored?.id}` })]);

    await driver.waitFor(/noted \(1 messages in this session\)/, WAIT_MS);
    await sleep(800);
    expect(sb.fakeMessages("goose")).toEqual([[stored?.id, PROMPT]]);
    driver.write("\x03");
    expect((await exitOf(driver)).exitCode).toBe(0);
    const log = sb.readLog();
    expect(log).toContain(`captured provisional ${name} (rule chosen-up-front)`);
    expect(log).toContain(`goose now reports ${stored?.id} instead of ${name}`);
  });

  it("reads the newer two-row `● new session ·` banner, and its `● resuming ·` confirms", async () => {
    const sb = cleanup.sandbox();
    const env = { FAKE_GOOSE_BANNER: "status" };
    const id = await coldStart(sb, env);
    expect(id).toMatch(GOOSE_ID);
    expect(sb.readPointer()).toMatchObject({ state: "provisional", source: { rule: "status" } });

    const driver = cleanup.driver(sb.sessionpin(runArgs(sb, ["--prompt", PROMPT], ["goose", "session"]), { env: { ...sb.env, ...env } }));
    await driver.waitFor(/goose is running! \(1 messages/, WAIT_MS);
    await waitUntil(() => sb.readPointer()["state"] === "confirmed", "the resumed banner's confirmation");
    driver.write("\x03");
    expect((await exitOf(driver)).exitCode).toBe(0);
    expect(sb.readPointer()).toMatchObject({ id, state: "confirmed", source: { rule: "status-resumed" } });
  });
});

describe("goose warm start", () => {
  it("resumes with `goose session -r --session-id <id>`, confirms from the resumed banner, never re-sends the prompt", async () => {
    const sb = cleanup.sandbox();
    const id = await coldStart(sb);
    expect(id).toMatch(GOOSE_ID);

    const driver = cleanup.driver(sb.sessionpin(runArgs(sb, ["--prompt", PROMPT], ["goose", "session"])));
    await driver.waitFor(/resuming session \|[\s\S]*goose is running! \(1 messages/, WAIT_MS);
    expect(sb.fakeStarts("goose").at(-1)).toEqual(["session", "-r", "--session-id", id]);
    await sleep(1_500);
    expect(sb.fakeMessages("goose")).toEqual([[id, PROMPT]]);

    driver.sendMessage("And now the docs.");
    await driver.waitFor(/noted \(2 messages in this session\)/, WAIT_MS);
    driver.write("\x03");
    expect((await exitOf(driver)).exitCode).toBe(0);
    expect(sb.fakeMessages("goose")).toEqual([[id, PROMPT], [id, "And now the docs."]]);
    expect(sb.readPointer()).toMatchObject({ id, state: "confirmed", source: { rule: "banner-resumed" } });
    expect(sessions(sb)).toHaveLength(1);
    expect(sb.asideFiles("rejected")).toEqual([]);
    expect(sb.readLog()).toContain(`confirmed ${id} (rule banner-resumed`);
  });

  it("turns `goose run -s --instructions FILE` into `goose session -r`, so the instructions are not sent again", async () => {
    const sb = cleanup.sandbox();
    const task = join(sb.dir, "task.md");
    writeFileSync(task, `${PROMPT}\n`);
    const command = ["goose", "run", "-s", "--instructions", task, "--with-builtin", "developer"];
    const cold = cleanup.driver(sb.sessionpin(runArgs(sb, [], command)));
    await cold.waitFor(/noted \(1 messages in this session\)/, WAIT_MS);
    cold.write("\x03");
    expect((await exitOf(cold)).exitCode).toBe(0);
    const id = String(sb.readPointer()["id"]);
    expect(id).toMatch(GOOSE_ID);

    const warm = cleanup.driver(sb.sessionpin(runArgs(sb, [], command)));
    await warm.waitFor(/resuming session \|[\s\S]*goose is running! \(1 messages/, WAIT_MS);
    await sleep(500);
    warm.write("\x03");
    expect((await exitOf(warm)).exitCode).toBe(0);
    const [first, second] = sb.fakeStarts("goose");
    expect(first).toEqual([...command.slice(1), "-n", first?.at(-1)]);
    expect(second).toEqual(["session", "-r", "--session-id", id, "--with-builtin", "developer"]);
    expect(sb.fakeMessages("goose")).toEqual([[id, PROMPT]]);
  });
});

describe("goose rejected ID", () => {

  it("an unknown chosen name (goose never showed its ID): refused the same way", async () => {
    const sb = cleanup.sandbox();
    const name = "sessionpin-00000000-0000-4000-8000-000000000000";
    writePointerByHand(sb, { agent: "goose", id: name, state: "provisional", source: { rule: "chosen-up-front" } });
    const driver = cleanup.driver(sb.sessionpin(runArgs(sb, ["--prompt", PROMPT], ["goose"])));
    await driver.waitFor(/noted \(1 messages in this session\)/, WAIT_MS);
    driver.write("\x03");
    expect((await exitOf(driver)).exitCode).toBe(0);
    expect(driver.text).toContain(`Error: No session found with name '${name}'`);
    expect(sb.fakeStarts("goose")[0]).toEqual(["session", "-r", "-n", name]);
    expect(sb.fakeStarts("goose")[1]?.slice(0, 2)).toEqual(["session", "-n"]);
    expect(sb.asideFiles("rejected")).toHaveLength(1);
    expect(sb.readPointer()["id"]).toBe(sessions(sb)[0]?.id);
  });
});
