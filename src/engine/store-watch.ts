import type { Clock, Timer } from "../clock.js";
import { valueAt } from "../json.js";
import { rememberEntry } from "../state/store-index.js";
import type { Candidate, IdSource } from "./source.js";
import { holdsSession, list, listSync, StoreFolders, type Pending } from "./store-folders.js";
import { folderStamp, folderStampSync, kindOfPath, kindOfSync, readJsonFile, readJsonFileSync, readSpan, readSpanSync, type EntryKind, type Span } from "./store-files.js";
import type { Pinned } from "./tracker.js";
import type { AgentPlugin, IdState, RunContext } from "../agents/types.js";

const POLL_MS = 500;
const LOG_BYTES_PER_POLL = 1024 * 1024;
const PID_FILE_BYTES = 64 * 1024;

/**
 * Watches where the agent keeps its sessions while it runs: its pid file (Claude's
 * sessions/<pid>.json), its session store and its session log. An entry for the pinned ID confirms
 * it (there is now something to resume). An entry that was not there when the agent started is the
 * session it is in now: it captures the ID, or moves the pin after a fork or `/clear`. Two agents
 * of one kind in one folder share a store; that is what `belongs` and the pointer lock narrow down.
 *
 * What a look costs does not grow with the store: a folder is listed again only when its stamp
 * (mtime, ctime, size, link count) changed, which a new entry does; only new entries are looked
 * at, and a new entry's head is read until it says whose session it is, and again only when the
 * file changed. The looks while the agent runs read off the thread that relays its bytes; the one
 * before the spawn and the last one, after the exit, read at once. Nothing is read that is not a
 * regular file, nor through a link, and nothing is taken that is not a file or a folder.
 */
export class StoreWatch {
  #timer: Timer | undefined;
  /** Bumped by stop(): a look still under way then is dropped, unseen. */
  #turn = 0;
  readonly #folders: StoreFolders | undefined;
  /** How far the session log was read, and a line not yet ended. */
  #logOffset = 0;
  #logRest = "";

  constructor(
    private readonly plugin: AgentPlugin,
    private readonly context: RunContext,
    private readonly clock: Clock,
    private readonly current: () => Pinned | undefined,
    /** Where every ID found goes, unjudged: the intake holds it against the grammar. */
    private readonly offer: (candidate: Candidate) => void,
    /**
     * The agent answers once and exits: its session cannot change while it runs (no `/clear`), so
     * a new entry names it only while nothing else has. Once the run has its ID (chosen up front,
     * resumed, or printed), a new entry is another run's in the same folder (a second chat
     * thread's `--key`), and taking it would merge the two conversations.
     */
    private readonly oneShot = false,
  ) {
    this.#folders = plugin.store && new StoreFolders(plugin.store, context, () => clock.now());
  }

  get needed(): boolean {
    return this.plugin.store !== undefined || this.plugin.pidFile !== undefined || this.plugin.sessionLog !== undefined;
  }

  /**
   * Call before the spawn: what the store holds then belongs to earlier runs. Taken after it, an
   * agent that writes its session file as it starts could beat the look, and its session would
   * count as an earlier run's. The one look that lists every watched folder, as names only.
   */
  before(): void {
    const folders = this.#folders;
    const queue = folders?.places() ?? [];
    for (let i = 0; i < queue.length; i++) {
      const place = queue[i];
      if (folders === undefined || place === undefined) continue;
      const stamp = folderStampSync(place.dir);
      const listing = stamp === undefined ? ({ kind: "missing" } as const) : listSync(place);
      const folder = folders.folder(place, listing);
      folders.took(folder, stamp, listing);
      queue.push(...folders.below(folder));
    }
    const log = this.plugin.sessionLog;
    if (log !== undefined) {
      const span = readSpanSync(log.path(this.context), 0, { maxBytes: 0 });
      this.#logOffset = typeof span === "object" ? span.size : 0;
    }
  }

  /** Looks at the running agent's pid file, store and log every POLL_MS until `stop`, one look at a time. */
  start(pid: number): void {
    const turn = this.#turn;
    const tick = (): void => {
      void this.#look(pid, turn).catch(() => undefined).then(() => {
        if (this.#turn === turn) this.#timer = this.clock.setTimeout(tick, POLL_MS);
      });
    };
    this.#timer = this.clock.setTimeout(tick, POLL_MS);
  }

  /** Stops looking, after one last look at once (agents write their transcript as they exit). */
  stop(pid: number): void {
    this.#turn++;
    if (this.#timer !== undefined) this.clock.clearTimeout(this.#timer);
    this.#timer = undefined;
    this.poll(pid);
  }

  /** One look, at once. */
  poll(pid: number): void {
    const folders = this.#folders;
    if (folders !== undefined) {
      const queue = folders.places();
      for (let i = 0; i < queue.length; i++) {
        const place = queue[i];
        if (place === undefined) continue;
        const folder = folders.folder(place);
        const stamp = folderStampSync(folder.dir);
        if (folders.due(folder, stamp)) folders.listed(folder, stamp, stamp && listSync(folder));
        queue.push(...folders.below(folder));
      }
      const pinned = this.#pinnedEntry(folders);
      if (pinned !== undefined) this.#confirm(pinned, kindOfSync(pinned.path));
      for (const entry of this.#dueEntries(folders)) {
        entry.kind ??= kindOfSync(entry.path);
        const next = folders.next(entry);
        if (next === "take") this.#offerEntry(entry.id, entry.path);
        if (next !== "read") continue;
        const { path, maxBytes } = folders.head(entry);
        if (folders.belongs(entry, readSpanSync(path, 0, { maxBytes }, entry.stamp))) this.#offerEntry(entry.id, entry.path);
      }
    }
    const { pidFile, sessionLog } = this.plugin;
    if (pidFile !== undefined) this.#pidFileSays(readJsonFileSync(pidFile.path(pid, this.context), { maxBytes: PID_FILE_BYTES }));
    if (sessionLog !== undefined) this.#logSays(readSpanSync(sessionLog.path(this.context), this.#logOffset, { maxBytes: LOG_BYTES_PER_POLL }));
  }

  /** One look off the thread, as poll() takes at once; dropped as soon as stop() has run. */
  async #look(pid: number, turn: number): Promise<void> {
    const live = (): boolean => this.#turn === turn;
    const folders = this.#folders;
    if (folders !== undefined) {
      const queue = folders.places();
      for (let i = 0; i < queue.length; i++) {
        const place = queue[i];
        if (place === undefined) continue;
        const folder = folders.folder(place);
        const stamp = await folderStamp(folder.dir);
        if (!live()) return;
        if (folders.due(folder, stamp)) {
          const listing = stamp && (await list(folder));
          if (!live()) return;
          folders.listed(folder, stamp, listing);
        }
        queue.push(...folders.below(folder));
      }
      const pinned = this.#pinnedEntry(folders);
      if (pinned !== undefined) {
        const kind = await kindOfPath(pinned.path);
        if (!live()) return;
        this.#confirm(pinned, kind);
      }
      for (const entry of this.#dueEntries(folders)) {
        entry.kind ??= await kindOfPath(entry.path);
        if (!live()) return;
        const next = folders.next(entry);
        if (next === "take") this.#offerEntry(entry.id, entry.path);
        if (next !== "read") continue;
        const { path, maxBytes } = folders.head(entry);
        const head = await readSpan(path, 0, { maxBytes }, entry.stamp);
        if (!live()) return;
        if (folders.belongs(entry, head)) this.#offerEntry(entry.id, entry.path);
      }
    }
    const { pidFile, sessionLog } = this.plugin;
    if (pidFile !== undefined) {
      const json = await readJsonFile(pidFile.path(pid, this.context), { maxBytes: PID_FILE_BYTES });
      if (!live()) return;
      this.#pidFileSays(json);
    }
    if (sessionLog !== undefined) {
      const span = await readSpan(sessionLog.path(this.context), this.#logOffset, { maxBytes: LOG_BYTES_PER_POLL });
      if (!live()) return;
      this.#logSays(span);
    }
  }

  /** The entry named for the pinned ID while that is still provisional: it confirms the ID once it proves to be a file or folder. */
  #pinnedEntry(folders: StoreFolders): { id: string; path: string } | undefined {
    const pinned = this.current();
    if (pinned?.state !== "provisional") return undefined;
    const path = folders.entryOf(pinned.id);
    return path === undefined ? undefined : { id: pinned.id, path };
  }

  #confirm(entry: { id: string; path: string }, kind: EntryKind | undefined): void {
    if (kind !== undefined && holdsSession(kind)) this.#offerEntry(entry.id, entry.path);
  }

  /** New entries to judge in this look: none in a one-shot run that has its ID (see `oneShot`). */
  #dueEntries(folders: StoreFolders): Pending[] {
    return this.oneShot && this.current() !== undefined ? [] : folders.dueEntries();
  }

  #pidFileSays(json: Record<string, unknown> | undefined): void {
    const pidFile = this.plugin.pidFile;
    const id = json === undefined || pidFile === undefined ? undefined : valueAt(json, pidFile.field);
    if (pidFile !== undefined && typeof id === "string") this.#offer("pid-file", pidFile.rule, "provisional", id);
  }

  #logSays(span: Span | "unchanged" | undefined): void {
    const log = this.plugin.sessionLog;
    if (log === undefined || typeof span !== "object") return;
    // Truncated or replaced: start again from its beginning.
    if (span.size < this.#logOffset) {
      this.#logOffset = 0;
      this.#logRest = "";
      return;
    }
    this.#logOffset += span.bytes.length;
    const lines = (this.#logRest + span.bytes.toString("utf8")).split("\n");
    this.#logRest = lines.pop() ?? "";
    for (const line of lines) {
      const id = log.created(line, this.context);
      if (id !== undefined) this.#offer("session-log", log.rule, "confirmed", id);
    }
  }

  /** A store entry for session `id`: offered, and remembered for the next warm start's look-up. */
  #offerEntry(id: string, path: string): void {
    const store = this.plugin.store;
    if (store === undefined) return;
    this.#offer("store", store.rule, "confirmed", id);
    void rememberEntry(this.context, this.plugin.name, id, path);
  }

  #offer(source: IdSource, rule: string, state: IdState, value: string): void {
    this.offer({ source, rule, state, value });
  }
}
