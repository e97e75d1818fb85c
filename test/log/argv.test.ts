import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, it } from "vitest";
import { CLI } from "../helpers/sandbox.js";
import { argvForLog, commandForLog } from "../../src/log/argv.js";

it("logs the executable and option names, never the words that may be secrets", () => {
  const argv = ["claude", "-p", "deploy with sk-live-123", "--api-key", "sk-live-123", "--model=opus-secret", "-xtok", "--resume", "T-1", "--", "-not-an-option"];
  const shown = argvForLog(argv, {});
  expect(JSON.parse(shown)).toEqual(["claude", "-p", "…", "--api-key", "…", "--model=…", "-x…", "--resume", "…", "--", "…"]);
  expect(shown).not.toMatch(/sk-live|opus-secret|tok|T-1|not-an/);
  // Asked for, whole, as the interop tests read it back.
  expect(argvForLog(argv, { SESSIONPIN_LOG_ARGV: "1" })).toBe(JSON.stringify(argv));
});

it("gives a recording's header the same command line, as one line a shell could read", () => {
  expect(commandForLog(["amp", "-x", "deploy with sk-live-123", "--stream-json"], {})).toBe("amp -x … --stream-json");
  expect(commandForLog(["claude", "--model=opus", "say \"hi\""], { SESSIONPIN_LOG_ARGV: "yes" })).toBe('claude --model=opus "say \\"hi\\""');
});

it("keeps the words of the agent's command line out of the log a run writes", () => {
  const dir = mkdtempSync(join(tmpdir(), "sessionpin-argv-"));
  try {
    const log = join(dir, "run.log");
    const run = spawnSync(process.execPath, [CLI, "run", "--pointer", join(dir, "p.json"), "--log", log, "--", "sh", "-c", "exit 3", "sh", "--api-key=sk-live-123", "deploy with s3cret"], { cwd: dir, encoding: "utf8", input: "" });
    expect(run.status).toBe(3);
    const text = readFileSync(log, "utf8");
    expect(text).toMatch(/started pid \d+: \["sh","-c","…","…","--api-key=…","…"\]/);
    expect(text).not.toMatch(/sk-live-123|s3cret|exit 3/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
