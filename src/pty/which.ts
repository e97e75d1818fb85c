import { accessSync, constants, statSync } from "node:fs";
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
      return candidate;
    } catch {
      notExecutable ??= candidate;
    }
  }
  if (notExecutable !== undefined) {
    throw new SessionpinError("agent-not-executable", `sessionpin: ${command}: permission denied (${notExecutable} is not executable)`);
  }
  throw new SessionpinError("agent-not-found", `sessionpin: ${command}: command not found`);
}

function isFile(path: string): boolean {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
}
