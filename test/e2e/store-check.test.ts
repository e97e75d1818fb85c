/**
 * A pinned session that is gone from the agent's own store is set aside before launch: the start
 * is cold at once, the agent is started once (not refused first), `plan` says why, and the
 * webhook hears of it as a rejection. Through real PTYs against the fake Claude Code on PATH.
 */
import { existsSync, rmSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { Cleanup, cli, cwdOf, exitOf, PROMPT, runArgs } from "./support.js";

const cleanup = new Cleanup();
afterEach(() => cleanup.run());

const PRINT = ["claude", "-p", "--output-format", "stream-json", "--verbose"];

describe("a session gone from the agent's store", () => {
  it("is set aside before launch: one cold start, no refused resume", async () => {
    const sb = cleanup.sandbox();
    const cold = cleanup.driver(sb.sessionpin(runArgs(sb, [], [...PRINT, PROMPT])));
    expect((await exitOf(cold)).exitCode).toBe(0);
    const id = String(sb.readPointer()["id"]);
    const transcript = join(sb.home, ".claude", "projects", cwdOf(sb).replace(/[^A-Za-z0-9]/g, "-"), `${id}.jsonl`);
    expect(existsSync(transcript)).toBe(true);
    // Another session of this folder stays: the store is there, this session is not.
    const other = cleanup.driver(sb.sessionpin(["run", "--pointer", join(sb.dir, "other.json"), "--", ...PRINT, "another task"]));
    expect((await exitOf(other)).exitCode).toBe(0);
    rmSync(transcript);

    const plan = JSON.parse(cli(sb, ["plan", "--pointer", sb.pointer, "--", ...PRINT, "Now the docs."]).stdout) as Record<string, unknown>;
    expect(plan).toMatchObject({ mode: "cold", setsAside: "gone" });
    expect(String(plan["reason"])).toContain(`session ${id} is gone from claude's own store`);

    const starts = sb.fakeStarts("claude").length;
    const next = cleanup.driver(sb.sessionpin(runArgs(sb, [], [...PRINT, "Now the docs."])));
    expect((await exitOf(next)).exitCode).toBe(0);
    const launched = sb.fakeStarts("claude").slice(starts);
    expect(launched).toHaveLength(1);
    expect(launched[0]).not.toContain("--resume");
    expect(sb.asideFiles("gone")).toHaveLength(1);
    expect(sb.readPointer()["id"]).not.toBe(id);
    // The gone ID stays in the new pointer's history, as a rejected one does.
    expect(sb.readPointer()["history"]).toEqual([expect.objectContaining({ id, reason: expect.stringContaining("is gone from claude's own store") as unknown })]);
    expect(sb.readLog()).toContain(`session ${id} is gone from claude's own store`);
  });
});
