/**
 * `sessionpin doctor`, called directly (main.ts registers it): a temp HOME, a fake agent on PATH,
 * stdout captured. Checks the table, --json, the exit code, NO_COLOR, the pointer states, and the
 * agentapi --type warnings, from the environment and from a running `agentapi server` process.
 */
import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import { chmodSync, mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { hostname, tmpdir } from "node:os";
import { delimiter, dirname, join } from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { doctor, doctorCommand } from "../../src/cli/doctor.js";
import { resolvePointerPath } from "../../src/pointer/path.js";
import type { Pointer } from "../../src/pointer/schema.js";
import { writePointer } from "../../src/pointer/store.js";

interface Report {
  ok: boolean;
  agent: string | null;
  pointer: string | null;
  checks: Array<{ name: string; status: string; detail: string; data?: Record<string, unknown> }>;
}

let dir: string;
let bin: string;
let work: string;
let stdout: string;
let children: ChildProcess[] = [];

beforeEach(() => {
  dir = realpathSync(mkdtempSync(join(tmpdir(), "sessionpin-doctor-")));
  bin = join(dir, "bin");
  work = join(dir, "work");
  mkdirSync(bin);
  mkdirSync(work);
  // A fake Claude Code that only knows --version.
  executable("claude", '#!/bin/sh\n[ "$1" = --version ] && echo "2.1.197 (Claude Code)" && exit 0\nexit 3\n');
  stdout = "";
  vi.spyOn(process.stdout, "write").mockImplementation((chunk: string | Uint8Array) => {
    stdout += typeof chunk === "string" ? chunk : Buffer.from(chunk).toString("utf8");
    return true;
  });
  for (const name of Object.keys(process.env)) if (name.startsWith("AGENTAPI_") || name.startsWith("SESSIONPIN_")) vi.stubEnv(name, undefined);
  vi.stubEnv("HOME", join(dir, "home"));
  vi.stubEnv("XDG_STATE_HOME", join(dir, "state"));
  vi.stubEnv("XDG_CONFIG_HOME", join(dir, "config"));
  vi.stubEnv("PATH", `${bin}${delimiter}${process.env["PATH"] ?? ""}`);
  vi.stubEnv("NO_COLOR", undefined);
  vi.spyOn(process, "cwd").mockReturnValue(work);
});

afterEach(() => {
  vi.restoreAllMocks();
  vi.unstubAllEnvs();
  for (const child of children) {
    try {
      process.kill(-(child.pid as number), "SIGKILL");
    } catch {
      // already gone
    }
  }
  children = [];
  rmSync(dir, { recursive: true, force: true });
});

function executable(name: string, text: string): string {
  const path = join(bin, name);
  writeFileSync(path, text);
  chmodSync(path, 0o755);
  return path;
}

async function json(argv: readonly string[]): Promise<{ code: number; report: Report }> {
  const code = await doctorCommand(["--json", ...argv]);
  return { code, report: JSON.parse(stdout) as Report };
}

const check = (report: Report, name: string): Report["checks"][number] | undefined => report.checks.find((c) => c.name === name);

describe("sessionpin doctor", () => {
  it("passes for an agent on PATH: PTY, version, plugin, writable pointer folder, no pointer yet", async () => {
    const { code, report } = await json(["--", "claude", "--model", "sonnet"]);
    expect(code).toBe(0);
    expect(report.ok).toBe(true);
    expect(report.agent).toBe("claude");
    expect(report.pointer).toMatch(new RegExp(`^${dir}/state/sessionpin/claude/[0-9a-f]{16}\\.json$`));
    expect(check(report, "node")?.status).toBe("ok");
    expect(check(report, "pty")).toMatchObject({ status: "ok", detail: "node-pty started `true` in a PTY (exit 0)" });
    expect(check(report, "agent")).toMatchObject({ status: "ok", detail: `claude: ${bin}/claude` });
    expect(check(report, "agent-version")).toMatchObject({ status: "ok", detail: "2.1.197 (Claude Code)" });
    expect(check(report, "plugin")).toMatchObject({ status: "ok", detail: "claude (built-in)" });
    expect(check(report, "pointer-dir")?.status).toBe("ok");
    expect(check(report, "pointer")).toMatchObject({ status: "ok", data: { kind: "missing" } });
    expect(check(report, "lock")).toMatchObject({ status: "ok", detail: "free" });
    expect(check(report, "agentapi-env")?.status).toBe("skip");
    expect(check(report, "log")?.detail).toBe(`${report.pointer?.replace(/\.json$/, ".log")} (none yet)`);
    expect(check(report, "recordings")?.status).toBe("info");
    expect(check(report, "plugins-dir")?.detail).toContain(join(dir, "config", "sessionpin", "plugins"));
  });

  it("names the file in the way when the pointer's folder cannot be created", async () => {
    writeFileSync(join(work, "a-file"), "");
    const { code, report } = await json(["--pointer", join(work, "a-file", "sub", "p.json"), "--", "claude"]);
    expect(code).toBe(1);
    expect(check(report, "pointer-dir")).toMatchObject({ status: "fail", detail: `${join(work, "a-file", "sub")}: cannot be created, ${join(work, "a-file")} is not a folder` });
  });

  it("names the log SESSIONPIN_LOG names, as run writes it there", async () => {
    vi.stubEnv("SESSIONPIN_LOG", "logs/run.log");
    const { report } = await json(["--", "claude"]);
    expect(check(report, "log")?.detail).toBe(`${join(work, "logs", "run.log")} (none yet)`);
  });

  it("warns when the log is a symbolic link, which run does not write through", async () => {
    const pointer = join(work, "state", "p.json");
    mkdirSync(dirname(pointer));
    symlinkSync(join(dir, "elsewhere.log"), join(work, "state", "p.log"));
    const { report } = await json(["--pointer", pointer, "--", "claude"]);
    expect(check(report, "log")).toMatchObject({ status: "warn", detail: `${join(work, "state", "p.log")} is a symbolic link: sessionpin will not write its log there` });
  });

  it("prints a table for people, without colors when stdout is no terminal or NO_COLOR is set", async () => {
    expect(await doctorCommand(["--", "claude"])).toBe(0);
    const lines = stdout.split("\n");
    expect(lines[0]).toMatch(/^sessionpin doctor for claude, pointer \/.*\.json$/);
    expect(lines).toContain(`  ok    agent          claude: ${bin}/claude`);
    expect(lines).toContain("  ok    agent-version  2.1.197 (Claude Code)");
    expect(stdout).not.toContain("\x1b[");
    expect(lines.at(-2)).toBe("all checks passed");

    const out: string[] = [];
    const context = { env: { ...process.env }, cwd: work, out: (t: string) => void out.push(t), isTTY: true, processes: () => [], timeoutMs: 5_000 };
    await doctor(["--", "claude"], context);
    expect(out.join("")).toContain("\x1b[32mok  \x1b[0m");
    out.length = 0;
    await doctor(["--", "claude"], { ...context, env: { ...context.env, NO_COLOR: "1" } });
    expect(out.join("")).not.toContain("\x1b[");
  });

  it("fails, exit 1, when the agent is not on PATH", async () => {
    const { code, report } = await json(["--", "codex"]);
    expect(code).toBe(1);
    expect(report.ok).toBe(false);
    expect(check(report, "agent")).toMatchObject({ status: "fail", detail: "codex: command not found" });
    expect(check(report, "agent-version")).toBeUndefined();
  });

  it("shows the agent's --version without its escape codes", async () => {
    executable("claude", '#!/bin/sh\nprintf "\\033[1m\\033[38;5;208m2.1.197\\033[0m (Claude Code)\\033]8;;https://claude.ai\\007\\033]8;;\\007\\n"\n');
    const { report } = await json(["--", "claude"]);
    expect(check(report, "agent-version")).toMatchObject({ status: "ok", detail: "2.1.197 (Claude Code)", data: { version: "2.1.197 (Claude Code)" } });
  });

  it("warns when --version fails or hangs, without failing", async () => {
    executable("goose", "#!/bin/sh\necho 'goose: unknown flag' >&2\nexit 2\n");
    const { code, report } = await json(["--", "goose"]);
    expect(code).toBe(0);
    expect(check(report, "agent-version")).toMatchObject({ status: "warn", detail: "`goose --version`: exited 2: goose: unknown flag" });

    // A TUI that ignores --version: killed with its children at the timeout.
    executable("amp", "#!/bin/sh\nsleep 30\n");
    const out: string[] = [];
    const start = Date.now();
    const exit = await doctor(["--json", "--", "amp"], { env: { ...process.env }, cwd: work, out: (t) => void out.push(t), isTTY: false, processes: () => [], timeoutMs: 300 });
    expect(Date.now() - start).toBeLessThan(5_000);
    expect(exit).toBe(0);
    expect(check(JSON.parse(out.join("")) as Report, "agent-version")).toMatchObject({ status: "warn", detail: "`amp --version`: no answer within 300 ms" });
  });

  it("takes the agent from --agent NAME, or from AGENTAPI_TYPE", async () => {
    expect((await json(["--agent", "claude"])).report.agent).toBe("claude");
    stdout = "";
    vi.stubEnv("AGENTAPI_TYPE", "claude");
    const { report } = await json([]);
    expect(report.agent).toBe("claude");
    expect(check(report, "agentapi-type")).toMatchObject({ status: "ok", detail: "AGENTAPI_TYPE=claude" });
  });

  it("skips the agent and pointer checks when no agent is named", async () => {
    const { code, report } = await json([]);
    expect(code).toBe(0);
    expect(report.agent).toBeNull();
    expect(check(report, "agent")?.status).toBe("skip");
    expect(check(report, "pointer")?.status).toBe("skip");
  });

  it("describes a pointer it would resume, one it would set aside, and one run refuses", async () => {
    const id = "9ca906aa-a771-42ef-bd10-d5a75d7b5502";
    const fields: Omit<Pointer, "cwd"> = { version: 1, agent: "claude", id, state: "confirmed", capturedAt: "2026-01-02T03:04:05.000Z", confirmedAt: "2026-01-02T03:04:05.000Z", source: { rule: "transcript" }, history: [] };
    const what = `claude ${id} (confirmed, rule transcript, captured 2026-01-02T03:04:05.000Z)`;
    // The default place: another folder's pointer is moved aside by the next run.
    const byDefault = resolvePointerPath({ env: process.env, agent: "claude", cwd: work, home: join(dir, "home") });
    await writePointer(byDefault, { ...fields, cwd: work });
    let { code, report } = await json(["--", "claude"]);
    expect(code).toBe(0);
    expect(report.pointer).toBe(byDefault);
    expect(check(report, "pointer")).toMatchObject({ status: "ok", detail: `${what}: the next start resumes it` });

    await writePointer(byDefault, { ...fields, cwd: "/elsewhere" });
    stdout = "";
    ({ code, report } = await json(["--", "claude"]));
    expect(code).toBe(0);
    expect(check(report, "pointer")).toMatchObject({ status: "warn", detail: `${what}: pointer belongs to /elsewhere, not ${work}; the next start moves it aside and is cold` });

    // Named with --pointer: run refuses another folder's pointer (exit 3) and leaves it alone.
    const named = join(dir, "module", "sessionpin-claude.json");
    await writePointer(named, { ...fields, cwd: "/elsewhere" });
    stdout = "";
    ({ code, report } = await json(["--pointer", named, "--", "claude"]));
    expect(code).toBe(1);
    expect(check(report, "pointer")).toMatchObject({ status: "fail", detail: expect.stringContaining(`${what}: run refuses it (exit 3): ${named} holds claude's session for /elsewhere`) });

    writeFileSync(named, '{"version": 99}');
    stdout = "";
    ({ code, report } = await json(["--pointer", named, "--", "claude"]));
    expect(code).toBe(1);
    expect(check(report, "pointer")).toMatchObject({ status: "fail", detail: expect.stringContaining(`${named}: run refuses it (exit 3): ${named} was written by a newer sessionpin (pointer version 99)`) });
  });

  it("reports the pointer beside AGENTAPI_STATE_FILE, the AGENTAPI_* variables, and a lock left by a dead sessionpin", async () => {
    const module = join(dir, "home", ".claude-module");
    mkdirSync(module, { recursive: true });
    vi.stubEnv("AGENTAPI_STATE_FILE", join(module, "agentapi-state.json"));
    vi.stubEnv("AGENTAPI_PID_FILE", join(module, "agentapi.pid"));
    writeFileSync(join(module, "sessionpin-claude.json.lock"), JSON.stringify({ pid: 2 ** 22 + 12345, startedAt: "2026-01-02T03:04:05.000Z", host: hostname() }));
    const { report } = await json(["--", "claude"]);
    expect(report.pointer).toBe(join(module, "sessionpin-claude.json"));
    expect(check(report, "agentapi-env")).toMatchObject({ status: "info", data: { AGENTAPI_STATE_FILE: join(module, "agentapi-state.json") } });
    expect(check(report, "agentapi-env")?.detail).toContain("the pointer goes beside AGENTAPI_STATE_FILE");
    // AGENTAPI_* but no type, and no agentapi process to ask: a warning, not a failure.
    expect(check(report, "agentapi-type")).toMatchObject({ status: "warn", detail: expect.stringContaining("AGENTAPI_TYPE is not") });
    expect(check(report, "lock")).toMatchObject({ status: "ok", detail: expect.stringContaining("which is gone: the next run takes it over") });
    expect(check(report, "pointer-dir")).toMatchObject({ status: "ok", detail: `${module}: writable` });
  });

  it("with agentapi stopped, checks the pointer run kept in a Coder module folder, and says so (pointer-of)", async () => {
    const id = "9ca906aa-a771-42ef-bd10-d5a75d7b5502";
    const kept = join(dir, "home", ".coder-modules", "coder", "claude-code", "sessionpin-claude.json");
    await writePointer(kept, { version: 1, agent: "claude", id, state: "confirmed", cwd: work, capturedAt: "2026-01-02T03:04:05.000Z", source: { rule: "transcript" }, history: [] });
    const { report } = await json(["--", "claude"]);
    expect(report.pointer).toBe(kept);
    expect(check(report, "pointer-of")).toMatchObject({ status: "info", detail: expect.stringContaining(`kept in a Coder module folder: ${kept}`), data: { pointer: kept, matches: 1 } });
    expect(check(report, "pointer")?.detail).toContain(`claude ${id}`);
    expect(check(report, "log")?.detail).toBe(`${kept.replace(/\.json$/, ".log")} (none yet)`);
  });

  it("fails, without reading it, when the lock is a FIFO (whose read would never return)", async () => {
    const module = join(dir, "home", ".claude-module");
    mkdirSync(module, { recursive: true });
    vi.stubEnv("AGENTAPI_STATE_FILE", join(module, "agentapi-state.json"));
    execFileSync("mkfifo", [join(module, "sessionpin-claude.json.lock")]);
    const { report } = await json(["--", "claude"]);
    expect(check(report, "lock")).toMatchObject({ status: "fail", detail: expect.stringContaining("is not a regular file, remove it by hand: run would start the agent unpinned") });
  });

  it("fails when a running `agentapi server` starts sessionpin without --type", async () => {
    // A stand-in agentapi process whose command line is what doctor reads from /proc.
    const fake = join(dir, "agentapi");
    writeFileSync(fake, "#!/bin/sh\nsleep 30 &\nwait\n");
    chmodSync(fake, 0o755);
    const start = (args: string[]): ChildProcess => {
      const child = spawn(fake, args, { detached: true, stdio: "ignore" });
      children.push(child);
      return child;
    };
    const untyped = start(["server", "--term-width", "67", "--", "sessionpin", "run", "--", "claude"]);
    const typed = start(["server", "--type=claude", "--", "sessionpin", "run", "--", "claude"]);
    await new Promise((resolve) => setTimeout(resolve, 200));

    const { code, report } = await json(["--", "claude"]);
    expect(code).toBe(1);
    const typeCheck = check(report, "agentapi-type");
    expect(typeCheck?.status).toBe("fail");
    expect(typeCheck?.detail).toContain(`agentapi pid ${untyped.pid} (sessionpin run -- claude) has no --type`);
    const servers = typeCheck?.data?.["servers"] as Array<{ pid: number; type: string | null }>;
    expect(servers).toEqual(expect.arrayContaining([
      expect.objectContaining({ pid: untyped.pid, type: null }),
      expect.objectContaining({ pid: typed.pid, type: "claude" }),
    ]));
  });
});

describe("agentapi server detection", () => {
  it("warns when agentapi's --type names another agent than the one sessionpin starts", async () => {
    const out: string[] = [];
    const processes = () => [{ pid: 42, argv: ["agentapi", "server", "--type", "claude", "--", "sessionpin", "run", "--", "amp"] }];
    await doctor(["--json"], { env: { PATH: process.env["PATH"] }, cwd: work, out: (t) => void out.push(t), isTTY: false, processes, timeoutMs: 5_000 });
    const report = JSON.parse(out.join("")) as Report;
    expect(check(report, "agentapi-type")).toMatchObject({ status: "warn", detail: "agentapi pid 42 (sessionpin run -- amp): --type claude does not match the agent amp" });
  });
});
