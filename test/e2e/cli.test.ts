/**
 * The CLI around `run`: agents without a plugin, shell-style exit codes for missing or
 * non-executable agents, usage errors, --help/--version, the pointer as plan, run and doctor
 * judge it, and the one-writer lock on a pointer. `plan` and `pointer show|clear` themselves:
 * test/cli/plan.test.ts and pointer.test.ts.
 */
import { execFileSync, spawn, spawnSync } from "node:child_process";
import { once } from "node:events";
import { chmodSync, existsSync, mkdirSync, openSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { hostname } from "node:os";
import { dirname, join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { CLI, ROOT } from "../helpers/sandbox.js";
import {
  Cleanup, cli, eventsOf, exitOf, hasExited, runArgs, sleep, WAIT_MS, waitUntil, writePointerByHand,
} from "./support.js";

const cleanup = new Cleanup();
afterEach(() => cleanup.run());

/** Every file below `dir`, relative, or [] when it does not exist. */
function filesUnder(dir: string): string[] {
  return existsSync(dir) ? readdirSync(dir, { recursive: true, withFileTypes: true }).filter((e) => e.isFile()).map((e) => join(e.parentPath, e.name)) : [];
}

describe("an agent with no plugin", () => {
  it("runs transparently: its output, its exit code, no pointer, and the log says why", async () => {
    const sb = cleanup.sandbox();
    const driver = cleanup.driver(sb.sessionpin(["run", "--pointer", sb.pointer, "--", "sh", "-c", "printf hi; exit 4"]));
    const { exitCode } = await exitOf(driver);
    expect(exitCode).toBe(4);
    expect(driver.output.toString("utf8")).toBe("hi");
    expect(existsSync(sb.pointer)).toBe(false);
    expect(filesUnder(join(sb.dir, "xdg-state")).filter((f) => f.endsWith(".json"))).toEqual([]);
    expect(sb.readLog()).toMatch(/no plugin for "sh": running it transparently, nothing is captured/);
  });
});

describe("input that is not a terminal", () => {
  it("on pipes (stdout no terminal), the agent reads sessionpin's stdin itself: what it prints is what it prints bare, stderr apart", () => {
    const sb = cleanup.sandbox();
    const command = ["sh", "-c", "wc -c; echo to-stderr >&2; exit 3"];
    const bare = spawnSync(command[0] ?? "", command.slice(1), { cwd: sb.dir, env: sb.env, input: "hello\n", encoding: "utf8", timeout: WAIT_MS });
    const piped = spawnSync(process.execPath, [CLI, "run", "--pointer", sb.pointer, "--", ...command], { cwd: sb.dir, env: sb.env, input: "hello\n", encoding: "utf8", timeout: WAIT_MS });
    expect({ status: piped.status, stdout: piped.stdout, stderr: piped.stderr }).toEqual({ status: 3, stdout: "6\n", stderr: "to-stderr\n" });
    expect({ status: bare.status, stdout: bare.stdout, stderr: bare.stderr }).toEqual({ status: piped.status, stdout: piped.stdout, stderr: piped.stderr });
  });

  it("ends: in a PTY (--pty), an agent reading to the end of its input gets end-of-file, after a line in progress too; one in raw mode gets no ^D", async () => {
    const sb = cleanup.sandbox();
    const piped = (input: string, command: string[]) => spawnSync(process.execPath, [CLI, "run", "--pty", "--pointer", sb.pointer, "--", ...command], { cwd: sb.dir, env: sb.env, input, encoding: "utf8", timeout: WAIT_MS });
    // The PTY echoes what it is given, as a terminal would, before the agent's answer.
    expect(piped("hello\n", ["wc", "-c"])).toMatchObject({ status: 0, stdout: "hello\r\n6\r\n" });
    expect(piped("abc", ["wc", "-c"])).toMatchObject({ status: 0, stdout: "abc3\r\n" });
    // Each reader gets its own end: the second finds the input ended too.
    expect(piped("a\n", ["sh", "-c", "cat >/dev/null; wc -l; echo done"])).toMatchObject({ status: 0, stdout: "a\r\n0\r\ndone\r\n" });
    // Input that ended before a TUI went raw: no ^D waits for it there, to be read as a key.
    const late = piped("", ["sh", "-c", "sleep 0.5; stty raw -echo; timeout --foreground 1 dd bs=1 count=1 status=none | od -An -c; stty sane; echo end"]);
    expect(late).toMatchObject({ status: 0, stdout: expect.stringMatching(/^\s*end\r?\n$/) as unknown });
    // Raw mode, as a TUI reads keys: the input ends once it is in raw mode; the bytes arrive, no ^D.
    const raw = spawn(process.execPath, [CLI, "run", "--pty", "--pointer", sb.pointer, "--", "sh", "-c", "stty raw -echo; echo ready; timeout --foreground 2 dd bs=1 count=3 status=none | od -An -c; stty sane"], { cwd: sb.dir, env: sb.env, stdio: ["pipe", "pipe", "pipe"] });
    let out = "";
    raw.stdout.on("data", (chunk: Buffer) => void (out += chunk.toString("utf8")));
    const exited = once(raw, "exit");
    await waitUntil(() => out.includes("ready"), "the reader in raw mode");
    raw.stdin.end("ab");
    expect(((await exited) as [number])[0]).toBe(0);
    expect(out.slice(out.indexOf("ready") + 5).replace(/\s+/g, " ").trim()).toBe("a b");
  });
});

describe("agent resolution, as a shell does it", () => {
  it("exits 127 with one line on stderr when the agent is not found", () => {
    const sb = cleanup.sandbox();
    const result = cli(sb, ["run", "--pointer", sb.pointer, "--", "no-such-agent-4f2a"]);
    expect(result.status).toBe(127);
    expect(result.stdout).toBe("");
    expect(result.stderr.trimEnd().split("\n")).toHaveLength(1);
    expect(result.stderr).toMatch(/no-such-agent-4f2a: command not found/);
  });

  it("exits 127 with one line when the agent is a script whose #! interpreter is missing, and runs no later namesake on PATH", () => {
    const sb = cleanup.sandbox();
    const [first, second] = [join(sb.dir, "bin1"), join(sb.dir, "bin2")];
    mkdirSync(first);
    mkdirSync(second);
    writeFileSync(join(first, "twin-agent"), "#!/nonexistent/interp\necho first\n", { mode: 0o755 });
    writeFileSync(join(second, "twin-agent"), "#!/bin/sh\necho second\n", { mode: 0o755 });
    const result = cli(sb, ["run", "--pointer", sb.pointer, "--", "twin-agent"], { PATH: `${first}:${second}:${process.env["PATH"] ?? ""}` });
    expect([result.status, result.stdout, result.stderr]).toEqual([127, "", `sessionpin: twin-agent: cannot execute: its interpreter /nonexistent/interp (${join(first, "twin-agent")}, line 1) is not there\n`]);
    // Saved on Windows: the kernel looks for "/bin/sh\r", and so does this check.
    writeFileSync(join(first, "twin-agent"), "#!/bin/sh\r\necho first\r\n", { mode: 0o755 });
    const crlf = cli(sb, ["run", "--pointer", sb.pointer, "--", "twin-agent"], { PATH: `${first}:${second}:${process.env["PATH"] ?? ""}` });
    expect([crlf.status, crlf.stdout, crlf.stderr]).toEqual([127, "", `sessionpin: twin-agent: cannot execute: its interpreter /bin/sh\\r (${join(first, "twin-agent")}, line 1) is not there\n`]);
  });

  it("exits 126 when the agent given by path is not executable", () => {
    const sb = cleanup.sandbox();
    const script = join(sb.dir, "not-executable.sh");
    writeFileSync(script, "#!/bin/sh\necho never\n");
    chmodSync(script, 0o644);
    const result = cli(sb, ["run", "--pointer", sb.pointer, "--", script]);
    expect(result.status).toBe(126);
    expect(result.stdout).toBe("");
    expect(result.stderr.trimEnd().split("\n")).toHaveLength(1);
    expect(result.stderr).toContain(script);
    expect(result.stderr).toMatch(/permission denied|not executable/);
  });
});

describe("errors name what failed, the path, and why in words", () => {
  it("folders that cannot be made under /proc (the log, a recording, the pointer, the code cache): the agent runs, nothing spins", () => {
    const sb = cleanup.sandbox();
    const missing = "/proc/sessionpin-nope";
    const ran = cli(sb, ["run", "--log", `${missing}/run.log`, "--record", `${missing}/run.cast`, "--", "sh", "-c", "echo ran"], { XDG_STATE_HOME: missing, XDG_CACHE_HOME: missing });
    expect([ran.status, ran.stdout]).toEqual([0, "ran\n"]);
    expect(ran.stderr).toBe(`sessionpin: cannot write ${missing}/run.cast (no such file or folder): running the agent without it\n`);
    const pinned = cli(sb, ["run", "--agent", "claude", "--", "sh", "-c", "echo pinned"], { XDG_STATE_HOME: missing });
    expect([pinned.status, pinned.stdout]).toEqual([0, "pinned\n"]);
    expect(pinned.stderr).toMatch(new RegExp(`^sessionpin: cannot use ${missing}/sessionpin/claude/\\w+\\.json \\(no such file or folder\\): running the agent without pinning its session\n$`));
  });

  it("an unreadable --prompt-file: exit 2, one line with the flag, the path and the reason, not a bare errno code", () => {
    const sb = cleanup.sandbox();
    const missing = join(sb.dir, "no-prompt.txt");
    for (const command of ["run", "plan"]) {
      const result = cli(sb, [command, "--pointer", sb.pointer, "--prompt-file", missing, "--", "amp"]);
      expect(result.status).toBe(2);
      expect(result.stderr).toBe(`sessionpin: --prompt-file ${missing}: no such file or folder\n`);
    }
    const folder = cli(sb, ["plan", "--pointer", sb.pointer, "--prompt-file", sb.dir, "--", "amp"]);
    expect(folder.stderr).toBe(`sessionpin: --prompt-file ${sb.dir}: is a folder\n`);
  });

  it("a --prompt-file that is a FIFO or /dev/zero: refused at once, not waited on or read without end", () => {
    const sb = cleanup.sandbox();
    const fifo = join(sb.dir, "prompt.fifo");
    execFileSync("mkfifo", [fifo]);
    for (const file of [fifo, "/dev/zero"]) {
      for (const command of ["run", "plan"]) {
        const result = cli(sb, [command, "--pointer", sb.pointer, "--prompt-file", file, "--", "amp"]);
        expect(result.status).toBe(2);
        expect(result.stderr).toBe(`sessionpin: --prompt-file ${file}: not a regular file\n`);
      }
    }
    const big = join(sb.dir, "big.txt");
    writeFileSync(big, "x".repeat((1 << 20) + 1));
    expect(cli(sb, ["plan", "--pointer", sb.pointer, "--prompt-file", big, "--", "amp"]).stderr).toBe(`sessionpin: --prompt-file ${big}: 1048577 bytes, more than a prompt's 1048576\n`);
  });

  it("a --trace that is a FIFO: one line on stderr, and the agent runs without it", () => {
    const sb = cleanup.sandbox();
    const fifo = join(sb.dir, "trace.fifo");
    execFileSync("mkfifo", [fifo]);
    const result = cli(sb, ["run", "--pointer", sb.pointer, "--trace", fifo, "--", "claude", "-p", "hello", "--output-format", "stream-json", "--verbose"]);
    expect(result.status).toBe(0);
    expect(result.stderr).toMatch(new RegExp(`^sessionpin: cannot write ${fifo} \\(.*\\): running the agent without it\n`));
    expect(sb.fakeMessages("claude").map(([, text]) => text)).toEqual(["hello"]);
  });

  it("a usage error leaves an earlier run's trace and recording as they were", () => {
    const sb = cleanup.sandbox();
    const trace = join(sb.dir, "trace.jsonl");
    const cast = join(sb.dir, "run.cast");
    writeFileSync(trace, "{\"line\":1}\n");
    writeFileSync(cast, "{\"version\":2,\"width\":80,\"height\":24}\n[0.1,\"o\",\"hello\"]\n");
    const before = [readFileSync(trace, "utf8"), readFileSync(cast, "utf8")];
    for (const bad of [["--notify", "ftp://x/y"], ["--wait-lock", "soon"], ["--prompt-quiet", "-1"]]) {
      const result = cli(sb, ["run", "--pointer", sb.pointer, "--trace", trace, "--record", cast, "--record-mode", "overwrite", ...bad, "--", "claude"]);
      expect(result.status, bad.join(" ")).toBe(2);
      expect([readFileSync(trace, "utf8"), readFileSync(cast, "utf8")], bad.join(" ")).toEqual(before);
    }
  });

  it("the log, trace and recording are private also when they were there before with wider permissions", () => {
    const sb = cleanup.sandbox();
    const files = ["my.log", "trace.jsonl", "run.cast"].map((name) => join(sb.dir, name));
    for (const file of files) {
      writeFileSync(file, "");
      chmodSync(file, 0o644);
    }
    const [log, trace, cast] = files as [string, string, string];
    const result = cli(sb, ["run", "--pointer", sb.pointer, "--log", log, "--trace", trace, "--record", cast, "--record-mode", "overwrite", "--", "claude", "-p", "hello", "--output-format", "stream-json", "--verbose"]);
    expect(result.status).toBe(0);
    expect(files.map((file) => (statSync(file).mode & 0o777).toString(8))).toEqual(["600", "600", "600"]);
  });

  it("an unreadable --plugin file: the file and the reason, then the rest", () => {
    const sb = cleanup.sandbox();
    const missing = join(sb.dir, "gone.json");
    const result = cli(sb, ["plugins", "--plugin", missing]);
    expect(result.status).toBe(1);
    expect(result.stderr).toBe(`sessionpin: plugin ${missing}: no such file or folder (skipped)\n`);
    expect(result.stdout).toContain("amp (amp; built-in)");
  });
});

describe("usage", () => {
  it("exits 2 with the usage on stderr for an unknown flag of run", () => {
    const sb = cleanup.sandbox();
    const result = cli(sb, ["run", "--no-such-flag", "--", "amp"]);
    expect(result.status).toBe(2);
    expect(result.stdout).toBe("");
    // One line, as every error before the agent starts.
    expect(result.stderr).toMatch(/^sessionpin: .*--no-such-flag.* \(`sessionpin run --help` lists the options\)\n$/);
    // Nothing was started.
    expect(eventsOf(sb, "start")).toEqual([]);
  });

  it("exits 2 for an unknown command and for a bad --fallback-window", () => {
    const sb = cleanup.sandbox();
    // Names every object has (constructor, toString) are not commands either.
    for (const name of ["frobnicate", "constructor", "toString"]) {
      const unknown = cli(sb, [name]);
      expect(unknown.status).toBe(2);
      expect(unknown.stderr).toContain(`unknown command "${name}"`);
    }
    const bad = cli(sb, ["run", "--fallback-window", "soon", "--pointer", sb.pointer, "--", "amp"]);
    expect(bad.status).toBe(2);
    expect(bad.stderr).toMatch(/--fallback-window soon/);
    expect(eventsOf(sb, "start")).toEqual([]);
  });

  it.each([[["--help"]], [["run", "--help"]], [["plan", "--help"]], [["pointer", "--help"]]])("%j exits 0 with usage on stdout", (args) => {
    const sb = cleanup.sandbox();
    const result = cli(sb, args);
    expect(result.status).toBe(0);
    expect(result.stderr).toBe("");
    expect(result.stdout).toMatch(/^Usage: sessionpin/);
  });

  it("commands other than run write all their output to a reader slower than they are, and say so in one line (exit 1) when it cannot be written", async () => {
    const sb = cleanup.sandbox();
    const input = join(sb.dir, "many.jsonl");
    const lines = Array.from({ length: 20_000 }, (_, i) => JSON.stringify({ type: "system", subtype: "init", session_id: `0f3c2a9e-5b7d-4e21-9c4a-${String(i).padStart(12, "0")}` }));
    writeFileSync(input, `${lines.join("\n")}\n`);
    // A reader that takes nothing for a while: the output is far more than a pipe holds.
    const child = spawn(process.execPath, [CLI, "explain", "--agent", "claude", input], { cwd: sb.dir, env: sb.env, stdio: ["ignore", "pipe", "pipe"] });
    const exited = once(child, "exit");
    child.stdout.pause();
    await sleep(1500);
    const chunks: Buffer[] = [];
    child.stdout.on("data", (chunk: Buffer) => chunks.push(chunk));
    child.stdout.resume();
    const [code] = (await exited) as [number];
    expect(code).toBe(0);
    // The same output as into a file, which takes each write whole at once.
    const file = join(sb.dir, "explained.txt");
    expect(spawnSync(process.execPath, [CLI, "explain", "--agent", "claude", input], { cwd: sb.dir, env: sb.env, stdio: ["ignore", openSync(file, "w"), "pipe"], timeout: WAIT_MS }).status).toBe(0);
    const piped = Buffer.concat(chunks).toString("utf8");
    expect(piped.length).toBeGreaterThan(1024 * 1024);
    expect(piped === readFileSync(file, "utf8"), `${piped.length} bytes through the pipe`).toBe(true);
    expect(piped.trimEnd().split("\n").at(-1)).toMatch(/: claude 0f3c2a9e-5b7d-4e21-9c4a-000000019999 /);

    // Less left unwritten than a stream's high-water mark (16 KiB) past what the pipe holds: the
    // exit code still waits for it, and is the command's own (1: no ID found).
    const few = join(sb.dir, "lookalikes.jsonl");
    writeFileSync(few, `${Array.from({ length: 320 }, (_, i) => JSON.stringify({ type: "telemetry", session_id: `T-019eb6cc-8d0b-7c4e-9a1f-${String(i).padStart(12, "0")}` })).join("\n")}\n`);
    // A reader that takes nothing for a second, as `| (sleep 1; cat)`: nothing in between to buffer.
    const slow = spawnSync("bash", ["-c", `"$0" "$1" explain --agent amp "$2" | (sleep 1; cat); echo "exit \${PIPESTATUS[0]}"`, process.execPath, CLI, few], { cwd: sb.dir, env: sb.env, encoding: "utf8", timeout: WAIT_MS });
    const slowLines = slow.stdout.trimEnd().split("\n");
    expect(slow.stdout.length).toBeGreaterThan(64 * 1024);
    expect(slowLines.slice(-2)).toEqual([`${few}: no ID found (jsonl, agent amp)`, "exit 1"]);

    for (const args of [["replay", input], ["plan", "--", "amp"], ["--help"]]) {
      const full = spawnSync(process.execPath, [CLI, ...args], { cwd: sb.dir, env: sb.env, stdio: ["ignore", openSync("/dev/full", "w"), "pipe"], encoding: "utf8", timeout: WAIT_MS });
      expect([full.status, full.stderr], args.join(" ")).toEqual([1, "sessionpin: cannot write the output: no space left on the device\n"]);
    }
  });

  it("--version prints the version from package.json", () => {
    const sb = cleanup.sandbox();
    const { version } = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { version: string };
    for (const flag of ["--version", "-V"]) {
      const result = cli(sb, [flag]);
      expect(result.status).toBe(0);
      expect(result.stdout).toBe(`sessionpin ${version}\n`);
    }
  });
});

describe("pointer show|clear", () => {
  it("plan says unpinned where run cannot use the pointer (a file in its path, a FIFO for its lock), as run then does", () => {
    const sb = cleanup.sandbox();
    const file = join(sb.dir, "afile");
    writeFileSync(file, "");
    const fifoPointer = join(sb.dir, "state", "p.json");
    mkdirSync(dirname(fifoPointer), { recursive: true });
    execFileSync("mkfifo", [`${fifoPointer}.lock`]);
    for (const pointer of [join(file, "x.json"), fifoPointer]) {
      const plan = cli(sb, ["plan", "--pointer", pointer, "--", "claude", "-p", "hello"]);
      expect(JSON.parse(plan.stdout), pointer).toMatchObject({ mode: "unpinned", id: null, reason: expect.stringContaining(`${pointer} cannot be used`) as unknown });
      const run = cli(sb, ["run", "--pointer", pointer, "--", "claude", "-p", "hello", "--output-format", "stream-json", "--verbose"]);
      expect(run.status, pointer).toBe(0);
      expect(run.stderr, pointer).toContain("running the agent without pinning its session");
      // pointer show and doctor say the same of it.
      const shown = JSON.parse(cli(sb, ["pointer", "show", "--pointer", pointer, "--agent", "claude", "--json"]).stdout) as { next: { mode: string; reason: string } };
      expect(shown.next, pointer).toMatchObject({ mode: "unpinned", reason: expect.stringContaining(`${pointer} cannot be used`) as unknown });
      const checks = (JSON.parse(cli(sb, ["doctor", "--json", "--pointer", pointer, "--", "claude", "-p", "hello"]).stdout) as { checks: Array<{ name: string; detail: string }> }).checks;
      expect(checks.find((check) => check.name === "pointer")?.detail, pointer).toContain(`run neither resumes nor replaces it: ${pointer} cannot be used`);
    }
  });

  it("doctor judges the pointer with the agent's arguments, as plan and run do: a subcommand pins nothing", () => {
    const sb = cleanup.sandbox();
    writePointerByHand(sb, {});
    const command = ["amp", "threads", "list"];
    expect(JSON.parse(cli(sb, ["plan", "--pointer", sb.pointer, "--", ...command]).stdout)).toMatchObject({ mode: "unpinned" });
    const checks = (JSON.parse(cli(sb, ["doctor", "--json", "--pointer", sb.pointer, "--", ...command]).stdout) as { checks: Array<{ name: string; detail: string }> }).checks;
    expect(checks.find((check) => check.name === "pointer")?.detail).toMatch(/: run neither resumes nor replaces it: /);
  });

  it("pointer clear on a path with no pointer file to move: one line, not a stack trace, and nothing moved", () => {
    const sb = cleanup.sandbox();
    const folder = join(sb.dir, "adir");
    mkdirSync(folder);
    const refused = cli(sb, ["pointer", "clear", "--pointer", folder]);
    expect([refused.status, refused.stderr]).toEqual([3, `sessionpin: ${folder} is a folder, not a pointer file; left untouched\n`]);
    expect(existsSync(folder)).toBe(true);
    const file = join(sb.dir, "afile");
    writeFileSync(file, "");
    const below = cli(sb, ["pointer", "clear", "--pointer", join(file, "x.json")]);
    expect([below.status, below.stderr]).toEqual([1, `sessionpin: cannot clear ${join(file, "x.json")}: ${file} is not a folder\n`]);
  });

  it("pointer clear while a live run holds the pointer: exit 75 in one line, nothing moved, since that run would write it again", async () => {
    const sb = cleanup.sandbox();
    const live = cleanup.driver(sb.sessionpin(runArgs(sb, ["--prompt", "Tidy up."], ["amp"])));
    // Once the task is typed: a run stopped before that sets its unused pointer aside itself.
    await waitUntil(() => sb.readLog().includes("confirmed T-") && eventsOf(sb, "message").length > 0, "a confirmed pointer and the task typed");
    const refused = cli(sb, ["pointer", "clear", "--pointer", sb.pointer]);
    expect(refused.status).toBe(75);
    expect(refused.stderr).toMatch(new RegExp(`^sessionpin: cannot clear ${sb.pointer}: held by sessionpin pid \\d+ on .*, which would write it again; stop that run first\n$`));
    expect(sb.asideFiles("cleared")).toEqual([]);
    expect(existsSync(sb.pointer)).toBe(true);
    live.kill("SIGTERM");
    await exitOf(live);
    const cleared = cli(sb, ["pointer", "clear", "--pointer", sb.pointer]);
    expect([cleared.status, cleared.stdout, cleared.stderr]).toEqual([0, expect.stringMatching(/^moved /), ""]);
    expect(sb.asideFiles("cleared")).toHaveLength(1);
  });

  it("plan and pointer show name the live run holding the pointer's lock, as run would exit 75 until it is gone; doctor's lock row says it once", async () => {
    const sb = cleanup.sandbox();
    const live = cleanup.driver(sb.sessionpin(runArgs(sb, ["--prompt", "Tidy up."], ["amp"])));
    await waitUntil(() => sb.readLog().includes("confirmed T-") && eventsOf(sb, "message").length > 0, "a confirmed pointer and the task typed");
    const holder = { pid: live.pid, host: hostname(), startedAt: expect.any(String) as unknown };
    const planned = cli(sb, ["plan", "--pointer", sb.pointer, "--", "amp"]);
    expect(planned.status).toBe(0);
    expect(JSON.parse(planned.stdout)).toMatchObject({ mode: "warm", heldBy: holder });
    const second = cli(sb, ["run", "--pointer", sb.pointer, "--", "amp"]);
    expect(second.status).toBe(75);
    const shown = cli(sb, ["pointer", "show", "--pointer", sb.pointer, "--agent", "amp"]);
    expect(shown.stdout).toContain(`\n  held now by sessionpin pid ${live.pid} on ${hostname()} since `);
    expect((JSON.parse(cli(sb, ["pointer", "show", "--pointer", sb.pointer, "--agent", "amp", "--json"]).stdout) as { next: unknown }).next).toMatchObject({ mode: "warm", heldBy: holder });
    const checks = (JSON.parse(cli(sb, ["doctor", "--json", "--pointer", sb.pointer, "--", "amp"]).stdout) as { checks: Array<{ name: string }> }).checks;
    expect(checks.filter((check) => check.name === "lock")).toEqual([expect.objectContaining({ status: "info", data: expect.objectContaining({ held: true, pid: live.pid }) as unknown })]);
    // A subcommand takes no lock: nothing waits for the holder.
    expect(JSON.parse(cli(sb, ["plan", "--pointer", sb.pointer, "--", "amp", "threads", "list"]).stdout)).not.toHaveProperty("heldBy");
    live.kill("SIGTERM");
    await exitOf(live);
    expect(JSON.parse(cli(sb, ["plan", "--pointer", sb.pointer, "--", "amp"]).stdout)).not.toHaveProperty("heldBy");
  });

  it("an empty --pointer (an unset variable) is a usage error, not the default place taken for a named file", () => {
    const sb = cleanup.sandbox();
    for (const args of [["plan", "--pointer", "", "--", "amp"], ["run", "--pointer", "", "--", "amp"], ["pointer", "show", "--pointer", ""]]) {
      const result = cli(sb, args);
      expect([result.status, result.stderr], args.join(" ")).toEqual([2, "sessionpin: --pointer: empty path (an unset variable?): name the pointer file, or leave --pointer out\n"]);
    }
  });

  it("pointer show and clear with an unknown --agent: exit 2, as run, not a pointer that was never there", () => {
    const sb = cleanup.sandbox();
    for (const action of ["show", "clear"]) {
      const result = cli(sb, ["pointer", action, "--agent", "claudee"]);
      expect([result.status, result.stdout]).toEqual([2, ""]);
      expect(result.stderr).toMatch(/^sessionpin: --agent claudee: no such plugin \(known: .*claude.*\)\n$/);
    }
  });

  it("reports an unreadable pointer without touching it", () => {
    const sb = cleanup.sandbox();
    writePointerByHand(sb, { state: "maybe" });
    const text = readFileSync(sb.pointer, "utf8");
    const shown = cli(sb, ["pointer", "show", "--pointer", sb.pointer, "--json"]);
    expect(shown.status).toBe(1);
    expect(JSON.parse(shown.stdout)).toMatchObject({ pointer: sb.pointer, kind: "invalid" });
    expect(JSON.parse(shown.stdout).reason).toMatch(/state/);
    expect(readFileSync(sb.pointer, "utf8")).toBe(text);
  });
});

describe("lock", () => {
  it("a second run on the same pointer exits 75 with one line while the first keeps running", async () => {
    const sb = cleanup.sandbox();
    const first = cleanup.driver(sb.sessionpin(runArgs(sb, [], ["amp", "--mode", "smart"])));
    await first.waitFor(/new thread/, WAIT_MS);
    const startsBefore = eventsOf(sb, "start").length;

    const second = cli(sb, runArgs(sb, [], ["amp", "--mode", "smart"]));
    expect(second.status).toBe(75);
    expect(second.stdout).toBe("");
    expect(second.stderr.trimEnd().split("\n")).toHaveLength(1);
    expect(second.stderr).toContain(sb.pointer);
    expect(second.stderr).toContain(`pid ${first.pid}`);

    // The second started no agent, and the first is unharmed and still answers.
    expect(eventsOf(sb, "start")).toHaveLength(startsBefore);
    await sleep(200);
    expect(await hasExited(first)).toBe(false);
    first.sendMessage("still mine?");
    await first.waitFor(/Amp: noted \(1 messages in this thread\)/, WAIT_MS);
    first.write("\x03");
    expect((await exitOf(first)).exitCode).toBe(0);

    // Released at exit: a later run may take it.
    expect(existsSync(`${sb.pointer}.lock`)).toBe(false);
  });

  it("the second run's refusal is also one line when it runs in a PTY like agentapi's", async () => {
    const sb = cleanup.sandbox();
    const first = cleanup.driver(sb.sessionpin(runArgs(sb, [], ["amp"])));
    await first.waitFor(/new thread/, WAIT_MS);
    const second = cleanup.driver(sb.sessionpin(runArgs(sb, [], ["amp"])));
    expect((await exitOf(second)).exitCode).toBe(75);
    expect(second.text.trim().split("\n")).toHaveLength(1);
    expect(second.text).toMatch(/in use by sessionpin pid \d+/);
    expect(await hasExited(first)).toBe(false);
    first.write("\x03");
    expect((await exitOf(first)).exitCode).toBe(0);
  });
});
