import { join } from "node:path";
import { namesSession } from "./store-lookup.js";
import { listFolder, listFolderSync, listNames, listNamesSync, type EntryKind, type FileStamp, type FolderStamp, type Listing, type Span } from "./store-files.js";
import type { RunContext, SessionStore, StoreFolder } from "../agents/types.js";

/**
 * A folder whose entries changed this recently may change again within the same tick of its file
 * system's clock (a few ms on Linux, up to 2 s on others) without its stamp showing it: it is
 * listed again at the next look.
 */
const RACY_MS = 2_000;
/** A watched folder with more entries is too big to tell new from old: it is not watched. */
const MAX_ENTRIES = 200_000;
/** New entries whose head has not yet said whose they are; past this the oldest is given up. */
const MAX_PENDING = 64;
/** Heads read in one look; the others wait for the next. */
const HEADS_PER_LOOK = 8;
const HEAD_BYTES = 64 * 1024;

/** A watched folder as last listed. */
export interface Watched {
  readonly dir: string;
  readonly depth: number;
  /** Its stamp when last listed; undefined before then, and while it cannot be listed. */
  stamp: FolderStamp | undefined;
  /** Listed again at the next look whatever its stamp: it had just changed. */
  racy: boolean;
  /** The names in it, as last listed (of every kind: what an entry is, is asked only of those looked at). */
  names: readonly string[];
  /** The same, for questions: made when first asked. */
  nameSet: Set<string> | undefined;
  /** The ID each name holds → the name: made when first asked. */
  ids: Map<string, string> | undefined;
  /** Its folders, for a store watched `depth` levels down. */
  folders: readonly string[];
  /** The names there before the spawn (a Set once first asked); undefined when it was too big or unreadable then. */
  before: readonly string[] | Set<string> | undefined;
}

/** An entry that appeared while the agent runs, not yet judged. */
export interface Pending {
  readonly path: string;
  readonly id: string;
  readonly folder: Watched;
  readonly name: string;
  /** What it is (lstat): only files and folders hold sessions. */
  kind?: EntryKind | undefined;
  /** The stamp its head was last judged under: unchanged, it is not read again. */
  stamp?: FileStamp;
}

/** A watched folder's listing: its names, and its folders when the store is watched below it. */
export type Listed = { readonly kind: "listed"; readonly entries: readonly string[]; readonly folders: readonly string[] } | Exclude<Listing<string>, { kind: "listed" }>;

/**
 * The store's watched folders as last listed, and the entries that appeared in them since the
 * spawn: the store watch's memory, without its reads (StoreWatch reads, at once or off the
 * thread, and hands over what it read). Nothing here grows with the store but the names kept.
 */
export class StoreFolders {
  readonly #folders = new Map<string, Watched>();
  /** Entries that appeared while the agent runs, by path: reported, pending or given up. */
  readonly #appeared = new Set<string>();
  readonly #pending = new Map<string, Pending>();

  constructor(
    private readonly store: SessionStore,
    private readonly context: RunContext,
    private readonly now: () => number,
  ) {}

  /** The folders `where` names now (Codex's move to a new day; Gemini's project once registered). */
  places(): StoreFolder[] {
    return [...this.store.where(this.context, new Date(this.now()))];
  }

  /** The folders below `folder`, for a store watched `depth` levels down. */
  below(folder: Watched): StoreFolder[] {
    return folder.depth === 0 ? [] : folder.folders.map((name) => ({ dir: join(folder.dir, name), depth: folder.depth - 1 }));
  }

  /**
   * A folder's record. Its entries before the spawn are `before`'s listing; a folder first seen
   * later held nothing then (all its entries are new); one too big or unreadable then is not watched.
   */
  folder(place: StoreFolder, before: Listing<string> = { kind: "missing" }): Watched {
    let folder = this.#folders.get(place.dir);
    if (folder === undefined) {
      folder = {
        dir: place.dir, depth: place.depth, stamp: undefined, racy: true, names: [], nameSet: undefined, ids: undefined, folders: [],
        before: before.kind === "listed" ? before.entries : before.kind === "missing" ? [] : undefined,
      };
      this.#folders.set(place.dir, folder);
    }
    return folder;
  }

  /** Whether the folder must be listed again: it changed, or it changed too recently to trust its stamp. */
  due(folder: Watched, stamp: FolderStamp | undefined): boolean {
    return folder.racy || stamp?.stamp !== folder.stamp?.stamp;
  }

  /** Takes a folder's listing as it is (before the spawn: what is there belongs to earlier runs). */
  took(folder: Watched, stamp: FolderStamp | undefined, listing: Listed | undefined): void {
    // One that could not be read is listed again at the next look (a failed listing costs little).
    folder.stamp = listing?.kind === "unreadable" ? undefined : stamp;
    folder.racy = stamp !== undefined && this.now() - stamp.mtimeMs < RACY_MS;
    folder.names = listing?.kind === "listed" ? listing.entries : [];
    folder.folders = listing?.kind === "listed" ? listing.folders : [];
    folder.nameSet = undefined;
    folder.ids = undefined;
  }

  /** Takes a folder's new listing while the agent runs: the names in it, and the new entries among them. */
  listed(folder: Watched, stamp: FolderStamp | undefined, listing: Listed | undefined): void {
    this.took(folder, stamp, listing);
    if (!this.store.wholeId || folder.before === undefined) return;
    const before = (folder.before = folder.before instanceof Set ? folder.before : new Set(folder.before));
    for (const name of folder.names) {
      if (before.has(name)) continue;
      const id = this.store.name.exec(name)?.groups?.["id"];
      const path = join(folder.dir, name);
      if (id === undefined || this.#appeared.has(path)) continue;
      this.#appeared.add(path);
      this.#pending.set(path, { path, id, folder, name });
      if (this.#pending.size > MAX_PENDING) this.#pending.delete(this.#pending.keys().next().value ?? "");
    }
    // An entry removed before it was judged is nobody's session now.
    for (const [path, entry] of this.#pending) if (entry.folder === folder && !this.#nameSet(folder).has(entry.name)) this.#pending.delete(path);
  }

  #nameSet(folder: Watched): Set<string> {
    return (folder.nameSet ??= new Set(folder.names));
  }

  /** The entry named for session `id` in the folders as last listed, if there is one. */
  entryOf(id: string): string | undefined {
    const store = this.store;
    const exact = store.entryName?.(id);
    for (const folder of this.#folders.values()) {
      if (exact !== undefined) {
        if (this.#nameSet(folder).has(exact)) return join(folder.dir, exact);
        continue;
      }
      // Named by more than the ID (Codex's time, Gemini's 8 characters of it): each name read once per listing.
      const ids = (folder.ids ??= new Map(folder.names.flatMap((name) => {
        const named = store.name.exec(name)?.groups?.["id"];
        return named === undefined ? [] : [[named, name] as const];
      })));
      for (const [named, name] of ids) if (namesSession(store, named, id)) return join(folder.dir, name);
    }
    return undefined;
  }

  /**
   * The pending entries to look at in this look, first in, first looked at: all of them when the
   * store has no `belongs` (a name says all), else HEADS_PER_LOOK, which then go to the back of the line.
   */
  dueEntries(): Pending[] {
    const due = [...this.#pending.values()].slice(0, this.store.belongs === undefined ? MAX_PENDING : HEADS_PER_LOOK);
    for (const entry of due) {
      this.#pending.delete(entry.path);
      this.#pending.set(entry.path, entry);
    }
    return due;
  }

  /**
   * What to do with an entry once it is known what it is: nothing unless it is a file or a folder
   * (a link, a FIFO, a device named like a session is nobody's); take it at once in a store
   * without `belongs`; else read its head.
   */
  next(entry: Pending): "take" | "read" | "drop" {
    if (!this.#pending.has(entry.path)) return "drop";
    if (entry.kind === undefined || !holdsSession(entry.kind)) {
      this.#pending.delete(entry.path);
      return "drop";
    }
    if (this.store.belongs !== undefined) return "read";
    this.#pending.delete(entry.path);
    return "take";
  }

  /** The file whose head `belongs` reads, and how much of it. */
  head(entry: Pending): { readonly path: string; readonly maxBytes: number } {
    return { path: this.store.inner === undefined ? entry.path : join(entry.path, this.store.inner), maxBytes: this.store.headBytes ?? HEAD_BYTES };
  }

  /** Whether the head says the entry is this folder's session; not (yet): looked at again once the file changes. */
  belongs(entry: Pending, head: Span | "unchanged" | undefined): boolean {
    const belongs = this.store.belongs;
    if (typeof head !== "object" || belongs === undefined || !this.#pending.has(entry.path)) return false;
    entry.stamp = head.stamp;
    if (!belongs(head.bytes.toString("utf8"), this.context)) return false;
    this.#pending.delete(entry.path);
    return true;
  }
}

/** Files and folders hold sessions; a link, a FIFO or a device named like one is nobody's. */
export const holdsSession = (kind: EntryKind): boolean => kind === "file" || kind === "folder";

function withFolders(listing: Listing): Listed {
  return listing.kind !== "listed" ? listing : { kind: "listed", entries: listing.entries.map((e) => e.name), folders: listing.entries.filter((e) => e.kind === "folder").map((e) => e.name) };
}

function namesOnly(listing: Listing<string>): Listed {
  return listing.kind !== "listed" ? listing : { kind: "listed", entries: listing.entries, folders: [] };
}

/** Names only, the cheapest listing, unless the store is watched below the folder. */
export function listSync(place: StoreFolder): Listed {
  return place.depth === 0 ? namesOnly(listNamesSync(place.dir, MAX_ENTRIES)) : withFolders(listFolderSync(place.dir, MAX_ENTRIES));
}

/** listSync, off the thread. */
export async function list(place: StoreFolder): Promise<Listed> {
  return place.depth === 0 ? namesOnly(await listNames(place.dir, MAX_ENTRIES)) : withFolders(await listFolder(place.dir, MAX_ENTRIES));
}
