/**
 * `doctor` and `run` judge a pointer's lock with the same code: a fresh lock from another host
 * is held (its pid means nothing here), so doctor must not promise a takeover where run exits
 * 75; one its run stopped refreshing, and a lock left by a dead sessionpin on this host, are
 * taken over by both accounts.
 */
import { mkdirSync, utimesSync, writeFileSync } from "node:fs";
import { hostname } from "node:os";
import { dirname } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { Sandbox } from "../helpers/sandbox.js";
import { Cleanup, cli, PROMPT } from "./support.js";

const cleanup = new Cleanup();
afterEach(() => cleanup.run());

// Above the kernel's pid_max (4194304): no live process has it.
const DEAD_PID = 2 ** 22 + 777;

function lockedBy(host: string): Sandbox {
  const sb = cleanup.sandbox();
  mkdirSync(dirname(sb.pointer), { recursive: true });
  writeFileSync(`${sb.pointer}.lock`, `${JSON.stringify({ pid: DEAD_PID, startedAt: "2026-11-01T00:00:00.000Z", host })}\n`);
  return sb;
}

const lockCheckOf = (sb: Sandbox): Record<string, unknown> => {
  const report = JSON.parse(cli(sb, ["doctor", "--json", "--pointer", sb.pointer, "--", "claude"]).stdout) as { checks: Array<Record<string, unknown>> };
  return report.checks.find((check) => check["name"] === "lock") ?? {};
};

const runOnce = (sb: Sandbox) => cli(sb, ["run", "--pointer", sb.pointer, "--", "claude", "-p", PROMPT, "--output-format", "stream-json", "--verbose"]);

describe("one lock judgement for doctor and run", () => {
  it("a lock from another host: doctor says held and run exits 75", () => {
    const sb = lockedBy("another-workspace-host");
    expect(lockCheckOf(sb)).toMatchObject({ status: "info", data: { held: true }, detail: expect.stringContaining("a second run on this pointer exits 75") as unknown });
    const run = runOnce(sb);
    expect(run.status).toBe(75);
    expect(run.stderr).toContain("is in use by sessionpin pid");
  });

  it("a lock from another host that nobody refreshed for 10 minutes (a restarted workspace with a new host name): doctor says the next run takes it over, and it does", () => {
    const sb = lockedBy("coder-ws-7d9f8-abcde");
    const tenMinutesAgo = new Date(Date.now() - 10 * 60_000);
    utimesSync(`${sb.pointer}.lock`, tenMinutesAgo, tenMinutesAgo);
    expect(lockCheckOf(sb)).toMatchObject({ status: "ok", data: { held: false }, detail: expect.stringContaining("the next run takes it over") as unknown });
    expect(runOnce(sb).status).toBe(0);
    expect(sb.readLog()).toContain("took over a stale lock");
  });

  it("a lock left by a dead sessionpin on this host: doctor says the next run takes it over, and it does", () => {
    const sb = lockedBy(hostname());
    expect(lockCheckOf(sb)).toMatchObject({ status: "ok", data: { held: false }, detail: expect.stringContaining("the next run takes it over") as unknown });
    expect(runOnce(sb).status).toBe(0);
    expect(sb.readLog()).toContain("took over a stale lock");
  });
});
