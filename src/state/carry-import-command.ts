import { closeSync, constants, mkdtempSync, openSync, rmSync, writeSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { AgentPlugin, CarryCommand, RunContext } from "../agents/types.js";
import { scanArchive } from "./archive-read.js";
import { CarryError, MAX_FILE_BYTES } from "./archive-rules.js";
import { firstLine, runAgentCommand } from "./carry-command.js";

/**
 * The half of an import that runs the agent's own commands (OpenCode's `opencode export` and
 * `opencode import`, in the new folder, with this machine's environment).
 */

const executableOf = (plugin: AgentPlugin): string => plugin.names[0] ?? plugin.name;

/** The turns of the copy of session `id` the agent has here, or undefined when it has none. */
export async function sessionHere(plugin: AgentPlugin, carry: CarryCommand, id: string, context: RunContext): Promise<readonly string[] | undefined> {
  const args = carry.exportArgs(id);
  const result = await runAgentCommand(executableOf(plugin), args, { cwd: context.cwd, env: context.env, timeoutMs: 120_000, maxBytes: MAX_FILE_BYTES });
  const text = result.stdout.toString("utf8");
  if (result.code !== 0) {
    if (carry.missing.test(`${text}\n${result.stderr}`)) return undefined;
    throw new CarryError(1, `cannot tell whether ${plugin.name} has session ${id} here: \`${executableOf(plugin)} ${args.join(" ")}\` failed (exit ${result.code}): ${firstLine(result.stderr) || "no reason given"}`);
  }
  const turns = carry.turns(text);
  if (turns === undefined) throw new CarryError(1, `cannot tell whether ${plugin.name} has session ${id} here: \`${executableOf(plugin)} ${args.join(" ")}\` printed no session`);
  return turns;
}

/**
 * Reads the archive a second time for its one document (checked again against the manifest),
 * puts it in a private temp folder, and has the agent import it in the new folder.
 */
export async function runCommandImport(file: string, plugin: AgentPlugin, carry: CarryCommand, context: RunContext): Promise<void> {
  const folder = mkdtempSync(join(tmpdir(), "sessionpin-import-"));
  try {
    const document = join(folder, "session.json");
    const fd = openSync(document, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL, 0o600);
    try {
      await scanArchive(file, {
        manifest: () => undefined,
        entry: (entry) => (entry.role === "transcript" ? { data: (chunk) => void writeSync(fd, chunk), end: () => undefined } : undefined),
      });
    } finally {
      closeSync(fd);
    }
    const args = carry.importArgs(document);
    const result = await runAgentCommand(executableOf(plugin), args, { cwd: context.cwd, env: context.env, timeoutMs: 120_000, maxBytes: 1 << 20 });
    if (result.code !== 0) throw new CarryError(1, `\`${executableOf(plugin)} ${carry.importArgs("<file>").join(" ")}\` failed (exit ${result.code}): ${firstLine(result.stderr) || firstLine(result.stdout.toString("utf8")) || "no reason given"}`);
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
}
