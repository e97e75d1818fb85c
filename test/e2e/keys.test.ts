/**
 * One pinned session per external conversation (`--key`), listed by `sessions`, and one driver per
 * agent session however it is named: through real PTYs, against the fake Claude Code on PATH
 * (fixtures/agents/claude) in print mode, on default pointer paths under the sandbox's state folder.
 */
import { copyFileSync, mkdirSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { Sandbox } from "../helpers/sandbox.js";
import { Cleanup, cli, exitOf, QUIET, WAIT_MS, waitUntil } from "./support.js";

const cleanup = new Cleanup();
afterEach(() => cleanup.run());

const PRINT = ["claude", "-p", "--output-format", "stream-json", "--verbose"];

interface Listed { key: string | null; agent: string; id: string; messages: number; pointer: string; lastRunAt: string | null }

async function ask(sb: Sandbox, key: string, message: string): Promise<number> {
  const driver = cleanup.driver(sb.sessionpin(["run", "--key", key, "--prompt-quiet", QUIET, "--", ...PRINT, message]));
  return (await exitOf(driver)).exitCode;
}

function sessions(sb: Sandbox): Listed[] {
  const result = cli(sb, ["sessions", "--json"]);
  expect(result.status).toBe(0);
  return JSON.parse(result.stdout) as Listed[];
}

describe("--key", () => {
  it("keeps one conversation per key in one folder; each message goes to its own key's session, once", async () => {
    const sb = cleanup.sandbox();
    expect(await ask(sb, "thread-1", "one: first")).toBe(0);
    expect(await ask(sb, "thread-2", "two: first")).toBe(0);
    expect(await ask(sb, "thread-1", "one: second")).toBe(0);
    // The same message again (a webhook delivered twice): nothing starts.
    expect(await ask(sb, "thread-1", "one: second")).toBe(4);

    const listed = sessions(sb);
    const one = listed.find((s) => s.key === "thread-1");
    const two = listed.find((s) => s.key === "thread-2");
    expect(one).toMatchObject({ agent: "claude", messages: 2 });
    expect(two).toMatchObject({ agent: "claude", messages: 1 });
    expect(one?.id).not.toBe(two?.id);
    expect(one?.lastRunAt).toEqual(expect.any(String));
    expect(sb.fakeMessages("claude")).toEqual([[one?.id, "one: first"], [two?.id, "two: first"], [one?.id, "one: second"]]);

    const plan = JSON.parse(cli(sb, ["plan", "--key", "thread-2", "--", ...PRINT, "two: second"]).stdout) as Record<string, unknown>;
    expect(plan).toMatchObject({ mode: "warm", key: "thread-2", id: two?.id, pointer: two?.pointer, deliver: { what: "follow-up", via: "argv" } });
    // SESSIONPIN_KEY names the same conversation.
    const byEnv = JSON.parse(cli(sb, ["plan", "--", ...PRINT, "two: first"], { SESSIONPIN_KEY: "thread-2" }).stdout) as Record<string, unknown>;
    expect(byEnv).toMatchObject({ mode: "repeat", id: two?.id });
  });

  it("keeps them apart where SESSIONPIN_POINTER names one file for every call (a bridge's setting)", async () => {
    const sb = cleanup.sandbox({ SESSIONPIN_POINTER: join("bridge", "sessionpin.json") });
    expect(await ask(sb, "thread-1", "one: first")).toBe(0);
    expect(await ask(sb, "thread-2", "two: first")).toBe(0);
    expect(await ask(sb, "thread-1", "one: second")).toBe(0);
    const [one, two] = sb.fakeMessages("claude").map(([id]) => id);
    expect(one).not.toBe(two);
    expect(sb.fakeMessages("claude")).toEqual([[one, "one: first"], [two, "two: first"], [one, "one: second"]]);
  });

  it("sessions lists what it can read and shows a folder it cannot (a symlink loop) as unreadable, not a stack trace", async () => {
    const sb = cleanup.sandbox();
    expect(await ask(sb, "thread-1", "one: first")).toBe(0);
    const state = join(String(sb.env["XDG_STATE_HOME"]), "sessionpin");
    symlinkSync("loop", join(state, "loop"));
    const listed = sessions(sb) as Array<Listed & { state: string; reason?: string }>;
    expect(listed.map((row) => [row.agent, row.state])).toEqual([["loop", "unreadable"], ["claude", "confirmed"]]);
    expect(listed[0]?.reason).toMatch(/symbolic link/);
  });

  it("refuses an empty key, one of spaces or with control characters (exit 2), and SESSIONPIN_KEY or SESSIONPIN_MESSAGE_ID set but empty", () => {
    const sb = cleanup.sandbox();
    for (const key of ["", " ", "a\nb"]) {
      const result = cli(sb, ["plan", "--key", key, "--", ...PRINT, "hi"]);
      expect(result.status).toBe(2);
      expect(result.stderr).toMatch(/--key/);
    }
    for (const variable of ["SESSIONPIN_KEY", "SESSIONPIN_MESSAGE_ID"]) {
      const result = cli(sb, ["plan", "--", ...PRINT, "hi"], { [variable]: "" });
      expect([result.status, result.stderr]).toEqual([2, `sessionpin: ${variable} is set but empty (an unset variable?): give it a value, or unset it\n`]);
    }
  });

  it("with --message-id, a message is its chat ID: \"yes\" twice is delivered twice, the same ID again is a repeat (exit 4)", async () => {
    const sb = cleanup.sandbox();
    const say = async (id: string, message: string): Promise<number> => {
      const driver = cleanup.driver(sb.sessionpin(["run", "--key", "thread-1", "--message-id", id, "--prompt-quiet", QUIET, "--", ...PRINT, message]));
      return (await exitOf(driver)).exitCode;
    };
    expect(await say("m-1", "yes")).toBe(0);
    expect(await say("m-2", "remember kiwi")).toBe(0);
    expect(await say("m-3", "yes")).toBe(0);
    // A webhook delivered twice: same ID, nothing starts.
    expect(await say("m-3", "yes")).toBe(4);
    const [id] = sb.fakeMessages("claude").map(([session]) => session);
    expect(sb.fakeMessages("claude")).toEqual([[id, "yes"], [id, "remember kiwi"], [id, "yes"]]);
    // Without IDs, the text is the message: "yes" again is taken for a retry of the first.
    expect(await ask(sb, "thread-2", "yes")).toBe(0);
    expect(await ask(sb, "thread-2", "yes")).toBe(4);
  });
});

describe("one driver per agent session", () => {
  it("a second run on the same session through another pointer exits 75 while the first drives it, and runs once it is free", async () => {
    const sb = cleanup.sandbox();
    expect(await ask(sb, "thread-1", "first")).toBe(0);
    const [pinned] = sessions(sb);
    if (pinned === undefined) throw new Error("nothing pinned");
    // Another pointer naming the same session (a copy, another key's file, a hand-made one).
    const other = join(sb.dir, "elsewhere", "pointer.json");
    mkdirSync(join(sb.dir, "elsewhere"));
    copyFileSync(pinned.pointer, other);

    const interactive = cleanup.driver(sb.sessionpin(["run", "--pointer", other, "--prompt-quiet", QUIET, "--", "claude", "--model", "sonnet"]));
    await waitUntil(() => sb.fakeStarts("claude").some((argv) => argv.includes("--resume") && !argv.includes("-p")), "the interactive resume");
    const starts = sb.fakeStarts("claude").length;

    const second = cleanup.driver(sb.sessionpin(["run", "--key", "thread-1", "--", ...PRINT, "second"]));
    expect((await exitOf(second)).exitCode).toBe(75);
    expect(second.text).toContain(`claude session ${pinned.id} is driven by sessionpin pid`);
    expect(sb.fakeStarts("claude")).toHaveLength(starts);

    interactive.write("\x03");
    expect((await exitOf(interactive)).exitCode).toBe(0);
    expect(await ask(sb, "thread-1", "second")).toBe(0);
    expect(sb.fakeMessages("claude").at(-1)).toEqual([pinned.id, "second"]);
  }, WAIT_MS * 3);
});
