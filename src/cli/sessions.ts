import { readdir } from "node:fs/promises";
import { dirname, join, resolve } from "node:path";
import { errnoCode, reasonOf, SessionpinError } from "../errors.js";
import { pointersHome } from "../pointer/path.js";
import { keptPointers, moduleFolders, type FoundRead } from "../pointer/module-dirs.js";
import { readPointer } from "../pointer/store.js";
import { parseOptions } from "./options.js";
import { homeOf } from "../home.js";
import { forTerminal, jsonForTerminal } from "../explain/escape.js";

export const SESSIONS_USAGE = `Usage: sessionpin sessions [--json]

Lists every session pinned under the state folder ($XDG_STATE_HOME/sessionpin, else
~/.local/state/sessionpin) and beside agentapi's state in Coder's module folders
(~/.coder-modules/<namespace>/<module>/, ~/.<agent>-module/, ~/.kiro/, and the folder of
$AGENTAPI_STATE_FILE when it is set): key, agent, ID, state, when it was captured, when a run of
it last ended, how many messages it had, its folder and its pointer file. Pointers named with
--pointer live elsewhere and are not listed.

  -h, --help  show this help
  --json   one JSON array: [{"key":…|null,"agent","cwd","id","state","capturedAt",
           "lastRunAt":…|null,"messages":N,"pointer":PATH}]; an unreadable pointer has
           "state":"unreadable" and "reason"
  (also SESSIONPIN_JSON=1)`;

export const SESSIONS_OPTIONS = { json: { type: "boolean" }, help: { type: "boolean", short: "h" } } as const;

// `<cwd hash>.json` or `<cwd hash>-<key hash>.json`; set-aside copies carry a label and a time.
const POINTER_NAME = /^[0-9a-f]{16}(?:-[0-9a-f]{16})?\.json$/;

/** One row of `sessionpin sessions --json`. */
export interface SessionRow {
  readonly key: string | null;
  readonly agent: string;
  readonly cwd: string | null;
  readonly id: string | null;
  readonly state: string;
  readonly capturedAt: string | null;
  readonly lastRunAt: string | null;
  readonly messages: number;
  readonly pointer: string;
  readonly reason?: string;
}

export async function sessionsCommand(argv: readonly string[]): Promise<number> {
  const values = parseOptions(argv, SESSIONS_OPTIONS, SESSIONS_USAGE);
  if (values.help) {
    process.stdout.write(`${SESSIONS_USAGE}\n`);
    return 0;
  }
  const home = homeOf(process.env);
  const state = process.env["AGENTAPI_STATE_FILE"];
  const modules = [...(home === undefined ? [] : await moduleFolders(home)), ...(state ? [dirname(resolve(state))] : [])];
  const rows = await listSessions(pointersHome(process.env, home), modules);
  process.stdout.write(values.json ? `${jsonForTerminal(rows)}\n` : table(rows));
  return 0;
}

/**
 * Every pointer under `home` and in the module folders `modules`, oldest last run first, each
 * read as `run` would read it.
 */
export async function listSessions(home: string, modules: readonly string[] = []): Promise<SessionRow[]> {
  const rows: SessionRow[] = [];
  const agents = await names(home);
  if ("problem" in agents) throw new SessionpinError("pointer-invalid", `sessionpin: cannot list ${home}: ${agents.problem}`);
  for (const agent of agents.names) {
    if (agent.startsWith(".")) continue;
    const files = await names(join(home, agent));
    // One folder sessionpin cannot read (another user's, a symlink loop) is a row: the others are still listed.
    if ("problem" in files) {
      rows.push(unreadable(agent, join(home, agent), files.problem));
      continue;
    }
    for (const file of files.names.filter((name) => POINTER_NAME.test(name))) {
      const path = join(home, agent, file);
      const read = await readPointer(path);
      if (read.kind !== "missing") rows.push(row(agent, path, read));
    }
  }
  // The folder of $AGENTAPI_STATE_FILE is most often a module folder too: listed once.
  for (const kept of await keptPointers([...new Set(modules)])) rows.push(row(kept.named, kept.path, kept.read));
  return rows.sort((a, b) => (a.lastRunAt ?? a.capturedAt ?? "").localeCompare(b.lastRunAt ?? b.capturedAt ?? ""));
}

/** A pointer's row; `agent` names an unreadable one (its folder's or its file's). */
function row(agent: string, path: string, read: FoundRead): SessionRow {
  if (read.kind === "invalid") return unreadable(agent, path, read.reason);
  if (read.kind === "newer") return unreadable(agent, path, `written by a newer sessionpin (version ${read.version})`);
  const p = read.pointer;
  return {
    key: p.key ?? null, agent: p.agent, cwd: p.cwd, id: p.id, state: p.state, capturedAt: p.capturedAt,
    lastRunAt: p.lastRunAt ?? null, messages: p.messages?.length ?? 0, pointer: path,
  };
}

function unreadable(agent: string, path: string, reason: string): SessionRow {
  return { key: null, agent, cwd: null, id: null, state: "unreadable", capturedAt: null, lastRunAt: null, messages: 0, pointer: path, reason };
}

async function names(dir: string): Promise<{ names: string[] } | { problem: string }> {
  try {
    return { names: (await readdir(dir)).sort() };
  } catch (error) {
    if (errnoCode(error) === "ENOENT" || errnoCode(error) === "ENOTDIR") return { names: [] };
    return { problem: reasonOf(error) };
  }
}

function table(rows: readonly SessionRow[]): string {
  if (rows.length === 0) return "no pinned sessions\n";
  // The pointer last: which file to clear, and whether it is the state folder's or a module folder's.
  const header = ["KEY", "AGENT", "ID", "STATE", "CAPTURED", "LAST RUN", "MESSAGES", "FOLDER", "POINTER"];
  // Every cell but the counts comes from a pointer file or a folder name: escaped for the terminal.
  const lines = rows.map((r) => [
    r.key ?? "-", r.agent, r.id ?? "-", r.state, r.capturedAt ?? "-", r.lastRunAt ?? "-", String(r.messages), r.cwd ?? r.reason ?? "-", r.pointer,
  ].map(forTerminal));
  const widths = header.map((title, i) => Math.max(title.length, ...lines.map((line) => (line[i] ?? "").length)));
  return [header, ...lines].map((line) => line.map((cell, i) => (i === line.length - 1 ? cell : cell.padEnd(widths[i] ?? 0))).join("  ")).join("\n") + "\n";
}
