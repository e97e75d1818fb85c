/** An ID is provisional until the agent has something on disk or server to resume it from. */
export type IdState = "provisional" | "confirmed";

/** Take `field` (a dotted path) from a JSON line whose other fields match `when`. */
export interface JsonRule {
  readonly name: string;
  readonly field: string;
  /** Dotted path → allowed values; every entry must hold for the line to be looked at. */
  readonly when?: Readonly<Record<string, readonly string[]>>;
  readonly state: IdState;
}

/** Take the named group `id` of `pattern` from a cleaned terminal line. */
export interface TextRule {
  readonly name: string;
  readonly pattern: RegExp;
  readonly state: IdState;
}

/**
 * A command of the agent's own that creates a session before the real one starts, so its ID is
 * known up front (Amp: `amp threads new`).
 */
export interface UpfrontCommand {
  readonly rule: string;
  /** Whether this start of the agent needs it (Amp: interactive starts only). */
  applies(args: readonly string[]): boolean;
  argv(args: readonly string[]): string[];
  /** The ID in the command's stdout, or undefined. */
  parse(output: string): string | undefined;
}

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

/**
 * A setting of the agent's own that decides whether its sessions can be resumed at all, as
 * `doctor` reports it (Gemini's session retention deletes a pinned conversation).
 */
export interface AgentAdvice {
  readonly name: string;
  readonly status: "ok" | "warn";
  readonly detail: string;
}

/** How a cold start delivers the task prompt: typed into the PTY, inside argv, or not at all. */
export type PromptVia = "pty" | "argv" | "none";

/**
 * What an invocation asks of its session: the message it carries in its own argv, and whether it
 * runs one turn and exits. Messages read from a file or from stdin are not seen (undefined).
 */
export interface Invocation {
  /** `claude -p MSG`, `codex exec MSG`, `amp -x MSG`, an interactive positional prompt. */
  readonly message: string | undefined;
  /** One turn, then exit (`-p`, `exec`, `run`, `--print`): nothing may wait for input. */
  readonly oneShot: boolean;
}

/** A session the caller's own argv chose (AgentPlugin.callerSession). */
export interface CallerSession {
  /** The ID the argv names (`--resume X`), when it names one; `--continue` names none. */
  readonly id?: string;
  /** The words that choose it (`--resume X`, `threads continue X`). */
  readonly via: string;
}

export interface ColdStart {
  readonly args: string[];
  readonly promptVia: PromptVia;
}

/**
 * Everything sessionpin knows about one agent CLI: data plus a few pure functions. The core never
 * branches on an agent's name. `args` never include the executable itself.
 */
export interface AgentPlugin {
  readonly name: string;
  /** Executable basenames that select this plugin. */
  readonly names: readonly string[];
  /** The whole-ID grammar, anchored at both ends. */
  readonly grammar: RegExp;
  readonly json: readonly JsonRule[];
  readonly text: readonly TextRule[];
  /** Output that means "the stored ID was rejected". */
  readonly rejected: readonly RegExp[];
  /** Output that means a failure says nothing about the ID (offline, auth): keep the pointer. */
  readonly transient: readonly RegExp[];
  /**
   * The agent says in words when it cannot resume an ID (`rejected`, proven against the real
   * CLI): a warm start that fails without those words keeps the pointer, whatever its exit code
   * (an API error no `transient` text foresaw). Without it, a non-zero exit early in a warm
   * start, before any turn, counts as a rejection too.
   */
  readonly saysRejected?: boolean;
  /**
   * Output of a one-shot run meaning its turn failed though it exits 0 (pi's `--mode json`
   * `turn_end` with `"stopReason":"error"`): the message does not count as had, and the same call
   * again delivers it.
   */
  readonly turnFailed?: readonly RegExp[];
  readonly upfront?: UpfrontCommand;
  /**
   * Names the new session in argv (`claude --session-id <uuid>`), so no parsing is needed;
   * `fresh` is a new random UUID. Undefined when this invocation cannot.
   */
  chooseId?(args: readonly string[], fresh: string): { readonly id: string; readonly args: string[] } | undefined;
  readonly store?: SessionStore;
  readonly sessionLog?: SessionLog;
  readonly pidFile?: PidFile;
  /**
   * For agents without session IDs: the file in the working folder that holds their chat
   * history, and the flag that restores it (Aider's `--restore-chat-history`).
   */
  readonly history?: { readonly file: string; readonly flag: string };
  /** What `doctor` should say about the agent's own settings, read from its config files. */
  advice?(context: RunContext): readonly AgentAdvice[];
  /**
   * Why this invocation opens no conversation at all (`--version`, `--help`, a subcommand such as
   * `amp threads list` or `claude mcp …`), if so: nothing is pinned or typed, and a shim hands it
   * straight to the agent, without a PTY.
   */
  noConversation?(args: readonly string[]): string | undefined;
  /**
   * Why this conversation cannot be pinned (an agent without session IDs, Claude's
   * `--no-session-persistence`), if so: the agent runs transparently, nothing is pinned.
   */
  unpinned?(args: readonly string[]): string | undefined;
  /**
   * The session the caller's argv already opens (`--resume X`, `--continue`, `amp threads
   * continue X`), if it does: the argv runs as given, never rewritten, and the pin follows the
   * session the agent then runs in. `id` when the argv names it outright; `via` is the words that
   * choose it, for the log and `plan`.
   */
  callerSession?(args: readonly string[]): CallerSession | undefined;
  /** The message in argv and the mode: read before anything is rewritten. */
  invocation(args: readonly string[]): Invocation;
  /**
   * Args for a fresh session; with `prompt` when the agent takes it in argv. Also fills a warm
   * start's message slot: `coldArgs(warmArgs(args, id), message)` is a resume that delivers it.
   */
  coldArgs(args: readonly string[], prompt: string | undefined): ColdStart;
  /**
   * Args that resume `id`, with the original message removed, in the same mode: a one-shot run
   * stays one-shot (with an empty slot where the agent needs one), so that no warm start of a
   * headless command opens an interactive screen.
   */
  warmArgs(args: readonly string[], id: string): string[];
  /** How a session travels to another machine or folder (`sessionpin export`/`import`); without it, it does not. */
  readonly carry?: SessionCarry;
}

/**
 * What a carry spec may look at in a store on this machine (src/state/store-look.ts): read only,
 * links never followed, regular files only, every read bounded.
 */
export interface StoreLook {
  /** The entries of folder `dir`, or undefined when it is not a folder that can be listed. */
  list(dir: string): ReadonlyArray<{ readonly name: string; readonly kind: "file" | "folder" | "link" | "other" }> | undefined;
  /** Up to `maxBytes` of regular file `path`, as UTF-8, or undefined. */
  head(path: string, maxBytes: number): string | undefined;
  /** The size of regular file `path`, or undefined. */
  size(path: string): number | undefined;
}

/** One file of a carried session: its path below the store's root (`/` between folders). */
export interface CarriedFile {
  readonly path: string;
  /**
   * The file that holds the session's turns, one per session: where a copy of the session is
   * already in place, whether its turns are the first of the archive's decides which is newer.
   */
  readonly transcript?: boolean;
}

/**
 * A session that travels as files: found below a root that depends on the HOME and the folder
 * (Claude's `projects/<folder>`), put below the new HOME's and folder's root under the same paths.
 */
export interface CarryFiles {
  readonly kind: "files";
  /** What travels and what is rewritten, in one line (`plugins`, docs/carry.md). */
  readonly says: string;
  /** Where this HOME and folder keep the agent's sessions; `look` reads the agent's registries (Gemini's projects.json). */
  root(context: RunContext, look: StoreLook): string;
  /** The files of session `id`, whose store entry is `entry` (both below `root`). */
  files(id: string, root: string, entry: string, look: StoreLook): readonly CarriedFile[];
  /** Whether `path` (below the root) may be a file of session `id`: an archive naming any other file is refused. */
  owns(path: string, id: string): boolean;
  /**
   * How the files name their folder, each form as a whole JSON string value (the path itself;
   * Gemini's sha256 of it): every occurrence of the old folder's forms becomes the new folder's.
   */
  folderNames(cwd: string): readonly string[];
  /**
   * Files the agent's registry needs at the new place beside the session's own (Gemini's
   * projects.json and its folder owner markers), with their whole new text: written atomically.
   */
  register?(context: RunContext, root: string, look: StoreLook): ReadonlyArray<{ readonly path: string; readonly text: string }>;
  /** The transcript's turns in order, for a transcript rewritten whole (Auggie's JSON); otherwise its lines are the turns. */
  turns?(text: string): readonly string[] | undefined;
  /** Lines of a line-by-line transcript that are no turn (omp's title line, rewritten in place). */
  notTurn?(line: string): boolean;
}

/** A session that travels through the agent's own export and import commands (OpenCode keeps sessions in SQLite). */
export interface CarryCommand {
  readonly kind: "command";
  readonly says: string;
  /** Arguments that print session `id` as one document on stdout; run in the session's folder. */
  exportArgs(id: string): string[];
  /** Arguments that load that document from `file`; run in the new folder. */
  importArgs(file: string): string[];
  /** Output of a failed export meaning the session is not there. */
  readonly missing: RegExp;
  /** The document's turns in order (message IDs); undefined for text that is no such document. */
  turns(text: string): readonly string[] | undefined;
}

/**
 * Nothing of the agent's own travels: `pointer` where the pointer alone resumes the session on
 * another machine (Amp's threads live on its server), `none` where the session cannot be carried.
 */
export interface CarryNot {
  readonly kind: "pointer" | "none";
  readonly says: string;
}

/** How one agent's session travels to another machine or folder (`sessionpin export` / `import`). */
export type SessionCarry = CarryFiles | CarryCommand | CarryNot;
