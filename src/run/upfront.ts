import { spawn } from "node:child_process";
import type { UpfrontCommand } from "../agents/types.js";

const UPFRONT_TIMEOUT_MS = 30_000;
/**
 * After SIGTERM, how long the command has to exit before SIGKILL; after it exited, how long its
 * pipes have to close. A process it left behind can hold them open for as long as it lives, and
 * what the command printed is in by the time it exits.
 */
const GRACE_MS = 2_000;
const MAX_OUTPUT = 1024 * 1024;

export type UpfrontResult = { readonly id: string } | { readonly error: string };

/**
 * Runs the plugin's session-creating command (`amp threads new`) with the agent's own executable,
 * env and cwd, outside the PTY: its output is for sessionpin, not for the screen. Its stdin is
 * closed, so a command that would ask something (Amp's login flow) fails at once instead of
 * waiting for the timeout; `abort` (a signal for sessionpin) stops it. Every wait is bounded: a
 * command that ignores SIGTERM is killed, and one that exited is not waited for past its grace.
 */
export function runUpfront(
  command: string,
  argv: readonly string[],
  parse: UpfrontCommand["parse"],
  options: { readonly env: NodeJS.ProcessEnv; readonly cwd: string; readonly abort: AbortSignal; readonly timeoutMs?: number },
): Promise<UpfrontResult> {
  const shown = [command, ...argv].join(" ");
  const timeoutMs = options.timeoutMs ?? UPFRONT_TIMEOUT_MS;
  return new Promise((resolve) => {
    const child = spawn(command, argv, { env: options.env, cwd: options.cwd, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    let stopped: string | undefined;
    let exit: { code: number | null; signal: NodeJS.Signals | null } | undefined;
    const timers: NodeJS.Timeout[] = [];
    let done = false;
    const finish = (result: UpfrontResult): void => {
      if (done) return;
      done = true;
      for (const timer of timers.splice(0)) clearTimeout(timer);
      options.abort.removeEventListener("abort", onAbort);
      child.stdout.destroy();
      child.stderr.destroy();
      resolve(result);
    };
    const stop = (why: string): void => {
      if (stopped !== undefined || exit !== undefined) return;
      stopped = why;
      child.kill("SIGTERM");
      timers.push(setTimeout(() => child.kill("SIGKILL"), GRACE_MS));
    };
    const onAbort = (): void => stop("stopped: sessionpin was asked to stop");
    const ended = (): void => {
      if (exit === undefined) return;
      const said = (stderr.trim() || stdout.trim()).slice(0, 500);
      if (stopped !== undefined) finish({ error: `\`${shown}\` ${stopped}: ${said}` });
      else if (exit.code !== 0) finish({ error: `\`${shown}\` failed (${exit.signal ?? `exit ${exit.code}`}): ${said}` });
      else {
        const id = parse(stdout.trim());
        finish(id === undefined ? { error: `\`${shown}\` printed no ID: ${JSON.stringify(stdout.trim().slice(0, 200))}` } : { id });
      }
    };
    child.stdout.on("data", (chunk: Buffer) => void (stdout = (stdout + chunk.toString("utf8")).slice(-MAX_OUTPUT)));
    child.stderr.on("data", (chunk: Buffer) => void (stderr = (stderr + chunk.toString("utf8")).slice(-MAX_OUTPUT)));
    child.on("error", (error) => finish({ error: `\`${shown}\` could not run: ${error.message}` }));
    child.on("exit", (code, signal) => {
      exit = { code, signal };
      timers.push(setTimeout(ended, GRACE_MS));
    });
    child.on("close", ended);
    timers.push(setTimeout(() => stop(`timed out after ${timeoutMs} ms`), timeoutMs));
    if (options.abort.aborted) onAbort();
    else options.abort.addEventListener("abort", onAbort, { once: true });
  });
}
