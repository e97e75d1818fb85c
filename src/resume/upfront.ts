import { spawn } from "node:child_process";
import type { UpfrontCommand } from "../agents/types.js";

const UPFRONT_TIMEOUT_MS = 30_000;
const MAX_OUTPUT = 1024 * 1024;

export type UpfrontResult = { readonly id: string } | { readonly error: string };

/**
 * Runs the plugin's session-creating command (`amp threads new`) with the agent's own executable,
 * env and cwd, outside the PTY: its output is for sessionpin, not for the screen. Its stdin is
 * closed, so a command that would ask something (Amp's login flow) fails at once instead of
 * waiting for the timeout; `abort` (a signal for sessionpin) stops it.
 */
export function runUpfront(
  command: string,
  argv: readonly string[],
  parse: UpfrontCommand["parse"],
  options: { readonly env: NodeJS.ProcessEnv; readonly cwd: string; readonly abort: AbortSignal },
): Promise<UpfrontResult> {
  const shown = [command, ...argv].join(" ");
  return new Promise((resolve) => {
    const child = spawn(command, argv, {
      env: options.env,
      cwd: options.cwd,
      stdio: ["ignore", "pipe", "pipe"],
      timeout: UPFRONT_TIMEOUT_MS,
      signal: options.abort,
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => void (stdout = (stdout + chunk.toString("utf8")).slice(-MAX_OUTPUT)));
    child.stderr.on("data", (chunk: Buffer) => void (stderr = (stderr + chunk.toString("utf8")).slice(-MAX_OUTPUT)));
    child.on("error", (error) => resolve({ error: `\`${shown}\` could not run: ${error.message}` }));
    child.on("close", (code, signal) => {
      if (code !== 0) {
        const said = (stderr.trim() || stdout.trim()).slice(0, 500);
        resolve({ error: `\`${shown}\` failed (${signal ?? `exit ${code}`}): ${said}` });
        return;
      }
      const id = parse(stdout.trim());
      resolve(id === undefined ? { error: `\`${shown}\` printed no ID: ${JSON.stringify(stdout.trim().slice(0, 200))}` } : { id });
    });
  });
}
