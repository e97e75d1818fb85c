import type { AgentPlugin, IdState, PidFile, SessionLog } from "../agents/types.js";
import { valueAt } from "../json.js";
import { jsonAt, spanOf, type Look, type WatchedSource, type Watching } from "./store-reads.js";
import { watchStore } from "./store-source.js";

/**
 * The places an ID comes from: a JSON line or a text line of the output, the agent's session
 * store, its session log (OpenCode), its pid file (Claude), the up-front command (Amp's
 * `threads new`) and sessionpin's own choice of a new ID (Gemini's `--session-id`).
 */
export type IdSource = "json-line" | "text-line" | "store" | "session-log" | "pid-file" | "upfront" | "chosen";

/**
 * An ID a source offers, not yet held against the agent's grammar. Every source hands its
 * candidates to `Extractor.offer`, the one way into the tracker: the grammar check (judge), then
 * the tracker.
 */
export interface Candidate {
  readonly source: IdSource;
  /** The plugin rule (or store, log, pid-file rule) that found it. */
  readonly rule: string;
  readonly state: IdState;
  readonly value: string;
  /** The output line it was read from. */
  readonly line?: number;
}

/**
 * One source of a plugin, as one value: what it says of itself (`plugins`), and, for the sources
 * read while the agent runs, what it knows before the spawn and finds on each look (`watch`).
 * The output's lines are read by the capture (Extractor); the chosen ID and the up-front command
 * are steps of the start's plan (run/plan.ts).
 */
export interface CaptureSource {
  readonly kind: IdSource;
  /** In a few words, with its rule: "pid file (pid-file)". */
  readonly says: string;
  watch?(run: Watching): WatchedSource;
}

/**
 * Every source a plugin has, most trusted first; the watched ones in the order of their looks (a
 * store entry confirms an ID before the pid file could offer it as provisional). A new source is
 * one more entry here, and the plugin data it reads.
 */
export function sourcesOf(plugin: AgentPlugin): CaptureSource[] {
  const { store, pidFile, sessionLog } = plugin;
  return [
    ...(plugin.chooseId ? [{ kind: "chosen", says: "ID chosen up front in argv" } as const] : []),
    ...(plugin.upfront ? [{ kind: "upfront", says: `up front: ${plugin.upfront.rule}` } as const] : []),
    ...plugin.json.map((rule) => ({ kind: "json-line", says: `stream field ${rule.field} (${rule.name}, ${rule.state})` }) as const),
    ...plugin.text.map((rule) => ({ kind: "text-line", says: `terminal text (${rule.name}, ${rule.state})` }) as const),
    ...(store ? [{
      kind: "store", says: `session store (${store.rule}${store.wholeId ? "" : ", confirms only"})`, watch: (run: Watching) => watchStore(plugin.name, store, run),
    } as const] : []),
    ...(pidFile ? [{ kind: "pid-file", says: `pid file (${pidFile.rule})`, watch: (run: Watching) => watchPidFile(pidFile, run) } as const] : []),
    ...(sessionLog ? [{ kind: "session-log", says: `session log (${sessionLog.rule})`, watch: (run: Watching) => watchSessionLog(sessionLog, run) } as const] : []),
  ];
}

const PID_FILE_BYTES = 64 * 1024;
const LOG_BYTES_PER_LOOK = 1024 * 1024;

/** The file the running agent keeps under its own pid (Claude's sessions/<pid>.json): a provisional ID. */
function watchPidFile(pidFile: PidFile, run: Watching): WatchedSource {
  return {
    *before(): Look {},
    *look(pid): Look {
      const json = yield* jsonAt(pidFile.path(pid, run.context), { maxBytes: PID_FILE_BYTES });
      const id = json === undefined ? undefined : valueAt(json, pidFile.field);
      if (typeof id === "string") run.offer(pidFile.rule, "provisional", id);
    },
  };
}

/** A log the agent's processes share (OpenCode's): only the lines appended after the spawn are read. */
function watchSessionLog(log: SessionLog, run: Watching): WatchedSource {
  // How far it was read, and a line not yet ended.
  let offset = 0;
  let rest = "";
  return {
    *before(): Look {
      const span = yield* spanOf(log.path(run.context), 0, { maxBytes: 0 });
      offset = typeof span === "object" ? span.size : 0;
    },
    *look(): Look {
      const span = yield* spanOf(log.path(run.context), offset, { maxBytes: LOG_BYTES_PER_LOOK });
      if (typeof span !== "object") return;
      // Truncated or replaced: start again from its beginning.
      if (span.size < offset) {
        offset = 0;
        rest = "";
        return;
      }
      offset += span.bytes.length;
      const lines = (rest + span.bytes.toString("utf8")).split("\n");
      rest = lines.pop() ?? "";
      for (const line of lines) {
        const id = log.created(line, run.context);
        if (id !== undefined) run.offer(log.rule, "confirmed", id);
      }
    },
  };
}
