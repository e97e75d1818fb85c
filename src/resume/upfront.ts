import { execFile } from "node:child_process";
import type { UpfrontCommand } from "../agents/types.js";

const UPFRONT_TIMEOUT_MS = 60_000;

export type UpfrontResult = { readonly id: string } | { readonly error: string };

/**
 * Runs the plugin's session-creating command (`amp threads new`) with the agent's own executable,
 * env and cwd, outside the PTY: its output is for sessionpin, not for the screen.
 */
export function runUpfront(
  command: string,
  upfront: UpfrontCommand,
  args: readonly string[],
  options: { readonly env: NodeJS.ProcessEnv; readonly cwd: string },
): Promise<UpfrontResult> {
  const argv = upfront.argv(args);
  const shown = [command, ...argv].join(" ");
  return new Promise((resolve) => {
    execFile(command, argv, { ...options, timeout: UPFRONT_TIMEOUT_MS, maxBuffer: 1024 * 1024 }, (error, stdout, stderr) => {
      const output = `${stdout}`.trim();
      if (error) {
        const said = `${stderr}`.trim() || output || error.message;
        resolve({ error: `\`${shown}\` failed (${error.code ?? error.signal ?? "error"}): ${said.slice(0, 500)}` });
        return;
      }
      const id = upfront.parse(output);
      resolve(id === undefined ? { error: `\`${shown}\` printed no ID: ${JSON.stringify(output.slice(0, 200))}` } : { id });
    });
  });
}
