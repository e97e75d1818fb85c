/**
 * The up-front command (`amp threads new`) as a real process: every wait on it is bounded, and
 * what it printed before it exited is what counts.
 */
import { spawnSync } from "node:child_process";
import { afterEach, describe, expect, it } from "vitest";
import { runUpfront } from "../../src/run/upfront.js";

const ID = "T-0f3c2a9e-5b7d-4e21-9c4a-8d6f1e2b3a40";
const parse = (output: string): string | undefined => /T-[0-9a-f-]{36}/.exec(output)?.[0];
const options = (extra: { abort?: AbortSignal; timeoutMs?: number } = {}) => ({ env: process.env, cwd: process.cwd(), abort: new AbortController().signal, ...extra });

/** Whether a process with this pid is still running (a zombie counts as gone). */
function alive(pid: number): boolean {
  const state = spawnSync("ps", ["-o", "stat=", "-p", String(pid)], { encoding: "utf8" }).stdout.trim();
  return state !== "" && !state.startsWith("Z");
}

/** A shell that writes its pid to stdout first, then runs `script`. */
const sh = (script: string): [string, string[]] => ["sh", ["-c", `echo "pid $$"; ${script}`]];
const pidOf = (error: string): number => Number(/pid (\d+)/.exec(error)?.[1]);

describe("the up-front command", () => {
  it("prints an ID and exits: the ID", async () => {
    const [command, argv] = sh(`echo "https://ampcode.com/threads/${ID}"`);
    expect(await runUpfront(command, argv, parse, options())).toEqual({ id: ID });
  });

  it("that ignores SIGTERM and never ends is killed at its timeout, and the wait ends", async () => {
    const [command, argv] = sh("trap '' TERM; while :; do sleep 0.1; done");
    const started = Date.now();
    const result = await runUpfront(command, argv, parse, options({ timeoutMs: 300 }));
    expect(result).toMatchObject({ error: expect.stringContaining("timed out after 300 ms") as unknown });
    expect(Date.now() - started).toBeLessThan(10_000);
    const pid = pidOf((result as { error: string }).error);
    expect(pid).toBeGreaterThan(0);
    expect(alive(pid)).toBe(false);
  });

  it("that ignores SIGTERM is killed when sessionpin is asked to stop", async () => {
    const [command, argv] = sh("trap '' TERM; while :; do sleep 0.1; done");
    const abort = new AbortController();
    setTimeout(() => abort.abort(), 200);
    const started = Date.now();
    const result = await runUpfront(command, argv, parse, options({ abort: abort.signal }));
    expect(result).toMatchObject({ error: expect.stringContaining("stopped") as unknown });
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(alive(pidOf((result as { error: string }).error))).toBe(false);
  });

  let left = 0;
  afterEach(() => {
    if (left > 0) process.kill(left, "SIGKILL");
    left = 0;
  });

  it("that exits but leaves a process holding its output open: its ID, without waiting for that process", async () => {
    // The background sleep keeps stdout open for 60 s after the shell has exited.
    const [command, argv] = sh(`sleep 60 & echo "left $!"; echo "https://ampcode.com/threads/${ID}"`);
    const started = Date.now();
    const result = await runUpfront(command, argv, (output) => {
      left = Number(/left (\d+)/.exec(output)?.[1]);
      return parse(output);
    }, options());
    expect(result).toEqual({ id: ID });
    expect(Date.now() - started).toBeLessThan(10_000);
  });
});
