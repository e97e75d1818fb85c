/**
 * End to end through a real PTY: `sessionpin run -- q chat …` against the fake Amazon Q CLI on
 * PATH (fixtures/agents/q). Q has no session ID: it runs exactly as given, nothing is pinned, and
 * the log says so.
 */
import { afterEach, describe, expect, it } from "vitest";
import { Cleanup, exitOf, pointerExists, runArgs, WAIT_MS } from "./support.js";

const cleanup = new Cleanup();
afterEach(() => cleanup.run());

describe("q", () => {
  it("runs q chat --resume transparently, writes no pointer and logs that Q cannot be pinned", async () => {
    const sb = cleanup.sandbox();
    const driver = cleanup.driver(sb.sessionpin(runArgs(sb, [], ["q", "chat", "--resume", "--trust-all-tools"])));
    await driver.waitFor(/Picking up where we left off/, WAIT_MS);
    expect((await exitOf(driver)).exitCode).toBe(0);
    expect(sb.fakeEvents("q").map((e) => e.argv)).toEqual([
      ["chat", "--resume", "--trust-all-tools"],
    ]);
    expect(pointerExists(sb)).toBe(false);
    expect(sb.readLog()).toContain("Amazon Q cannot be pinned: `q chat` shows no conversation ID");
  });
});
