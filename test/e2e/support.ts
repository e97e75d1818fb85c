import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, realpathSync, writeFileSync } from "node:fs";
import { randomUUID } from "node:crypto";
import { dirname } from "node:path";
import type { PtyDriver } from "../../src/pty/driver.js";
import { CLI, Sandbox, type FakeAmpEvent } from "../helpers/sandbox.js";

/** The task prompt the agent tests send. */
export const PROMPT = "Fix the failing build, then run the tests.";
/** A lowercase dashed UUID, whole. */
export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** Short enough for tests, long enough for the fake's single-write TUI to land first. */
export const QUIET = "0.3";
/** The upper bound for any single wait in these tests. */
export const WAIT_MS = 15_000;

/** A fresh T-<uuid> that no fake Amp state knows. */
export const newThreadId = (): string => `T-${randomUUID()}`;

/** The working folder sessionpin sees (process.cwd() is the real path). */
export const cwdOf = (sb: Sandbox): string => realpathSync(sb.dir);

/** The fake Amp events of one kind, in order. */
export function eventsOf(sb: Sandbox, event: string): FakeAmpEvent[] {
  return sb.events().filter((e) => e.event === event);
}

/** The texts of every message the fake Amp received, across all its runs in this sandbox. */
export function messages(sb: Sandbox): string[] {
  return eventsOf(sb, "message").map((e) => String(e["text"]));
}

export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Polls `probe` until it returns something other than undefined/false; throws after `timeoutMs`.
 * A file the probe reads that is not there yet (ENOENT) counts as not yet.
 */
export async function waitUntil<T>(probe: () => T | undefined | false, what: string, timeoutMs = WAIT_MS): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = notYetWhenMissing(probe);
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(25);
  }
}

function notYetWhenMissing<T>(probe: () => T | undefined | false): T | undefined | false {
  try {
    return probe();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw error;
  }
}

/** The driver's exit, or an error after `timeoutMs` (a hung sessionpin must fail the test, not hang it). */
export async function exitOf(driver: PtyDriver, timeoutMs = WAIT_MS): Promise<{ exitCode: number; signal: number }> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`process ${driver.pid} did not exit within ${timeoutMs} ms; output:\n${driver.text}`)), timeoutMs);
  });
  try {
    return await Promise.race([driver.exited, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** Whether the driver's process has exited yet (without waiting). */
export async function hasExited(driver: PtyDriver): Promise<boolean> {
  const marker = Symbol("running");
  const result = await Promise.race([driver.exited, sleep(0).then(() => marker)]);
  return result !== marker;
}

/**
 * Tracks sandboxes and drivers of one test so afterEach can end whatever is still running
 * (SIGTERM first, which sessionpin forwards to the agent, then SIGKILL) and remove the folders.
 */
export class Cleanup {
  #sandboxes: Sandbox[] = [];
  #drivers: PtyDriver[] = [];

  sandbox(extraEnv: NodeJS.ProcessEnv = {}): Sandbox {
    const sb = new Sandbox(extraEnv);
    this.#sandboxes.push(sb);
    return sb;
  }

  driver<D extends PtyDriver>(driver: D): D {
    this.#drivers.push(driver);
    return driver;
  }

  async run(): Promise<void> {
    for (const driver of this.#drivers) {
      if (await hasExited(driver)) continue;
      try {
        driver.kill("SIGTERM");
      } catch {
        // already gone
      }
      const ended = await Promise.race([driver.exited.then(() => true), sleep(3_000).then(() => false)]);
      if (!ended) {
        try {
          driver.kill("SIGKILL");
        } catch {
          // already gone
        }
      }
    }
    this.#drivers = [];
    for (const sb of this.#sandboxes) sb.cleanup();
    this.#sandboxes = [];
  }
}

export interface CliResult {
  readonly status: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** `sessionpin <args>` with pipes (not a PTY), for commands whose stdout and stderr must be told apart. */
export function cli(sb: Sandbox, args: readonly string[], env: NodeJS.ProcessEnv = {}): CliResult {
  const result = spawnSync(process.execPath, [CLI, ...args], {
    cwd: sb.dir,
    env: { ...sb.env, ...env },
    input: "",
    encoding: "utf8",
    timeout: WAIT_MS,
  });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

/** Arguments for `sessionpin run` on the sandbox's pointer. */
export function runArgs(sb: Sandbox, options: readonly string[], command: readonly string[]): string[] {
  return ["run", "--pointer", sb.pointer, "--prompt-quiet", QUIET, ...options, "--", ...command];
}

/** A confirmed Amp pointer for the sandbox's folder, as sessionpin writes one, with `fields` on top. */
export function pointerByHand(sb: Sandbox, fields: Record<string, unknown>): Record<string, unknown> {
  return {
    version: 1,
    agent: "amp",
    id: newThreadId(),
    state: "confirmed",
    cwd: cwdOf(sb),
    capturedAt: "2026-01-02T03:04:05.000Z",
    confirmedAt: "2026-01-02T03:04:05.000Z",
    source: { rule: "threads-new" },
    history: [],
    ...fields,
  };
}

/** A pointer as sessionpin writes it, for tests that prepare one by hand. */
export function writePointerByHand(sb: Sandbox, fields: Record<string, unknown>): Record<string, unknown> {
  const pointer = pointerByHand(sb, fields);
  mkdirSync(dirname(sb.pointer), { recursive: true, mode: 0o700 });
  writeFileSync(sb.pointer, `${JSON.stringify(pointer, null, 2)}\n`, { mode: 0o600 });
  return pointer;
}

/** The text of a file beside the pointer. */
export function readBeside(sb: Sandbox, name: string): string {
  return readFileSync(`${dirname(sb.pointer)}/${name}`, "utf8");
}

export const pointerExists = (sb: Sandbox): boolean => existsSync(sb.pointer);

/**
 * A cold interactive start through sessionpin with `prompt`, ended with Ctrl-C once the prompt
 * was answered. Returns the pinned ID (read from the pointer file).
 */
export async function coldStart(cleanup: Cleanup, sb: Sandbox, prompt: string, command: readonly string[] = ["amp", "--mode", "smart"]): Promise<string> {
  const driver = cleanup.driver(sb.sessionpin(runArgs(sb, ["--prompt", prompt], command)));
  await driver.waitFor(/Amp: noted \(1 messages in this thread\)/, WAIT_MS);
  driver.write("\x03");
  const { exitCode } = await exitOf(driver);
  if (exitCode !== 0) throw new Error(`cold start exited ${exitCode}; output:\n${driver.text}`);
  const id = sb.readPointer()["id"];
  if (typeof id !== "string") throw new Error(`no ID in the pointer after a cold start: ${JSON.stringify(sb.readPointer())}`);
  return id;
}
