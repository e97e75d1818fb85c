import { spawn } from "node:child_process";
import { CarryError } from "./archive-rules.js";

export interface CommandResult {
  readonly code: number | null;
  readonly stdout: Buffer;
  readonly stderr: string;
}

/**
 * Runs one of the agent's own commands (`opencode export <id>`, `<agent> --version`) with no
 * terminal and stdin closed, bounded in time and output: past `maxBytes` of stdout or `timeoutMs`
 * it is killed and the call fails in one line. `executable` is found on the env's PATH.
 */
export function runAgentCommand(executable: string, args: readonly string[], o: { cwd: string; env: NodeJS.ProcessEnv; timeoutMs: number; maxBytes: number }): Promise<CommandResult> {
  const shown = [executable, ...args].join(" ");
  return new Promise((resolve, reject) => {
    const child = spawn(executable, args, { cwd: o.cwd, env: o.env, stdio: ["ignore", "pipe", "pipe"] });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    let bytes = 0;
    let why: string | undefined;
    const stop = (reason: string): void => {
      why ??= reason;
      child.kill("SIGKILL");
    };
    const timer = setTimeout(() => stop(`still ran after ${o.timeoutMs / 1000} s`), o.timeoutMs);
    child.stdout.on("data", (chunk: Buffer) => {
      bytes += chunk.length;
      if (bytes > o.maxBytes) stop(`printed more than ${o.maxBytes} bytes`);
      else out.push(chunk);
    });
    child.stderr.on("data", (chunk: Buffer) => {
      if (err.reduce((sum, b) => sum + b.length, 0) < 64 * 1024) err.push(chunk);
    });
    child.on("error", (error: NodeJS.ErrnoException) => {
      clearTimeout(timer);
      reject(new CarryError(1, `cannot run \`${shown}\`: ${error.code === "ENOENT" ? `${executable} is not on PATH` : error.message}`, { cause: error }));
    });
    child.on("close", (code) => {
      clearTimeout(timer);
      if (why !== undefined) reject(new CarryError(1, `\`${shown}\` ${why}: stopped`));
      else resolve({ code, stdout: Buffer.concat(out), stderr: Buffer.concat(err).toString("utf8") });
    });
  });
}

/** The first line of `text` that says something, without control characters, for a one-line message. */
export function firstLine(text: string, max = 200): string {
  const line = text.split("\n").map((l) => l.replace(/\u001b\[[0-9;]*[A-Za-z]/g, "").replace(/[\u0000-\u001f\u007f]/g, "").trim()).find((l) => l !== "") ?? "";
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}

/** `<agent> --version`'s first line, or null when it says nothing in 15 s. */
export async function agentVersion(executable: string, cwd: string, env: NodeJS.ProcessEnv): Promise<string | null> {
  try {
    const result = await runAgentCommand(executable, ["--version"], { cwd, env, timeoutMs: 15_000, maxBytes: 64 * 1024 });
    const line = firstLine(result.stdout.toString("utf8")) || firstLine(result.stderr);
    return result.code === 0 && line !== "" ? line : null;
  } catch {
    return null;
  }
}
