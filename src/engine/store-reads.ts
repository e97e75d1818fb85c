import type { IdState, RunContext, StoreFolder } from "../agents/types.js";
import { list, listSync, type Listed } from "./store-folders.js";
import {
  folderStamp, folderStampSync, kindOfPath, kindOfSync, readJsonFile, readJsonFileSync, readSpan, readSpanSync,
  type EntryKind, type FileStamp, type FolderStamp, type ReadLimits, type Span,
} from "./store-files.js";

/**
 * A source the store watch reads while the agent runs (its session store, pid file, session log),
 * for one run. Its looks are written once, as the reads they need, and the watch does each read
 * either at once (the look before the spawn and the last one, after the exit: nothing else waits
 * then) or off the thread that relays the agent's bytes (every look in between), dropping a look
 * that stop() overtook. Every read is one of store-files.ts: bounded, never through a link, never
 * blocking on a FIFO.
 */
export interface WatchedSource {
  /** Before the spawn: what is there then belongs to earlier runs. */
  before(): Look;
  /** One look at the running agent, process `pid`. */
  look(pid: number): Look;
}

/** What a watched source is given for its run. */
export interface Watching {
  readonly context: RunContext;
  readonly now: () => number;
  /** The ID pinned now, from any source (the tracker's). */
  readonly current: () => { readonly id: string; readonly state: IdState } | undefined;
  /**
   * The agent answers once and exits: its session cannot change while it runs (no `/clear`), so
   * a new entry names it only while nothing else has. Once the run has its ID (chosen up front,
   * resumed, or printed), a new entry is another run's in the same folder (a second chat
   * thread's `--key`), and taking it would merge the two conversations.
   */
  readonly oneShot: boolean;
  /** Where an ID found goes, unjudged: the intake holds it against the grammar. */
  readonly offer: (rule: string, state: IdState, value: string) => void;
}

/** One read a look asks for. */
export type Read =
  | { readonly kind: "stamp"; readonly dir: string }
  | { readonly kind: "list"; readonly place: StoreFolder }
  | { readonly kind: "what"; readonly path: string }
  | { readonly kind: "span"; readonly path: string; readonly offset: number; readonly limits: ReadLimits; readonly unless?: FileStamp | undefined }
  | { readonly kind: "json"; readonly path: string; readonly limits: ReadLimits };

/** A look: the reads it needs, in order, each answered before the next is asked. */
export type Look = Generator<Read, void, unknown>;

// Each read as a look of its own (`yield*` it): the answer comes typed as the read gives it.
type Answer<T> = Generator<Read, T, unknown>;

export function* stampOf(dir: string): Answer<FolderStamp | undefined> {
  return (yield { kind: "stamp", dir }) as FolderStamp | undefined;
}

export function* listingOf(place: StoreFolder): Answer<Listed> {
  return (yield { kind: "list", place }) as Listed;
}

export function* kindAt(path: string): Answer<EntryKind | undefined> {
  return (yield { kind: "what", path }) as EntryKind | undefined;
}

export function* spanOf(path: string, offset: number, limits: ReadLimits, unless?: FileStamp): Answer<Span | "unchanged" | undefined> {
  return (yield { kind: "span", path, offset, limits, unless }) as Span | "unchanged" | undefined;
}

export function* jsonAt(path: string, limits: ReadLimits): Answer<Record<string, unknown> | undefined> {
  return (yield { kind: "json", path, limits }) as Record<string, unknown> | undefined;
}

function readNow(read: Read): unknown {
  switch (read.kind) {
    case "stamp": return folderStampSync(read.dir);
    case "list": return listSync(read.place);
    case "what": return kindOfSync(read.path);
    case "span": return readSpanSync(read.path, read.offset, read.limits, read.unless);
    case "json": return readJsonFileSync(read.path, read.limits);
  }
}

function readOffThread(read: Read): Promise<unknown> {
  switch (read.kind) {
    case "stamp": return folderStamp(read.dir);
    case "list": return list(read.place);
    case "what": return kindOfPath(read.path);
    case "span": return readSpan(read.path, read.offset, read.limits, read.unless);
    case "json": return readJsonFile(read.path, read.limits);
  }
}

/** Runs a look to its end, every read at once. */
export function lookNow(look: Look): void {
  for (let step = look.next(); step.done !== true; step = look.next(readNow(step.value)));
}

/** Runs a look, every read off the thread; false, and the look dropped, as soon as `live` says no. */
export async function lookOffThread(look: Look, live: () => boolean): Promise<boolean> {
  for (let step = look.next(); step.done !== true;) {
    const answer = await readOffThread(step.value);
    if (!live()) {
      look.return();
      return false;
    }
    step = look.next(answer);
  }
  return true;
}
