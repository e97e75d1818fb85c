import type { RunContext } from "./session-store.js";

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
