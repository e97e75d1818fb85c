import { chmodSync, mkdirSync, writeFileSync } from "node:fs";
import { delimiter, join } from "node:path";
import { describe, expect, it } from "vitest";
import { CarryError } from "../../src/state/archive-rules.js";
import { agentVersion, firstLine, runAgentCommand } from "../../src/state/carry-command.js";
import { useTempDir } from "../pointer/tempdir.js";

const tmp = useTempDir();

/** A tiny agent on its own PATH folder: the env to find it by name with. */
function agentOnPath(name: string, body: string): NodeJS.ProcessEnv {
  const bin = join(tmp.path, "bin");
  mkdirSync(bin, { recursive: true });
  writeFileSync(join(bin, name), `#!/bin/sh\n${body}\n`);
  chmodSync(join(bin, name), 0o755);
  return { PATH: `${bin}${delimiter}/usr/bin${delimiter}/bin` };
}

const bounds = { timeoutMs: 10_000, maxBytes: 1024 * 1024 };

describe("runAgentCommand", () => {
  it("runs the agent found on the env's PATH in cwd, with stdin closed, and gives its code, stdout bytes and stderr", async () => {
    const env = agentOnPath("agent", `pwd; printf '%s,' "$@"; printf '\\377'; cat; printf 'note\\n' >&2; exit 3`);
    const result = await runAgentCommand("agent", ["export", "a b"], { cwd: tmp.path, env, ...bounds });
    expect(result.code).toBe(3);
    expect(result.stdout).toEqual(Buffer.concat([Buffer.from(`${tmp.path}\nexport,a b,`), Buffer.of(0xff)]));
    expect(result.stderr).toBe("note\n");
  });

  it("kills an agent that runs too long and fails in one line naming the command", async () => {
    const env = agentOnPath("agent", "echo started; exec sleep 30");
    const started = Date.now();
    const run = runAgentCommand("agent", ["export", "x"], { cwd: tmp.path, env, timeoutMs: 300, maxBytes: 1024 });
    await expect(run).rejects.toThrow(new CarryError(1, "`agent export x` still ran after 0.3 s: stopped"));
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it("kills an agent that prints more than its bound", async () => {
    const env = agentOnPath("agent", "exec yes");
    await expect(runAgentCommand("agent", [], { cwd: tmp.path, env, timeoutMs: 10_000, maxBytes: 4096 })).rejects.toThrow("`agent` printed more than 4096 bytes: stopped");
  });

  it("keeps stdout whole up to the bound", async () => {
    const env = agentOnPath("agent", "head -c 4096 /dev/zero");
    const result = await runAgentCommand("agent", [], { cwd: tmp.path, env, timeoutMs: 10_000, maxBytes: 4096 });
    expect(result.stdout).toEqual(Buffer.alloc(4096));
  });

  it("says the agent is not on PATH when it is not", async () => {
    const run = runAgentCommand("no-such-agent", ["export"], { cwd: tmp.path, env: { PATH: tmp.path }, ...bounds });
    await expect(run).rejects.toThrow("cannot run `no-such-agent export`: no-such-agent is not on PATH");
    await expect(run).rejects.toBeInstanceOf(CarryError);
  });
});

describe("firstLine", () => {
  it("gives the first line that says something, without colours or control characters", () => {
    expect(firstLine("\n  \n\u001b[31m  error:\u0007 bad id\u001b[0m \nnext\n")).toBe("error: bad id");
    expect(firstLine("\r\n\u001b[2K\r\n")).toBe("");
    expect(firstLine("")).toBe("");
  });

  it("cuts a long line with an ellipsis at its bound", () => {
    expect(firstLine("x".repeat(300))).toBe(`${"x".repeat(199)}…`);
    expect(firstLine("abcdef", 4)).toBe("abc…");
    expect(firstLine("abcd", 4)).toBe("abcd");
  });
});

describe("agentVersion", () => {
  it("is the first line --version prints, on stdout or else on stderr", async () => {
    expect(await agentVersion("agent", tmp.path, agentOnPath("agent", `[ "$1" = --version ] && printf '\\n1.2.3 (Agent)\\nmore\\n'`))).toBe("1.2.3 (Agent)");
    expect(await agentVersion("other", tmp.path, agentOnPath("other", "echo 'other 0.9' >&2"))).toBe("other 0.9");
  });

  it("is null when the agent fails, says nothing, or is missing", async () => {
    expect(await agentVersion("agent", tmp.path, agentOnPath("agent", "echo 1.0; exit 1"))).toBeNull();
    expect(await agentVersion("quiet", tmp.path, agentOnPath("quiet", "exit 0"))).toBeNull();
    expect(await agentVersion("missing", tmp.path, { PATH: tmp.path })).toBeNull();
  });
});
