import { readFileSync } from "node:fs";
import { EXIT, SessionpinError } from "../errors.js";
import { ptyModule } from "../pty/native.js";
import { demoCommand } from "./demo.js";
import { doctorCommand } from "./doctor.js";
import { planCommand } from "./plan.js";
import { pluginsCommand } from "./plugins.js";
import { pointerCommand } from "./pointer.js";
import { explainCommand, replayCommand } from "./replay.js";
import { endWhenOutputFails, exitWhenWritten } from "./output.js";
import { runCommand } from "./run.js";
import { sessionsCommand } from "./sessions.js";
import { shimCommand } from "./shim.js";
import { exportCommand } from "./export.js";
import { importCommand } from "./import.js";
const USAGE = `Usage: sessionpin <command> [options]

Commands:
  run [options] -- <agent> [args…]    run an agent in a PTY, pin its session, resume it next time
  plan [options] -- <agent> [args…]   print what run would start (cold/warm, argv) as JSON
  pointer show|clear                  show or set aside the stored pointer
  sessions [--json]                   list every pinned session (key, agent, folder, ID, messages)
  export [--key K] -o FILE            carry a pinned conversation to another machine or folder
  import FILE [--cwd DIR]             restore it here: the agent's files, then the pointer
  plugins [--json]                    list plugins: executables, capture sources, resume form
  replay [options] FILE…|-            find the session ID in recorded output (cast, raw, jsonl, agentapi state)
  explain [options] FILE…|-           line by line: why an ID was or was not taken
  doctor [--json] [-- <agent> …]      check node-pty, the agent, the pointer, agentapi's --type
  shim install|remove|list|env        PATH shims: agents started by name run through sessionpin
  demo                                run a built-in fake Amp twice: cold start, then warm resume

Options: -h/--help (also after each command), -V/--version

Exit codes: the agent's own (128+N when signal N killed it); 2 usage; 3 pointer refused (another
agent's or folder's at an explicit path, or a newer format: left untouched); 4 a one-shot run whose
message the session already had (not started); 75 pointer or agent session locked by a live
sessionpin; 126 agent not executable; 127 agent not found; 1 other errors.`;

// One bundled file holds every command (scripts/bundle.mjs): Node 20 loads ES modules one file at
// a time, and what must wait until it is needed (zod, undici) is behind `await import` where it is
// used. The commands that start PTYs load node-pty first (demo here, run once it knows it needs a
// PTY), so a missing native part is one line with the fix before anything else happens (no lock
// taken, no thread created up front, no pointer written).
const commands: Record<string, (argv: readonly string[]) => Promise<number>> = {
  run: runCommand,
  plan: planCommand,
  pointer: pointerCommand,
  sessions: sessionsCommand,
  export: exportCommand,
  import: importCommand,
  plugins: pluginsCommand,
  replay: replayCommand,
  explain: explainCommand,
  doctor: doctorCommand,
  shim: shimCommand,
  demo: (argv) => {
    ptyModule();
    return demoCommand(argv);
  },
};

function version(): string {
  const pkg = JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as { version: string };
  return pkg.version;
}

async function main(argv: readonly string[]): Promise<number> {
  const [name, ...rest] = argv;
  // run passes the agent's bytes to stdout and judges its own failures to write them.
  if (name !== "run") endWhenOutputFails();
  // Asked for, the usage is the output; with no command at all it is the error (as for an unknown one).
  if (name === undefined) throw new SessionpinError("usage", `sessionpin: no command given\n${USAGE}`);
  if (name === "-h" || name === "--help" || name === "help") {
    // `sessionpin help replay`, as git and npm take it: that command's own help.
    const about = name === "help" && rest[0] !== undefined && Object.hasOwn(commands, rest[0]) ? commands[rest[0]] : undefined;
    if (about !== undefined) return about(["--help"]);
    process.stdout.write(`${USAGE}\n`);
    return EXIT.ok;
  }
  if (name === "-V" || name === "--version") {
    process.stdout.write(`sessionpin ${version()}\n`);
    return EXIT.ok;
  }
  const command = Object.hasOwn(commands, name) ? commands[name] : undefined;
  if (command === undefined) throw new SessionpinError("usage", `sessionpin: unknown command ${JSON.stringify(name)}\n${USAGE}`);
  return command(rest);
}

main(process.argv.slice(2)).then(
  (code) => exitWhenWritten(code),
  (error: unknown) => {
    if (error instanceof SessionpinError) {
      process.stderr.write(`${error.message}\n`);
      return exitWhenWritten(error.exitCode);
    }
    process.stderr.write(`sessionpin: internal error: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    exitWhenWritten(EXIT.failure);
  },
);
