/**
 * sessionpin as a transparent PTY: the agent's bytes reach the outer terminal unchanged, input
 * (even input typed before the agent is up) reaches the agent, resizes and the six forwarded
 * signals reach it, and its exit code is sessionpin's.
 */
import { createHash } from "node:crypto";
import { cpSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { CLI, FAKE_AGENTS } from "../helpers/sandbox.js";
import { Cleanup, coldStart, eventsOf, exitOf, hasExited, messages, runArgs, sleep, waitUntil, WAIT_MS } from "../e2e/support.js";

const cleanup = new Cleanup();
afterEach(() => cleanup.run());

const NEW_TUI = /new thread/;

/** A cold interactive start with no prompt; resolves once the fake's TUI is on screen. */
async function startInteractive(extraEnv: NodeJS.ProcessEnv = {}) {
  const sb = cleanup.sandbox(extraEnv);
  const driver = cleanup.driver(sb.sessionpin(runArgs(sb, [], ["amp", "--mode", "smart"])));
  await driver.waitFor(NEW_TUI, WAIT_MS);
  // The interactive agent is the second fake run (after `threads new`).
  const agent = await waitUntil(() => eventsOf(sb, "start").find((e) => e.argv.includes("continue")), "the agent's start event");
  return { sb, driver, agentPid: agent.pid };
}

describe("output", () => {
  it("is byte-identical to running `amp threads continue <id>` directly (sessionpin prints nothing of its own)", async () => {
    const viaShim = cleanup.sandbox();
    const id = await coldStart(cleanup, viaShim, "Remember the number 42.", ["amp"]);
    // A second sandbox holding the same thread state, for the direct run.
    const direct = cleanup.sandbox();
    cpSync(join(viaShim.ampHome, "threads"), join(direct.ampHome, "threads"), { recursive: true });

    const script = async (driver: ReturnType<typeof viaShim.direct>): Promise<number> => {
      await driver.waitFor(/continued, 1 messages/, WAIT_MS);
      driver.sendMessage("What was the number?");
      await driver.waitFor(/Amp: noted \(2 messages in this thread\)/, WAIT_MS);
      driver.sendMessage("/size");
      await driver.waitFor(/size \d+x\d+/, WAIT_MS);
      driver.write("\x03");
      return (await exitOf(driver)).exitCode;
    };
    const shimmed = cleanup.driver(viaShim.sessionpin(runArgs(viaShim, [], ["amp"])));
    expect(await script(shimmed)).toBe(0);
    const plain = cleanup.driver(direct.direct([join(FAKE_AGENTS, "amp"), "threads", "continue", id]));
    expect(await script(plain)).toBe(0);

    // Same thread on both sides, so the same screen must come out.
    expect(eventsOf(viaShim, "start").at(-1)?.argv).toEqual(["threads", "continue", id]);
    expect(plain.output.length).toBeGreaterThan(200);
    expect(shimmed.output.toString("utf8")).toBe(plain.output.toString("utf8"));
    expect(shimmed.output.equals(plain.output)).toBe(true);
  });
});

describe("the outer terminal's modes", () => {
  // The outer shell prints its terminal's modes before and after, as a user's shell would see them.
  // While the agent runs, output processing there is off (`-opost`): the agent's own PTY already
  // turned each "\n" into "\r\n", and the outer terminal must not add another "\r". The agent
  // reads the outer terminal's flags through sessionpin's stdout (its parent's fd 1).
  const outer = (redirect: string) => `stty -g; "$0" "$@" ${redirect}; echo "exit=$?"; stty -g`;
  const agent = "stty -a -F /proc/$PPID/fd/1 | grep -o -- '-opost' | sed 's/^/during: /'";

  it.each([
    ["stdin is the terminal", ""],
    ["stdin is not a terminal", "< /dev/null"],
  ])("are as they were after run, with output processing off meanwhile, when %s", async (_label, redirect) => {
    const sb = cleanup.sandbox();
    const driver = cleanup.driver(sb.direct(["sh", "-c", outer(redirect), process.execPath, CLI, "run", "--pointer", sb.pointer, "--", "sh", "-c", agent]));
    expect((await exitOf(driver)).exitCode).toBe(0);
    const text = driver.output.toString("utf8");
    expect(text).toMatch(/during: -opost/);
    expect(text).toMatch(/exit=0/);
    const modes = text.match(/^[0-9a-f:]{40,}(?=\r?$)/gm) ?? [];
    expect(modes).toHaveLength(2);
    expect(modes[1]).toBe(modes[0]);
  });
});

describe("window size", () => {
  it("starts the agent at the outer size and passes a resize on (SIGWINCH → 100x40)", async () => {
    const { sb, driver, agentPid } = await startInteractive();
    driver.sendMessage("/size");
    await driver.waitFor(/size 67x1190/, WAIT_MS);

    driver.resize(100, 40);
    await driver.waitFor(/resized 100x40/, WAIT_MS);
    expect(eventsOf(sb, "resize").map((e) => [e.pid, e["cols"], e["rows"]])).toEqual([[agentPid, 100, 40]]);
    driver.sendMessage("/size");
    await driver.waitFor(/size 100x40/, WAIT_MS);

    driver.write("\x03");
    expect((await exitOf(driver)).exitCode).toBe(0);
  });
});

describe("signals", () => {
  it.each(["SIGINT", "SIGHUP", "SIGQUIT", "SIGUSR1", "SIGUSR2"] as const)(
    "forwards %s to the agent, and sessionpin keeps running",
    async (signal) => {
      const { sb, driver, agentPid } = await startInteractive();
      driver.kill(signal);
      const received = await waitUntil(() => eventsOf(sb, "signal")[0], `the agent to log ${signal}`);
      expect(received).toMatchObject({ pid: agentPid, signal });
      // The fake ignores it; sessionpin must not have died of it either.
      await sleep(300);
      expect(await hasExited(driver)).toBe(false);
      expect(eventsOf(sb, "signal").map((e) => e["signal"])).toEqual([signal]);
      expect(sb.readLog()).toContain(`forwarding ${signal} to the agent's process group`);

      // Still interactive after the signal.
      driver.sendMessage("still there?");
      await driver.waitFor(/Amp: noted \(1 messages in this thread\)/, WAIT_MS);
      driver.write("\x03");
      expect((await exitOf(driver)).exitCode).toBe(0);
    },
  );

  it("forwards SIGTERM; the agent exits 143 and so does sessionpin", async () => {
    const { sb, driver, agentPid } = await startInteractive();
    driver.kill("SIGTERM");
    const { exitCode, signal } = await exitOf(driver);
    expect(exitCode).toBe(143);
    expect(signal).toBe(0);
    expect(eventsOf(sb, "signal").map((e) => [e.pid, e["signal"]])).toEqual([[agentPid, "SIGTERM"]]);
    expect(eventsOf(sb, "exit").find((e) => e.pid === agentPid)?.["code"]).toBe(143);
  });
});

describe("exit codes", () => {
  it("exits with the agent's own code (/exit 3 → 3)", async () => {
    const { sb, driver, agentPid } = await startInteractive();
    driver.sendMessage("/exit 3");
    expect((await exitOf(driver)).exitCode).toBe(3);
    expect(eventsOf(sb, "exit").find((e) => e.pid === agentPid)?.["code"]).toBe(3);
  });

  it("exits 128+N when the agent died of signal N (/die → SIGKILL → 137)", async () => {
    const { sb, driver, agentPid } = await startInteractive();
    driver.sendMessage("/die");
    expect((await exitOf(driver)).exitCode).toBe(137);
    // /die leaves no exit event: the fake really was killed.
    expect(eventsOf(sb, "exit").map((e) => e.pid)).not.toContain(agentPid);
    expect(sb.readLog()).toMatch(/agent exited: code \d+, signal 9/);
  });

  it("passes a warm start's non-zero exit through when the fallback window is 0", async () => {
    const sb = cleanup.sandbox();
    const id = await coldStart(cleanup, sb, "Count to three.");
    const driver = cleanup.driver(sb.sessionpin(runArgs(sb, ["--fallback-window", "0"], ["amp", "--mode", "smart"])));
    await driver.waitFor(/continued, 1 messages/, WAIT_MS);
    driver.sendMessage("/exit 5");
    expect((await exitOf(driver)).exitCode).toBe(5);
    expect(sb.readPointer()["id"]).toBe(id);
    expect(sb.asideFiles("rejected")).toEqual([]);
  });

  // A turn closes the fallback window: a later non-zero exit is the agent's business, not a
  // rejected thread, so the pointer stays and the prompt is not typed again.
  it("keeps a resumed thread that already ran a turn when the agent later exits non-zero within the window", async () => {
    const sb = cleanup.sandbox();
    const prompt = "Count to three.";
    const id = await coldStart(cleanup, sb, prompt);
    const driver = cleanup.driver(sb.sessionpin(runArgs(sb, ["--prompt", prompt], ["amp", "--mode", "smart"])));
    await driver.waitFor(/continued, 1 messages/, WAIT_MS);
    driver.sendMessage("And now to four.");
    await driver.waitFor(/Amp: noted \(2 messages in this thread\)/, WAIT_MS);
    driver.sendMessage("/exit 3");
    // Long enough for a fallback start to have created a thread and typed the prompt.
    await sleep(2_000);
    const code = (await hasExited(driver)) ? (await driver.exited).exitCode : undefined;
    expect({
      exitCode: code,
      pointerId: sb.readPointer()["id"],
      rejectedFiles: sb.asideFiles("rejected").length,
      threadsCreated: eventsOf(sb, "thread-new").length,
      promptDeliveries: messages(sb).filter((text) => text === prompt).length,
    }).toEqual({ exitCode: 3, pointerId: id, rejectedFiles: 0, threadsCreated: 1, promptDeliveries: 1 });
  });
});

describe("input", () => {
  it("forwards input typed before the agent is up (during threads new)", async () => {
    const sb = cleanup.sandbox();
    const driver = cleanup.driver(sb.sessionpin(runArgs(sb, [], ["amp", "--mode", "smart"])));
    driver.write("hello\r");
    await waitUntil(() => messages(sb).length > 0, "a message at the fake");
    expect(messages(sb)).toEqual(["hello"]);
    // It went to the interactive agent, not to `threads new`.
    const agent = eventsOf(sb, "start").find((e) => e.argv.includes("continue"));
    expect(eventsOf(sb, "message")[0]?.pid).toBe(agent?.pid);
    await driver.waitFor(/Amp: noted \(1 messages in this thread\)/, WAIT_MS);
    driver.write("\x03");
    expect((await exitOf(driver)).exitCode).toBe(0);
  });

  it("passes a 2 MB paste of every byte value through whole and in order while the agent reads in fits", async () => {
    const sb = cleanup.sandbox();
    const size = 2 * 1024 * 1024;
    const paste = Buffer.alloc(size);
    for (let i = 0, x = 11; i < size; i++) {
      x = (x * 1103515245 + 12345) >>> 0;
      paste[i] = x >>> 16;
    }
    // Raw mode; it stops reading for 20 ms after every 64 KiB, so the PTY keeps filling up and
    // emptying while more of the paste arrives.
    const agent = [
      "const hash = require('node:crypto').createHash('sha256');",
      "let got = 0;",
      "process.stdin.setRawMode(true);",
      "process.stdin.on('data', (d) => {",
      "  hash.update(d);",
      "  if (Math.floor((got + d.length) / 65536) > Math.floor(got / 65536)) { process.stdin.pause(); setTimeout(() => process.stdin.resume(), 20); }",
      "  got += d.length;",
      `  if (got >= ${size}) { process.stdout.write('got ' + got + ' ' + hash.digest('hex') + '\\n'); process.exit(0); }`,
      "});",
      "process.stdout.write('ready\\n');",
    ].join("\n");
    const driver = cleanup.driver(sb.sessionpin(["run", "--pointer", sb.pointer, "--", process.execPath, "-e", agent]));
    await driver.waitFor(/ready/, WAIT_MS);
    for (let at = 0; at < size; at += 16384) {
      driver.write(paste.subarray(at, at + 16384));
      await sleep(2);
    }
    await driver.waitFor(/got \d+ [0-9a-f]{64}/, 60_000);
    expect(driver.output.toString("latin1")).toContain(`got ${size} ${createHash("sha256").update(paste).digest("hex")}`);
    expect((await exitOf(driver)).exitCode).toBe(0);
  }, 90_000);

  // A prompt typed before the agent draws anything lands in a terminal still in line mode, and
  // the kernel's echo of it would reach agentapi's screen.
  it("waits for the agent's first output before typing the prompt (slow-starting agent)", async () => {
    const sb = cleanup.sandbox({ NODE_OPTIONS: `--import=${join(import.meta.dirname, "slow-start.mjs")}`, SLOW_START_MS: "1500" });
    const prompt = "Slow but steady.";
    const driver = cleanup.driver(sb.sessionpin(runArgs(sb, ["--prompt", prompt], ["amp", "--mode", "smart"])));
    await driver.waitFor(/Amp: noted \(1 messages in this thread\)/, WAIT_MS);
    driver.write("\x03");
    expect((await exitOf(driver)).exitCode).toBe(0);
    expect(messages(sb)).toEqual([prompt]);
    // The agent's screen must come first: nothing of the prompt before its clear-screen.
    const screen = driver.output.toString("utf8");
    expect(screen.indexOf("\x1b[2J")).toBe(0);
    expect(screen).not.toContain("^[[200~");
  });
});
