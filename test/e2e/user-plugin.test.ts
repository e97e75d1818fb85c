import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { parsePlugin } from "../../src/agents/user/parse.js";
import type { Line } from "../../src/engine/capture/line.js";
import { judgeLine } from "../../src/engine/match.js";
import { ROOT, type FakeEvent, type Sandbox } from "../helpers/sandbox.js";
import { Cleanup, cli, exitOf, QUIET, WAIT_MS, waitUntil, writePointerByHand } from "./support.js";

const ACME = join(ROOT, "fixtures/plugins/acme.json");
const BROKEN = join(ROOT, "fixtures/plugins/broken.json");
const cleanup = new Cleanup();
afterEach(() => cleanup.run());

const events = (sb: Sandbox, agent: string): FakeEvent[] => sb.fakeEvents(agent);

const run = (sb: Sandbox, ...args: string[]) =>
  cleanup.driver(sb.sessionpin(["run", "--pointer", sb.pointer, "--prompt-quiet", QUIET, "--plugin", ACME, ...args]));

describe("a user-written JSON plugin for a made-up agent", () => {
  it("pins, resumes without the prompt, and falls back from a rejected ID, with no change to src/", async () => {
    const sb = cleanup.sandbox();
    const cold = run(sb, "--prompt", "ship it", "--", "acme");
    await cold.waitFor(/turn\.done/, WAIT_MS);
    const pinned = await waitUntil(() => (sb.readLog().includes("confirmed acme-") ? sb.readPointer() : undefined), "a confirmed pointer");
    expect(pinned).toMatchObject({ agent: "acme", state: "confirmed", source: { rule: "turn" } });
    const id = String(pinned["id"]);
    expect(events(sb, "acme")[0]?.argv).toEqual(["-p", "ship it"]);
    cold.write("\x03");
    expect((await exitOf(cold)).exitCode).toBe(0);

    const warm = run(sb, "--prompt", "ship it", "--", "acme");
    await warm.waitFor(/"hello"/, WAIT_MS);
    warm.write("\x03");
    expect((await exitOf(warm)).exitCode).toBe(0);
    expect(events(sb, "acme").filter((e) => e.event === "start").map((e) => e.argv)).toEqual([["-p", "ship it"], ["--resume", id]]);
    expect(events(sb, "acme").filter((e) => e.text === "ship it")).toHaveLength(1);

    writeFileSync(sb.pointer, JSON.stringify({ ...sb.readPointer(), id: "acme-00000000" }));
    const rejected = run(sb, "--prompt", "ship it", "--", "acme");
    await rejected.waitFor(/No such session acme-00000000[\s\S]*turn\.done/, WAIT_MS);
    rejected.write("\x03");
    expect((await exitOf(rejected)).exitCode).toBe(0);
    expect(sb.asideFiles("rejected")).toHaveLength(1);
    expect(sb.readPointer()["history"]).toEqual([expect.objectContaining({ id: "acme-00000000" })]);
    expect(events(sb, "acme").filter((e) => e.text === "ship it")).toHaveLength(2);
  });

  it("reports a bad plugin file with the file, the field and the reason, and still runs the agent", async () => {
    const sb = cleanup.sandbox();
    const driver = cleanup.driver(sb.sessionpin(["run", "--pointer", sb.pointer, "--plugin", BROKEN, "--plugin", ACME, "--", "acme"]));
    await driver.waitFor(/"hello"/, WAIT_MS);
    driver.write("\x03");
    expect((await exitOf(driver)).exitCode).toBe(0);
    const log = sb.readLog();
    expect(log).toContain(`plugin ${BROKEN}: field grammar: not a regular expression`);
    expect(log).toContain(`plugin ${BROKEN}: field text.0.pattern: needs a named group (?<id>…)`);
    expect(log).toContain(`plugin ${BROKEN}: field resume: must contain {id}`);
    // Nothing of it reached the screen: the agent's own bytes only.
    expect(driver.text).not.toContain("broken.json");
  });
});

describe("aider", () => {
  it("runs transparently, says why nothing is pinned, and restores history only when asked and present", async () => {
    const sb = cleanup.sandbox();
    const plain = cleanup.driver(sb.sessionpin(["run", "--pointer", sb.pointer, "--aider-restore-history", "--", "aider", "--model", "x"]));
    expect((await exitOf(plain)).exitCode).toBe(0);
    writeFileSync(join(sb.dir, ".aider.chat.history.md"), "# aider chat started\n");
    const restored = cleanup.driver(sb.sessionpin(["run", "--pointer", sb.pointer, "--aider-restore-history", "--", "aider", "--model", "x"]));
    await restored.waitFor(/Restored previous conversation history/, WAIT_MS);
    expect((await exitOf(restored)).exitCode).toBe(0);
    const without = cleanup.driver(sb.sessionpin(["run", "--pointer", sb.pointer, "--", "aider", "--model", "x"]));
    expect((await exitOf(without)).exitCode).toBe(0);
    expect(events(sb, "aider").map((e) => e.argv)).toEqual([
      ["--model", "x"],
      ["--model", "x", "--restore-chat-history"],
      ["--model", "x"],
    ]);
    expect(sb.readLog()).toContain("Aider has no resumable session");
    expect(() => sb.readPointer()).toThrow();
  });
});

// Torture suite, hostile user plugins: a plugin that shadows a built-in with a grammar taking
// anything and a resume template that puts the ID where an option goes put a forged pointer's
// `-x` or `--mode=free` into the agent's argv.
describe("a plugin whose grammar takes anything", () => {
  it("never resumes an option-shaped ID from a pointer, nor pins one from output", async () => {
    const sb = cleanup.sandbox();
    const loose = join(sb.dir, "amp.json");
    writeFileSync(loose, JSON.stringify({ name: "amp", names: ["amp"], grammar: "[^ ]+", json: [{ name: "any", field: "session_id", state: "confirmed" }], resume: ["{args}", "{id}"] }));
    for (const id of ["--dangerously-allow-all", "-x", "T-1\n--mode"]) {
      writePointerByHand(sb, { id, source: { rule: "any" } });
      const plan = cli(sb, ["plan", "--pointer", sb.pointer, "--plugin", loose, "--", "amp"]);
      expect(plan.status).toBe(0);
      const decided = JSON.parse(plan.stdout) as { mode: string; reason: string; argv: string[] };
      expect(decided.mode).toBe("cold");
      expect(decided.reason).toContain("is not a amp ID");
      expect(decided.argv).not.toContain(id);
    }
    const line: Line = { n: 1, offset: 0, text: '{"session_id":"-rf"}', json: { session_id: "-rf" } };
    const parsed = parsePlugin(JSON.parse(readFileSync(loose, "utf8")));
    if (!("plugin" in parsed)) throw new Error(parsed.problems.join("; "));
    expect(judgeLine(parsed.plugin, line)).toEqual([{ kind: "refused", rule: "any", reason: "grammar", value: "-rf" }]);
  });

  it("never takes an empty value for an ID, in replay as in run (the pointer's schema refuses one)", () => {
    const sb = cleanup.sandbox();
    const empty = join(sb.dir, "empt.json");
    writeFileSync(empty, JSON.stringify({ name: "empt", names: ["empt"], grammar: "x*", json: [{ name: "any", field: "session_id", state: "confirmed" }], resume: ["{args}", "{id}"] }));
    const input = join(sb.dir, "out.jsonl");
    writeFileSync(input, '{"session_id":""}\n');
    const replayed = cli(sb, ["replay", "--plugin", empty, "--agent", "empt", input]);
    expect([replayed.status, replayed.stdout]).toEqual([1, `${input}: no ID found (jsonl, agent empt)\n`]);
  });
});

// Torture suite, hostile user plugins: a text rule that backtracks catastrophically on the
// agent's output froze its terminal; keystrokes waited for the regex.
describe("a plugin whose text rule backtracks catastrophically", () => {
  it("keeps keystrokes flowing, and cuts the rule off with one log line once a line takes too long", async () => {
    const sb = cleanup.sandbox();
    const evil = join(sb.dir, "evil.json");
    writeFileSync(evil, JSON.stringify({ name: "evil", names: ["echoer"], grammar: "[a-z]+", text: [{ name: "boom", pattern: "x (?<id>(a+)+)$", state: "confirmed" }], resume: ["{args}", "--resume", "{id}"] }));
    const print = join(sb.dir, "print.txt");
    // 2^30 steps for a backtracking engine per short line; the long one is slow even in linear time.
    writeFileSync(print, `x ${"a".repeat(30)}b\r\nx ${"a".repeat(35)}b\r\nx ${"a".repeat(1 << 20)}b\r\nx ${"a".repeat(30)}b\r\n`);
    const driver = cleanup.driver(sb.sessionpin(["run", "--pointer", sb.pointer, "--plugin", evil, "--", "echoer"], { env: { ...sb.env, ECHOER_PRINT: print, ECHOER_EXIT: "7" } }));
    await driver.waitFor(/ready/, WAIT_MS);
    for (const key of "sessionpin") {
      const echo = `${key.charCodeAt(0).toString(16)};`;
      const before = driver.output.toString("latin1").split(echo).length;
      const sent = Date.now();
      driver.write(key);
      await waitUntil(() => driver.output.toString("latin1").split(echo).length > before || undefined, `the echo of ${key}`, 3_000);
      expect(Date.now() - sent).toBeLessThan(3_000);
    }
    driver.write("\x03");
    expect((await exitOf(driver)).exitCode).toBe(7);
    expect(sb.readLog().match(/rule boom cut off on line 3: \d+ ms on a line of \d+ characters, over the 200 ms budget; it reads no more lines/g)).toHaveLength(1);
  });
});
