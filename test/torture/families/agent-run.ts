import type { PtyDriver } from "../../../src/pty/driver.js";
import { Sandbox } from "../../helpers/sandbox.js";
import { exitOf, sleep } from "../../e2e/support.js";
import { check, STACK } from "../harness.js";

/** Words fake Amp may see on a cold or warm start of plain `amp`, besides a whole thread ID. */
const AMP_WORDS = new Set(["threads", "new", "continue"]);
const THREAD = /^T-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/**
 * One interactive `sessionpin run … -- amp` in an agentapi-like PTY, ended with `/exit code`
 * once fake Amp shows its prompt. Returns the exit status and what sessionpin printed.
 */
export async function ampRun(sb: Sandbox, options: readonly string[], code: number, timeoutMs = 20_000): Promise<{ exitCode: number; text: string; driver: PtyDriver }> {
  const driver = sb.sessionpin(["run", "--prompt-quiet", "0.3", ...options, "--", "amp"]);
  try {
    await driver.waitFor(/Type a message/, timeoutMs);
    driver.sendMessage(`/exit ${code}`);
    const { exitCode } = await exitOf(driver, timeoutMs);
    return { exitCode, text: driver.text, driver };
  } catch (error) {
    killLeftover(driver);
    await Promise.race([driver.exited, sleep(2_000)]);
    throw error;
  }
}

/** SIGKILL to what is left of a run, however the attack ended; one already gone is fine. */
export function killLeftover(driver: PtyDriver): void {
  try {
    driver.kill("SIGKILL");
  } catch {
    // gone
  }
}

/** Every argv word fake Amp was started with is a command word or a whole thread ID. */
export function checkAmpArgv(sb: Sandbox): void {
  for (const start of sb.events().filter((e) => e.event === "start")) {
    for (const word of start.argv) check(AMP_WORDS.has(word) || THREAD.test(word), `fake amp started with ${JSON.stringify(start.argv).slice(0, 200)}`);
  }
  check(sb.events().some((e) => e.event === "start"), "fake amp never started");
}

/**
 * What sessionpin itself printed: lines starting "sessionpin:", at most `max` (one per file it
 * cannot use), never two about the same file, and no stack trace.
 */
export function checkOneLine(text: string, max = 1): void {
  const own = text.split("\n").filter((line) => line.startsWith("sessionpin"));
  check(own.length <= max, `sessionpin printed ${own.length} lines: ${own.join(" / ").slice(0, 400)}`);
  const named = own.map((line) => /(\/\S+)/.exec(line)?.[1]);
  check(new Set(named).size === named.length, `two lines about one file: ${own.join(" / ").slice(0, 400)}`);
  check(!STACK.test(text), `a stack trace on the terminal: ${text.slice(0, 600)}`);
}
