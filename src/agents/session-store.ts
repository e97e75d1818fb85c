/**
 * Where an agent keeps its sessions, as a plugin describes it: the run's context, the store's
 * folders and entries, the agent's session log and its pid file.
 */

/** What plugins may know of the run they serve, for paths of on-disk session stores. */
export interface RunContext {
  readonly home: string;
  readonly cwd: string;
  readonly env: NodeJS.ProcessEnv;
}

/** A folder of a session store, and how many folder levels below it hold entries too. */
export interface StoreFolder {
  readonly dir: string;
  readonly depth: number;
}

/**
 * What sessionpin knows of when a session began, for stores filed by date: the pointer's
 * `capturedAt` (a new session's ID is captured within seconds of its start).
 */
export interface SessionHints {
  readonly capturedAt?: Date;
}

/**
 * Where an agent keeps its sessions on disk. An entry for the pinned ID means the session can be
 * resumed (confirmed); when entry names hold whole IDs, an entry that appears while the agent runs
 * is the session it is in now (captured, or followed after a fork or `/clear`).
 *
 * Before a warm start one session's entry is looked up, at the least cost the layout allows: the
 * exact name (`entryName`, one stat), else where it was last found (sessionpin remembers), else
 * where the layout puts it (`likely`), and only then a bounded search of `everywhere`.
 */
export interface SessionStore {
  readonly rule: string;
  /**
   * The folders watched while the agent runs, each with how many folder levels below it to look.
   * Kept few and small (Codex: today's and yesterday's day folders): they are listed before the
   * spawn and again whenever one of them changes.
   */
  where(context: RunContext, now: Date): readonly StoreFolder[];
  /**
   * Where a session of any age may be, when that is more than `where` watches (Codex files
   * rollouts by day): searched before a warm start when nothing quicker found the session.
   * Defaults to `where`.
   */
  everywhere?(context: RunContext): readonly StoreFolder[];
  /**
   * The name of session `id`'s entry in a `where` folder, when the name holds nothing but the ID
   * (Claude's `<id>.jsonl`): its presence is one stat, and its absence is known without a listing.
   */
  entryName?(id: string): string;
  /**
   * Where the layout puts session `id`, looked at before any search (Codex: the day folders of the
   * session's start, which a UUIDv7 carries). Only a hint: a session not found there is searched for.
   */
  likely?(context: RunContext, id: string, hints: SessionHints): readonly StoreFolder[];
  /**
   * The agent's own options that move its store somewhere `where` does not look (pi's
   * `--session-dir`, Copilot's `--config-dir`): with one of them, no session is called gone.
   */
  readonly movedBy?: readonly string[];
  /** A session's file or folder name; group `id` holds its ID (or, see `wholeId`, a prefix). */
  readonly name: RegExp;
  /** False when names hold only a prefix of the ID (Gemini keeps 8 characters): confirm only. */
  readonly wholeId: boolean;
  /** For folder entries: the file inside each one whose head `belongs` reads (Copilot's events.jsonl). */
  readonly inner?: string;
  /**
   * For stores shared by every folder: whether the entry is this cwd's session, judged from the
   * head of its file (up to its first 64 KiB, as text): the header is not always line 1 (omp 18
   * writes a title line first). Only regular files are read, never through a link: an entry that
   * is anything else is nobody's session.
   */
  belongs?(head: string, context: RunContext): boolean;
  /** How much of the file's start `belongs` gets; 64 KiB unless the header can sit further in. */
  readonly headBytes?: number;
}

/**
 * A log the agent appends to while it runs (shared by all its processes) whose lines name a
 * session the moment it is stored: OpenCode 1.18.33 keeps sessions in SQLite and writes no file
 * per session. Only lines appended after the spawn are read.
 */
export interface SessionLog {
  readonly rule: string;
  path(context: RunContext): string;
  /** The ID of the session this line says was created for this run's folder, or undefined; never throws. */
  created(line: string, context: RunContext): string | undefined;
}

/**
 * A file the running agent keeps under its own pid, naming its session (Claude's sessions/<pid>.json).
 * Read as a small regular file only, never through a link.
 */
export interface PidFile {
  readonly rule: string;
  path(pid: number, context: RunContext): string;
  /** The dotted path of the ID inside the file's JSON. */
  readonly field: string;
}
