/**
 * The way CI jobs and chat bridges drive an agent: one `sessionpin run --key THREAD -- <one-shot
 * command> MESSAGE` per message, with no terminal and stdin closed, each call bounded in time.
 */
import { spawn } from "node:child_process";
import { CLI, type Sandbox } from "../helpers/sandbox.js";

export interface OneShotResult {
  /** sessionpin's exit code; null only if the bound killed it (the promise rejects then). */
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
  readonly ms: number;
}

/**
 * `sessionpin run --key <key> [options] -- <command…>` in the sandbox's folder, stdin closed at
 * once, stdout and stderr pipes (no TTY anywhere). Rejects, after killing the whole group, when
 * the call is still running at `boundMs`: a headless call must never wait for input.
 */
export function oneShot(sb: Sandbox, key: string, command: readonly string[], o: { options?: readonly string[]; boundMs: number; env?: NodeJS.ProcessEnv }): Promise<OneShotResult> {
  const started = Date.now();
  const child = spawn(process.execPath, [CLI, "run", "--key", key, ...(o.options ?? []), "--", ...command], {
    cwd: sb.dir, env: { ...sb.env, ...o.env }, stdio: ["pipe", "pipe", "pipe"], detached: true,
  });
  child.stdin.end();
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
      reject(new Error(`${command.join(" ")} (key ${key}) still ran after ${o.boundMs} ms; stderr: ${Buffer.concat(err).toString("utf8").slice(-2000)}`));
    }, o.boundMs);
    child.on("error", reject);
    child.on("close", (code) => {
      clearTimeout(bound);
      resolve({ code, stdout: Buffer.concat(out).toString("utf8"), stderr: Buffer.concat(err).toString("utf8"), ms: Date.now() - started });
    });
  });
}
