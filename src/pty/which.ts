import { accessSync, closeSync, constants, openSync, readSync, statSync } from "node:fs";
import { delimiter, isAbsolute, join, resolve } from "node:path";
import { SessionpinError } from "../errors.js";

/**
 * Resolves `command` the way a shell would, so a missing agent gets 127 and a non-executable one
 * 126 before any PTY exists. The agent is still started by its given name: argv[0] is unchanged.
 */
export function resolveExecutable(command: string, env: NodeJS.ProcessEnv, cwd: string): string {
  const candidates = command.includes("/")
    ? [isAbsolute(command) ? command : resolve(cwd, command)]
    : (env["PATH"] ?? "").split(delimiter).filter(Boolean).map((dir) => join(resolve(cwd, dir), command));
  let notExecutable: string | undefined;
  for (const candidate of candidates) {
    if (!isFile(candidate)) continue;
    try {
      accessSync(candidate, constants.X_OK);
    } catch {
      notExecutable ??= candidate;
      continue;
    }
    // The kernel refuses a script whose interpreter is missing with ENOENT: execvp would try the
    // next PATH entry (another program ran), or node-pty print its own error. A shell says 127.
    const interpreter = interpreterOf(candidate);
    if (interpreter !== undefined && isAbsolute(interpreter) && !isFile(interpreter)) {
      throw new SessionpinError("agent-not-found", `sessionpin: ${command}: cannot execute: its interpreter ${interpreter.replaceAll("\r", "\\r")} (${candidate}, line 1) is not there`);
    }
    return candidate;
  }
  if (notExecutable !== undefined) {
    throw new SessionpinError("agent-not-executable", `sessionpin: ${command}: permission denied (${notExecutable} is not executable)`);
  }
  throw new SessionpinError("agent-not-found", `sessionpin: ${command}: command not found`);
}

/** The interpreter a `#!` line names, if the file starts with one. */
function interpreterOf(path: string): string | undefined {
  let fd: number | undefined;
  try {
    fd = openSync(path, "r");
    const head = Buffer.alloc(256);
    const line = head.subarray(0, readSync(fd, head, 0, head.length, 0)).toString("latin1").split("\n", 1)[0] ?? "";
    // As the kernel reads it: blanks around the path, but a CR (a file saved on Windows) is part of it.
    return line.startsWith("#!") ? line.slice(2).replace(/^[ \t]+/, "").split(/[ \t]/, 1)[0] || undefined : undefined;
  } catch {
    return undefined;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

function isFile(path: string): boolean {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
}
