/**
 * The way CI jobs and chat bridges drive an agent: one `sessionpin run --key THREAD -- <one-shot
 * command> MESSAGE` per message, with no terminal and stdin closed, each call bounded in time.
 */
import { spawn } from "node:child_process";
import { expect } from "vitest";
import { CLI, type Sandbox } from "../helpers/sandbox.js";

export interface OneShotResult {
  /** sessionpin's exit code; null only if the bound killed it (the promise rejects then). */
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
  readonly ms: number;
  /** When stdin was closed, in ms after the start; undefined when it was open until the exit. */
  readonly stdinClosedMs: number | undefined;
}

export interface HeadlessOptions {
  readonly boundMs: number;
  readonly env?: NodeJS.ProcessEnv;
  /** Names the call in the error a bound gives. */
  readonly what?: string;
  /** Written to stdin before it is closed. */
  readonly stdin?: string;
  /** Asked every 100 ms: stdin stays open while it says so. Absent: closed at once. */
  readonly holdOpen?: () => boolean;
}

/**
 * `argv` in the sandbox's folder, as a CI step or a bridge runs it: stdout and stderr pipes, no
 * terminal anywhere, `stdin` written and then closed (at once, or once `holdOpen` says no more).
 * Rejects, after killing the whole group, when it still runs at `boundMs`: a headless call must
 * never wait for input.
 */
export function headlessCall(sb: Sandbox, argv: readonly string[], o: HeadlessOptions): Promise<OneShotResult> {
  const [file = "", ...args] = argv;
  const started = Date.now();
  const child = spawn(file, args, { cwd: sb.dir, env: { ...sb.env, ...o.env }, stdio: ["pipe", "pipe", "pipe"], detached: true });
  // A child that exits without reading leaves the pipe broken: nothing to report.
  child.stdin.on("error", () => undefined);
  if (o.stdin !== undefined) child.stdin.write(o.stdin);
  let stdinClosedMs: number | undefined;
  let poll: NodeJS.Timeout | undefined;
  const close = (): void => {
    clearInterval(poll);
    if (stdinClosedMs !== undefined) return;
    stdinClosedMs = Date.now() - started;
    child.stdin.end();
  };
  if (o.holdOpen === undefined) close();
  else poll = setInterval(() => void (o.holdOpen?.() === true || close()), 100);
  const out: Buffer[] = [];
  const err: Buffer[] = [];
  child.stdout.on("data", (chunk: Buffer) => out.push(chunk));
  child.stderr.on("data", (chunk: Buffer) => err.push(chunk));
  return new Promise((resolve, reject) => {
    const bound = setTimeout(() => {
      try {
        process.kill(-(child.pid ?? 0), "SIGKILL");
      } catch {
        // already gone
      }
      reject(new Error(`${o.what ?? argv.join(" ")} still ran after ${o.boundMs} ms; stderr: ${Buffer.concat(err).toString("utf8").slice(-2000)}`));
    }, o.boundMs);
    child.on("error", reject);
    child.on("close", (code) => {
      clearTimeout(bound);
      clearInterval(poll);
      resolve({ code, stdout: Buffer.concat(out).toString("utf8"), stderr: Buffer.concat(err).toString("utf8"), ms: Date.now() - started, stdinClosedMs });
    });
  });
}

/** `sessionpin run --key <key> [options] -- <command…>`, called as headlessCall calls it. */
export function oneShot(sb: Sandbox, key: string, command: readonly string[], o: { options?: readonly string[]; boundMs: number; env?: NodeJS.ProcessEnv }): Promise<OneShotResult> {
  return headlessCall(sb, [process.execPath, CLI, "run", "--key", key, ...(o.options ?? []), "--", ...command], {
    boundMs: o.boundMs, ...(o.env !== undefined ? { env: o.env } : {}), what: `${command.join(" ")} (key ${key})`,
  });
}

/**
 * A retried step: `call` repeats a message the session already had. sessionpin starts nothing
 * (exit 4, one line on stderr, nothing on stdout) and the fake model API gets no new request.
 */
export async function repeatSendsNothing(call: () => Promise<OneShotResult>, requests: () => number): Promise<OneShotResult> {
  const before = requests();
  const repeat = await call();
  expect(repeat.code).toBe(4);
  expect(repeat.stderr).toContain("session already had this message");
  expect(repeat.stdout).toBe("");
  expect(requests()).toBe(before);
  return repeat;
}

/** The conversation every headless test holds on one key: the third message asks for the second's word. */
export const THREAD = ["remember the word zebra", "remember the word yak", "which word?"] as const;

/**
 * Sends `THREAD` through `call`, one message per call, each call succeeding; `check(n, message)`
 * proves what the fake model API received for message `n`. Returns each call's time.
 */
export async function converse(call: (message: string) => Promise<OneShotResult>, check: (n: number, message: string) => void): Promise<number[]> {
  const times: number[] = [];
  for (const [n, message] of THREAD.entries()) {
    const result = await call(message);
    times.push(result.ms);
    expect(result.code, result.stderr).toBe(0);
    check(n, message);
  }
  return times;
}
