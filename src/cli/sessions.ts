import { dirname, resolve } from "node:path";
import { setFlagsFromString } from "node:v8";
import { SessionpinError } from "../errors.js";
import { pointersHome } from "../pointer/path.js";
import { moduleFolders } from "../pointer/module-dirs.js";
import { durationMs, listSessions, prune, type SessionRow } from "../state/sessions.js";
import { parseWithPositionals } from "./options.js";
import { homeOf } from "../home.js";
import { forTerminal, jsonForTerminal } from "../explain/escape.js";

export const SESSIONS_USAGE = `Usage: sessionpin sessions [--key NAME] [--agent NAME] [--cwd DIR] [--json]
       sessionpin sessions prune --older-than DURATION [--key NAME] [--agent NAME] [--cwd DIR] [--dry-run] [--json]

Lists every session pinned under the state folder ($XDG_STATE_HOME/sessionpin, else
~/.local/state/sessionpin) and beside agentapi's state in Coder's module folders
(~/.coder-modules/<namespace>/<module>/, ~/.<agent>-module/, ~/.kiro/, and the folder of
$AGENTAPI_STATE_FILE when it is set): key, agent, ID, state, when it was captured, when a run of
it last ended, how many messages it had, its folder and its pointer file. Pointers named with
--pointer live elsewhere and are not listed.

prune removes the pointers not run for DURATION (30d, 12h, 90m, 2w, 45s), each with its set-aside
copies, its logs and a lock nobody holds; a pointer whose lock a live run holds stays. The agents'
own stores are not touched.

  --key NAME       only the sessions of this key (SESSIONPIN_KEY does not apply here)
  --agent NAME     only this agent's
  --cwd DIR        only those of this folder
  --older-than D   prune: what was not run for this long (needed)
  --dry-run        prune: say what would be removed, remove nothing
  --json           one JSON array: [{"key":…|null,"agent","cwd","id","state","capturedAt",
                   "lastRunAt":…|null,"messages":N,"pointer":PATH}] (an unreadable pointer has
                   "state":"unreadable" and "reason"); prune: [{"pointer","key","agent",
                   "lastRunAt","removed":[PATH…],"kept":REASON?}]
  -h, --help       show this help
  (also SESSIONPIN_JSON=1)`;

// --key here picks rows: the environment's SESSIONPIN_KEY is a run's, not a filter.
export const SESSIONS_OPTIONS = {
  key: { type: "string", env: "SESSIONPIN_SESSIONS_KEY" },
  agent: { type: "string", env: "SESSIONPIN_SESSIONS_AGENT" },
  cwd: { type: "string", env: "SESSIONPIN_SESSIONS_CWD" },
  "older-than": { type: "string" },
  "dry-run": { type: "boolean" },
  json: { type: "boolean" },
  help: { type: "boolean", short: "h" },
} as const;

export async function sessionsCommand(argv: readonly string[]): Promise<number> {
  // Thousands of rows all live to the end: V8 would grow its young generation for them to 48 MB
  // of room, a third of the peak memory of a listing of 10,000 (75 MB with this, 106 without).
  setFlagsFromString("--semi-space-growth-factor=1");
  const { values, positionals } = parseWithPositionals(argv, SESSIONS_OPTIONS, SESSIONS_USAGE);
  if (values.help) {
    process.stdout.write(`${SESSIONS_USAGE}\n`);
    return 0;
  }
  const [action, ...more] = positionals;
  if ((action !== undefined && action !== "prune") || more.length > 0) {
    throw new SessionpinError("usage", `sessionpin sessions: unexpected ${JSON.stringify(positionals.join(" "))} (\`sessionpin sessions --help\`)`);
  }
  const home = homeOf(process.env);
  const state = process.env["AGENTAPI_STATE_FILE"];
  const modules = [...(home === undefined ? [] : await moduleFolders(home)), ...(state ? [dirname(resolve(state))] : [])];
  const filter = { key: values.key, agent: values.agent, cwd: values.cwd === undefined ? undefined : resolve(values.cwd) };
  const rows = await listSessions(pointersHome(process.env, home), modules, filter);
  if (action === undefined) {
    if (values["older-than"] !== undefined || values["dry-run"] !== undefined) throw new SessionpinError("usage", "sessionpin sessions: --older-than and --dry-run go with prune");
    process.stdout.write(values.json ? `${jsonForTerminal(rows)}\n` : table(rows));
    return 0;
  }
  const older = values["older-than"];
  const ms = older === undefined ? undefined : durationMs(older);
  if (ms === undefined) throw new SessionpinError("usage", `sessionpin sessions prune: --older-than ${older === undefined ? "is needed" : `${JSON.stringify(older)}: expected a number and s, m, h, d or w (30d)`}`);
  const pruned = await prune(rows, new Date(Date.now() - ms), values["dry-run"] === true);
  const verb = values["dry-run"] ? "would remove" : "removed";
  process.stdout.write(values.json ? `${jsonForTerminal(pruned)}\n` : pruned.map((p) => (p.kept === undefined ? `${verb} ${forTerminal(p.pointer)} (last run ${p.lastRunAt ?? "unknown"})${p.removed.length > 1 ? ` and ${p.removed.length - 1} file(s) beside it` : ""}\n` : `kept ${forTerminal(p.pointer)}: ${forTerminal(p.kept)}\n`)).join("") || "nothing to prune\n");
  return 0;
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
