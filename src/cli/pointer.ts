import { reasonOf, SessionpinError } from "../errors.js";
import { readPointer, setAside } from "../pointer/store.js";
import { pluginNamed } from "../agents/registry.js";
import { namedPlugin, parseOptions, userPlugins } from "./options.js";
import { nextStart } from "../run/next-start.js";
import { POINTER_HERE_HELP, pointerHere } from "./running.js";
import { lockCheck, lockHolder } from "../doctor/checks.js";
import { describeHolder } from "../pointer/holder.js";
import { forTerminal, jsonForTerminal } from "../explain/escape.js";
import { existsSync } from "node:fs";
import { homeOf } from "../home.js";
import { moduleFolders } from "../pointer/module-dirs.js";
import { pointersHome } from "../pointer/path.js";
import { listSessions } from "../state/sessions.js";

export const POINTER_USAGE = `Usage: sessionpin pointer show|clear (--agent NAME | --pointer PATH) [--key NAME] [--json]

  show    print the pointer and what the next start of its agent here would do with it (as run
          decides); exit 1 when there is none or it is unreadable
  clear   move it aside as <pointer>.cleared-<UTC time>.json (never deleted), so the next start
          is cold; exit 0, also when there was none

Options:
  --agent NAME      the agent whose pointer for this folder is meant (see below)
  --pointer PATH    the pointer file (env SESSIONPIN_POINTER); one of the two is needed
  --key NAME        the pointer of this external conversation (env SESSIONPIN_KEY), as run's; with
                    none here, that key's pointer made in another folder (one only)
  --json            one JSON object instead of text
  -h, --help        show this help

${POINTER_HERE_HELP} One line on stderr names a pointer found so.
Every option can also come from SESSIONPIN_<OPTION> (--agent → SESSIONPIN_AGENT); the command line wins.`;

export const POINTER_OPTIONS = {
  agent: { type: "string" },
  pointer: { type: "string" },
  key: { type: "string" },
  json: { type: "boolean" },
  help: { type: "boolean", short: "h" },
} as const;

export async function pointerCommand(argv: readonly string[]): Promise<number> {
  const [action, ...rest] = argv;
  const values = parseOptions(rest, POINTER_OPTIONS, POINTER_USAGE);
  if (values.help || action === "--help" || action === "-h") {
    process.stdout.write(`${POINTER_USAGE}\n`);
    return 0;
  }
  if (action !== "show" && action !== "clear") {
    throw new SessionpinError("usage", `sessionpin pointer: expected show or clear, got ${JSON.stringify(action ?? "")}\n${POINTER_USAGE}`);
  }
  if (values.pointer === undefined && values.agent === undefined) {
    throw new SessionpinError("usage", `sessionpin pointer ${action}: give --agent NAME or --pointer PATH\n${POINTER_USAGE}`);
  }
  // As run names agents: built in, or a user plugin; a name that is neither is a usage error (a
  // bridge's typo must not look like a pointer cleared).
  const user = (await userPlugins(undefined, process.env, process.cwd())).plugins.map((loaded) => loaded.plugin);
  const agent = values.agent === undefined ? "" : namedPlugin(values.agent, user).name;
  const here = await pointerHere({ explicit: values.pointer, agent, env: process.env, cwd: process.cwd(), key: values.key });
  const elsewhere = here.why === undefined && values.pointer === undefined && !process.env["SESSIONPIN_POINTER"] && values.key !== undefined && !existsSync(here.pointer)
    ? await keyedElsewhere(agent, values.key, here.pointer)
    : undefined;
  const path = elsewhere?.pointer ?? here.pointer;
  const why = elsewhere?.why ?? here.why;
  if (why !== undefined) process.stderr.write(`sessionpin: ${forTerminal(why)}\n`);
  // Names from the pointer file, the lock and other processes reach a terminal: escaped.
  const shown = forTerminal;
  if (action === "clear") {
    const aside = await clearPointer(path);
    const result = { pointer: path, movedTo: aside ?? null };
    process.stdout.write(values.json ? `${jsonForTerminal(result)}\n` : aside ? `moved ${shown(path)} to ${shown(aside)}\n` : `no pointer at ${shown(path)}\n`);
    return 0;
  }
  const read = await readPointer(path);
  // What the next `run` of this agent here would do with it, by run's own decision and inputs.
  const plugin = pluginNamed(values.agent ?? (read.kind === "ok" ? read.pointer.agent : ""), user);
  const env = process.env;
  const cwd = process.cwd();
  const start = plugin && (await nextStart({
    agent: { command: plugin.names[0] ?? plugin.name, args: [], plugin, cwd, env, restoreHistory: false },
    message: { prompt: undefined },
    pointer: { path, explicit: values.pointer !== undefined || Boolean(env["SESSIONPIN_POINTER"]) },
  }));
  const next = start && { mode: start.decision.mode, reason: start.decision.reason, ...(start.heldBy === undefined ? {} : { heldBy: start.heldBy }) };
  if (values.json) {
    // One schema for every --json output: `pointer` is the pointer file's path; its content is `content`.
    const { kind } = read;
    const detail = read.kind === "ok" ? { content: read.pointer } : read.kind === "invalid" ? { reason: read.reason } : read.kind === "newer" ? { version: read.version } : {};
    process.stdout.write(`${jsonForTerminal({ pointer: path, kind, ...detail, ...(next ? { next } : {}) })}\n`);
  } else if (read.kind === "ok") {
    const p = read.pointer;
    process.stdout.write(
      `${shown(p.agent)} ${shown(p.id)} (${p.state}, rule ${shown(p.source.rule)})\n  captured ${p.capturedAt}${p.confirmedAt ? `, confirmed ${p.confirmedAt}` : ""}\n  cwd ${shown(p.cwd)}\n  file ${shown(path)}\n` +
        p.history.map((h) => `  earlier ${shown(h.id)} until ${h.at}: ${shown(h.reason)}\n`).join("") +
        (next ? `  next start here: ${next.mode} (${shown(next.reason)})\n` : "") +
        (next?.heldBy ? `  held now by ${describeHolder(next.heldBy)}: a run started meanwhile exits 75 (--wait-lock waits)\n` : ""),
    );
  } else {
    process.stdout.write(`${shown(path)}: ${read.kind === "missing" ? "no pointer" : read.kind === "invalid" ? `unreadable: ${shown(read.reason)}` : `written by a newer sessionpin (version ${read.version})`}\n`);
  }
  return read.kind === "ok" ? 0 : 1;
}

/**
 * Moves the pointer aside; a path that holds no pointer file to move is refused in one line, and
 * so is a pointer a live run holds: that run writes it again (a turn, a confirmation, its exit),
 * and the next start would resume what was cleared.
 */
async function clearPointer(path: string): Promise<string | undefined> {
  const read = await readPointer(path);
  if (read.kind === "invalid" && read.folder === true) {
    throw new SessionpinError("pointer-refused", `sessionpin: ${forTerminal(path)} is a folder, not a pointer file; left untouched`);
  }
  const holder = lockHolder(await lockCheck(path));
  if (holder !== undefined) {
    throw new SessionpinError("pointer-locked", `sessionpin: cannot clear ${forTerminal(path)}: held by ${describeHolder(holder)}, which would write it again; stop that run first`);
  }
  try {
    return await setAside(path, "cleared", new Date());
  } catch (error) {
    throw new SessionpinError("pointer-invalid", `sessionpin: cannot clear ${forTerminal(path)}: ${reasonOf(error)}`, { cause: error });
  }
}

/**
 * A key's pointer made in another folder: a bridge cleaning up a thread need not know where its
 * agent ran. One is taken, and said; several are a usage error naming their folders.
 */
async function keyedElsewhere(agent: string, key: string, own: string): Promise<{ pointer: string; why: string } | undefined> {
  const home = homeOf(process.env);
  const modules = home === undefined ? [] : await moduleFolders(home);
  const rows = (await listSessions(pointersHome(process.env, home), modules, { key, agent })).filter((row) => row.cwd !== null);
  const [only, ...more] = rows;
  if (only === undefined) return undefined;
  if (more.length > 0) {
    throw new SessionpinError("usage", `sessionpin: key ${JSON.stringify(key)} has pointers in ${rows.length} folders (${rows.map((row) => row.cwd ?? "").sort().join(", ")}): run this in one of them, or give --pointer`);
  }
  return { pointer: only.pointer, why: `no pointer of key ${JSON.stringify(key)} here (${own}): using the one made in ${only.cwd ?? "?"}: ${only.pointer}` };
}
