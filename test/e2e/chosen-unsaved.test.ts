/**
 * A session sessionpin names up front (`--session-id`) exists only once the agent saves it. Real
 * Gemini 0.61 exits 41 (`Invalid auth method selected.`) or 55 (untrusted folder) before that:
 * the run must not leave a pointer to a session that never existed, so the next start is cold
 * and launches the agent once, not a rejected resume first. The agent here is a real process on
 * PATH named like Claude (whose plugin names sessions up front and has a store), failing as
 * Gemini does.
 */
import { chmodSync, mkdirSync, writeFileSync } from "node:fs";
import { delimiter, join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { Sandbox } from "../helpers/sandbox.js";
import { Cleanup, exitOf, pointerExists, PROMPT, runArgs } from "./support.js";

const cleanup = new Cleanup();
afterEach(() => cleanup.run());

/** A sandbox whose `claude` logs its argv to $HOME/starts and exits with `code`. */
function failingAgent(code: number): Sandbox {
  const sb = cleanup.sandbox();
  const bin = join(sb.dir, "bin");
  mkdirSync(bin, { recursive: true });
  mkdirSync(sb.home, { recursive: true });
  const script = join(bin, "claude");
  writeFileSync(script, `#!/bin/sh\necho "$*" >> "$HOME/starts"\necho "Invalid auth method selected." >&2\nexit ${code}\n`);
  chmodSync(script, 0o755);
  sb.env["PATH"] = `${bin}${delimiter}${sb.env["PATH"] ?? ""}`;
  return sb;
}

async function start(sb: Sandbox): Promise<number> {
  return (await exitOf(cleanup.driver(sb.sessionpin(runArgs(sb, ["--prompt", PROMPT], ["claude"]))))).exitCode;
}

describe("an ID chosen up front that the agent never saved", () => {
  it("is not left pinned when the agent fails before saving it: the next start is cold again", async () => {
    const sb = failingAgent(41);
    expect(await start(sb)).toBe(41);
    expect(pointerExists(sb)).toBe(false);
    expect(sb.asideFiles("unused")).toHaveLength(1);
    expect(sb.readLog()).toMatch(/claude exited with 41 before it saved session [0-9a-f-]{36}: nothing to resume/);

    expect(await start(sb)).toBe(41);
    expect(sb.readLog().match(/cold start/g)).toHaveLength(2);
    expect(sb.readLog()).not.toContain("warm start");
  });

  it("stays pinned when the agent ends cleanly (a session may still be saved later, or be refused then)", async () => {
    const sb = failingAgent(0);
    expect(await start(sb)).toBe(0);
    expect(sb.readPointer()).toMatchObject({ state: "provisional", source: { rule: "chosen-up-front" } });
  });
});
