import type { SessionStore } from "../agents/types.js";
import { rememberEntry } from "../state/store-index.js";
import { holdsSession, StoreFolders, type Pending } from "./store-folders.js";
import { kindAt, listingOf, spanOf, stampOf, type Look, type WatchedSource, type Watching } from "./store-reads.js";

/**
 * The agent's session store while it runs. An entry for the pinned ID confirms it (there is now
 * something to resume). An entry that was not there when the agent started is the session it is
 * in now: it captures the ID, or moves the pin after a fork or `/clear`. Two agents of one kind in
 * one folder share a store; that is what `belongs` and the pointer lock narrow down.
 *
 * What a look costs does not grow with the store: a folder is listed again only when its stamp
 * (mtime, ctime, size, link count) changed, which a new entry does; only new entries are looked
 * at, and a new entry's head is read until it says whose session it is, and again only when the
 * file changed. Nothing is taken that is not a file or a folder. An entry found is remembered
 * (src/state/store-index.ts) for the next warm start's look-up.
 */
export function watchStore(agent: string, store: SessionStore, run: Watching): WatchedSource {
  const folders = new StoreFolders(store, run.context, run.now);
  const offer = (entry: { readonly id: string; readonly path: string }): void => {
    run.offer(store.rule, "confirmed", entry.id);
    void rememberEntry(run.context, agent, entry.id, entry.path);
  };
  // The entry named for the pinned ID while that is still provisional: it confirms the ID once it proves to be a file or folder.
  const pinnedEntry = (): { id: string; path: string } | undefined => {
    const pinned = run.current();
    if (pinned?.state !== "provisional") return undefined;
    const path = folders.entryOf(pinned.id);
    return path === undefined ? undefined : { id: pinned.id, path };
  };
  // New entries to judge in this look: none in a one-shot run that has its ID (see Watching.oneShot).
  const dueEntries = (): Pending[] => (run.oneShot && run.current() !== undefined ? [] : folders.dueEntries());
  return {
    // The one look that lists every watched folder, as names only.
    *before(): Look {
      const queue = folders.places();
      for (let i = 0; i < queue.length; i++) {
        const place = queue[i];
        if (place === undefined) continue;
        const stamp = yield* stampOf(place.dir);
        const listing = stamp === undefined ? ({ kind: "missing" } as const) : yield* listingOf(place);
        const folder = folders.folder(place, listing);
        folders.took(folder, stamp, listing);
        queue.push(...folders.below(folder));
      }
    },
    *look(): Look {
      const queue = folders.places();
      for (let i = 0; i < queue.length; i++) {
        const place = queue[i];
        if (place === undefined) continue;
        const folder = folders.folder(place);
        const stamp = yield* stampOf(folder.dir);
        if (folders.due(folder, stamp)) folders.listed(folder, stamp, stamp && (yield* listingOf(folder)));
        queue.push(...folders.below(folder));
      }
      const pinned = pinnedEntry();
      if (pinned !== undefined) {
        const kind = yield* kindAt(pinned.path);
        if (kind !== undefined && holdsSession(kind)) offer(pinned);
      }
      for (const entry of dueEntries()) {
        entry.kind ??= yield* kindAt(entry.path);
        const next = folders.next(entry);
        if (next === "take") offer(entry);
        if (next !== "read") continue;
        const { path, maxBytes } = folders.head(entry);
        if (folders.belongs(entry, yield* spanOf(path, 0, { maxBytes }, entry.stamp))) offer(entry);
      }
    },
  };
}
