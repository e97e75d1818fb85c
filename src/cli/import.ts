import { realpathSync, statSync } from "node:fs";
import { resolve } from "node:path";
import { reasonOf, SessionpinError } from "../errors.js";
import { forTerminal, jsonForTerminal } from "../explain/escape.js";
import { CarryError } from "../state/archive-rules.js";
import { importSession } from "../state/carry-import.js";
import { parseWithPositionals, pointerPathFor, userPlugins } from "./options.js";

export const IMPORT_USAGE = `Usage: sessionpin import FILE [--cwd DIR] [--pointer PATH] [--json]

Restores a conversation \`sessionpin export\` wrote: the agent's own files of the session go
under this machine's HOME, filed for the folder it is to resume in (Claude's projects/<folder>,
Gemini's and Qwen's projects, pi's and omp's session folders…), with the old folder's path in them
made the new one's; OpenCode's goes through its own \`opencode import\`, run in that folder. Then
the pointer is written where \`sessionpin run\` looks for it there (same key), so the next run
resumes the session.

Nothing is written unless all of the archive is right: it is refused, in one line, when it is cut
short, altered (a sha256 that does not match), of a newer format, of an agent this sessionpin does
not know, or holds a path that could leave its place (\`..\`, an absolute path, a link, a device),
a file bigger than its manifest says or than an archive may hold, or a file twice. A copy of the
session that is here already is replaced only when its turns are the first of the archive's
(turns, not file times: the clocks of two machines differ); a newer copy, or one that went its
own way, is left as it is and the import refused. So is a pointer here of another session.

Options:
  --cwd DIR         the folder the session resumes in (default: this one)
  --pointer PATH    the pointer file to write (env SESSIONPIN_POINTER), as run's --pointer
  --json            one JSON object instead of one line per action
  -h, --help        show this help

Exit codes: 0 restored (or already here); 1 failed while writing; 2 usage; 3 refused, nothing
written; 75 a live \`sessionpin run\` holds the pointer.`;

export const IMPORT_OPTIONS = {
  cwd: { type: "string" },
  pointer: { type: "string" },
  json: { type: "boolean" },
  help: { type: "boolean", short: "h" },
} as const;

export async function importCommand(argv: readonly string[]): Promise<number> {
  const { values, positionals } = parseWithPositionals(argv, IMPORT_OPTIONS, IMPORT_USAGE);
  if (values.help) {
    process.stdout.write(`${IMPORT_USAGE}\n`);
    return 0;
  }
  const [file, ...extra] = positionals;
  if (file === undefined || extra.length > 0) throw new SessionpinError("usage", `sessionpin import: give one archive to import${extra.length > 0 ? `, not ${positionals.length}` : ""} (\`sessionpin import --help\` lists the options)`);
  const cwd = folder(values.cwd ?? process.cwd());
  const env = process.env;
  const user = (await userPlugins(undefined, env, cwd)).plugins.map((loaded) => loaded.plugin);
  // A path given here is read against the folder the command runs in, as every other option's.
  const explicit = values.pointer === undefined ? undefined : resolve(values.pointer);
  try {
    const result = await importSession({ file: resolve(file), cwd, env, user, pointerPath: (agent, key) => pointerPathFor(explicit, agent, env, cwd, key) });
    const m = result.manifest;
    if (values.json) {
      process.stdout.write(`${jsonForTerminal({ archive: resolve(file), agent: m.agent, session: m.session, from: m.cwd, cwd, store: result.store, files: result.files, registered: result.registered, pointer: result.pointer, pointerWritten: result.pointerWritten, ...(result.turns === undefined ? {} : { turns: result.turns }) })}\n`);
      return 0;
    }
    const moved = m.cwd === cwd ? "" : ` (${forTerminal(m.cwd)} → ${forTerminal(cwd)})`;
    for (const path of result.files) {
      const what = result.store === "unchanged" ? "kept" : m.carry === "command" ? "ran" : "wrote";
      process.stdout.write(`${what} ${forTerminal(path)}${result.store === "unchanged" ? ": this session is here already, with the same turns" : moved}\n`);
    }
    if (result.turns !== undefined) process.stdout.write(`replaced the copy that was here: ${result.turns.here} turns, the archive's ${result.turns.carried}\n`);
    for (const path of result.registered) process.stdout.write(`registered ${forTerminal(cwd)} in ${forTerminal(path)}\n`);
    process.stdout.write(`${result.pointerWritten ? "wrote" : "kept"} pointer ${forTerminal(result.pointer)}: ${forTerminal(m.agent.name)} session ${forTerminal(m.session)}, resumed by the next run in ${forTerminal(cwd)}\n`);
    return 0;
  } catch (error) {
    if (!(error instanceof CarryError)) throw error;
    process.stderr.write(`sessionpin import: ${forTerminal(file)}: ${error.exitCode === 3 ? "refused: " : ""}${forTerminal(error.message)}\n`);
    return error.exitCode;
  }
}

/** `dir` as a run started there sees it (links resolved, as process.cwd() gives it); a usage error unless it is a folder. */
function folder(dir: string): string {
  try {
    const real = realpathSync(resolve(dir));
    if (statSync(real).isDirectory()) return real;
  } catch (error) {
    throw new SessionpinError("usage", `sessionpin import: --cwd ${forTerminal(dir)}: ${reasonOf(error)}`);
  }
  throw new SessionpinError("usage", `sessionpin import: --cwd ${forTerminal(dir)}: not a folder`);
}
