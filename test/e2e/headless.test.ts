/**
 * Headless runs as a CI job and a chat bridge make them, with the fake agents of fixtures/agents:
 * sessionpin's stdin and stdout are pipes, so the agent runs on pipes too. What the caller reads
 * (stdout apart from stderr, LF line ends), what the agent received (its own event log) and the
 * exit code decide.
 */
import { spawnSync } from "node:child_process";
import { existsSync, readdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { CLI, type Sandbox } from "../helpers/sandbox.js";
import { Cleanup, exitOf, messages, WAIT_MS } from "./support.js";

const cleanup = new Cleanup();
afterEach(() => cleanup.run());

/** `sessionpin run [options] -- <command…>` with `input` on stdin (closed after it), as a CI step runs it. */
function call(sb: Sandbox, options: readonly string[], command: readonly string[], input = "", env: NodeJS.ProcessEnv = {}) {
  const started = Date.now();
  const result = spawnSync(process.execPath, [CLI, "run", ...options, "--", ...command], { cwd: sb.dir, env: { ...sb.env, ...env }, input, encoding: "utf8", timeout: WAIT_MS });
  if (result.error !== undefined) throw result.error;
  return { status: result.status, stdout: result.stdout, stderr: result.stderr, ms: Date.now() - started };
}

const CLAUDE_P = (message?: string): string[] => ["claude", "-p", ...(message === undefined ? [] : [message]), "--output-format", "stream-json", "--verbose"];
const jsonLines = (text: string): Array<Record<string, unknown>> => text.split("\n").filter(Boolean).map((line) => JSON.parse(line) as Record<string, unknown>);

describe("a one-shot run on pipes", () => {
  it("gives the agent's stdout alone, as JSON lines a `| jq` reads, and its stderr apart", () => {
    const sb = cleanup.sandbox();
    const result = call(sb, ["--key", "a"], CLAUDE_P("hi"), "", { FAKE_CLAUDE_WARN: "Warning: a warning on stderr" });
    expect(result.status).toBe(0);
    expect(result.stderr).toBe("Warning: a warning on stderr\n");
    expect(result.stdout).not.toContain("\r");
    const lines = jsonLines(result.stdout);
    expect(lines.map((line) => line["type"])).toEqual(["system", "system", "assistant", "result"]);
  });

  it("takes a message piped in as the message, and returns at once: `echo MSG | … -- amp -x --stream-json`", () => {
    const sb = cleanup.sandbox();
    const first = call(sb, ["--key", "t2"], ["amp", "-x", "--stream-json"], "piped msg\n");
    expect(first.status).toBe(0);
    const second = call(sb, ["--key", "t2"], ["amp", "-x", "--stream-json"], "second msg\n");
    expect(second.status).toBe(0);
    expect(messages(sb)).toEqual(["piped msg", "second msg"]);
    const threads = [first, second].map((r) => new Set(jsonLines(r.stdout).map((line) => line["session_id"])));
    expect(threads[0]?.size).toBe(1);
    expect([...(threads[1] ?? [])]).toEqual([...(threads[0] ?? [])]);
    // The bare fake Amp answers in about this time too; a hang would meet the bound instead.
    expect(first.ms).toBeLessThan(WAIT_MS);
  });

  it("reads --prompt-file - from stdin, and refuses a piped message past its bound in one line, starting nothing", () => {
    const sb = cleanup.sandbox();
    expect(call(sb, ["--key", "f", "--prompt-file", "-"], CLAUDE_P(), "from stdin\n").status).toBe(0);
    expect(sb.fakeMessages("claude").map(([, text]) => text)).toEqual(["from stdin"]);
    const big = call(sb, ["--key", "g"], CLAUDE_P(), "x".repeat((1 << 20) + 1));
    expect(big.status).toBe(2);
    expect(big.stderr).toBe("sessionpin: the message on stdin is more than 1048576 bytes, more than a prompt may be: nothing started\n");
    expect(sb.fakeStarts("claude")).toHaveLength(1);
  });

  it("delivers \"yes\", \"no\", \"yes\" as three messages; only the same message again at once is a repeat (exit 4)", () => {
    const sb = cleanup.sandbox();
    const codes = ["yes", "no", "yes", "yes"].map((text) => call(sb, ["--key", "chat"], CLAUDE_P(text)).status);
    expect(codes).toEqual([0, 0, 0, 4]);
    const received = sb.fakeMessages("claude");
    expect(received.map(([, text]) => text)).toEqual(["yes", "no", "yes"]);
    expect(new Set(received.map(([session]) => session)).size).toBe(1);
  });
});

describe("a one-shot run whose conversation is lost", () => {
  /** A key pinned to a session, then the agent's store emptied, as a fresh runner's HOME has it. */
  function lostSession(sb: Sandbox, removeFolder: boolean): string {
    expect(call(sb, ["--key", "k"], CLAUDE_P("remember this")).status).toBe(0);
    const [id] = sb.fakeMessages("claude").map(([session]) => session);
    const projects = join(sb.home, ".claude", "projects");
    for (const folder of readdirSync(projects)) {
      if (removeFolder) rmSync(join(projects, folder), { recursive: true });
      else for (const file of readdirSync(join(projects, folder))) rmSync(join(projects, folder, file));
    }
    return String(id);
  }

  it("gone from the agent's store: a new session, one line on stderr naming the lost ID, stdout only the new session's", () => {
    const sb = cleanup.sandbox();
    const lost = lostSession(sb, false);
    const result = call(sb, ["--key", "k"], CLAUDE_P("next"));
    expect(result.status).toBe(0);
    expect(result.stderr).toMatch(new RegExp(`^sessionpin: the conversation of session ${lost} is lost \\(.+\\); starting a new session\\n$`));
    const sessions = new Set(jsonLines(result.stdout).map((line) => line["session_id"]));
    expect(sessions.size).toBe(1);
    expect(sessions.has(lost)).toBe(false);
  });

  it("refused by the agent: the refused attempt's output goes to stderr, stdout carries only the new session", () => {
    const sb = cleanup.sandbox();
    // No store folder at all proves nothing before the launch: the agent itself refuses the ID.
    const lost = lostSession(sb, true);
    const result = call(sb, ["--key", "k"], CLAUDE_P("next"));
    expect(result.status).toBe(0);
    const [refused, line, ...rest] = result.stderr.split("\n");
    expect(JSON.parse(refused ?? "")).toMatchObject({ type: "result", is_error: true, session_id: lost });
    expect(line).toMatch(new RegExp(`^sessionpin: the conversation of session ${lost} is lost \\(refused: .+\\); starting a new session$`));
    expect(rest).toEqual([""]);
    const sessions = new Set(jsonLines(result.stdout).map((l) => l["session_id"]));
    expect(sessions.size).toBe(1);
    expect(sessions.has(lost)).toBe(false);
  });

  it("with --on-lost fail (SESSIONPIN_ON_LOST): nothing started, exit 5, the ID named", () => {
    const sb = cleanup.sandbox();
    const lost = lostSession(sb, false);
    const starts = sb.fakeStarts("claude").length;
    const result = call(sb, ["--key", "k"], CLAUDE_P("next"), "", { SESSIONPIN_ON_LOST: "fail" });
    expect(result.status).toBe(5);
    expect(result.stdout).toBe("");
    expect(result.stderr).toMatch(new RegExp(`^sessionpin: the conversation of session ${lost} is lost \\(.+\\); nothing started \\(--on-lost fail, exit 5\\)\\n$`));
    expect(sb.fakeStarts("claude")).toHaveLength(starts);
  });
});

describe("--pty and --no-pty", () => {
  it("--pty runs the agent in a PTY on pipes (one stream, CRLF); --no-pty (SESSIONPIN_PTY=0) on pipes in a terminal", async () => {
    const sb = cleanup.sandbox();
    const inPty = call(sb, ["--pty", "--pointer", sb.pointer], ["sh", "-c", "echo out; echo err >&2"]);
    expect({ stdout: inPty.stdout, stderr: inPty.stderr }).toEqual({ stdout: "out\r\nerr\r\n", stderr: "" });
    const both = call(sb, ["--pty", "--no-pty"], ["true"]);
    expect([both.status, both.stderr]).toEqual([2, "sessionpin: give --pty or --no-pty, not both\n"]);
    // In a terminal, with SESSIONPIN_PTY=0: the agent's stdout is no terminal of its own.
    const driver = cleanup.driver(sb.sessionpin(["run", "--pointer", sb.pointer, "--", "sh", "-c", "[ -t 1 ] && echo tty || echo pipe"], { env: { ...sb.env, SESSIONPIN_PTY: "0" } }));
    expect(await exitOf(driver)).toEqual({ exitCode: 0, signal: 0 });
    expect(driver.text).toContain("pipe");
    expect(existsSync(sb.pointer)).toBe(false);
  });
});

describe("the agent's stdout and stderr are pipes, as a shell gives them", () => {
  /** `bash -c SCRIPT` with `$AGENT` the agent's command bare, or through `sessionpin run --`: what a CI step sees. */
  function step(sb: Sandbox, script: string, through: boolean) {
    const agent = through ? `'${process.execPath}' '${CLI}' run --pointer '${sb.pointer}' --` : "";
    const result = spawnSync("bash", ["-c", script.replaceAll("$AGENT", agent)], { cwd: sb.dir, env: sb.env, encoding: "utf8", timeout: WAIT_MS });
    if (result.error !== undefined) throw result.error;
    return { status: result.status, stdout: result.stdout, stderr: result.stderr };
  }

  it("an agent's own `> /dev/stdout` and `> /dev/stderr` work, as they do bare (Node's socket pairs refuse them)", () => {
    const sb = cleanup.sandbox();
    // The test's own stdio are Node's sockets too: the step's are made pipes, as a CI runner's are.
    const script = `$AGENT sh -c 'echo out > /dev/stdout && echo err > /dev/stderr && stat -L -c %F /dev/stdout' 2> >(cat >&2) | cat`;
    const bare = step(sb, script, false);
    expect(bare).toEqual({ status: 0, stdout: "out\nfifo\n", stderr: "err\n" });
    expect(step(sb, script, true)).toEqual(bare);
  });

  it("a reader that goes away (`| head -1`) ends the agent as it does bare: `yes` by SIGPIPE (141), not never", () => {
    const sb = cleanup.sandbox();
    for (const script of ["$AGENT yes | head -1; echo \"exit ${PIPESTATUS[0]}\"", "$AGENT sh -c 'yes >&2' 2>&1 | head -1; echo \"exit ${PIPESTATUS[0]}\""]) {
      const bare = step(sb, script, false);
      expect(bare.stdout).toBe("y\nexit 141\n");
      expect(step(sb, script, true)).toEqual(bare);
    }
  });
});
