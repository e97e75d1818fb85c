/**
 * Stretches of whole lines passed over without a string made of each. A stream-json agent names
 * its session on every line; once it is pinned, nearly every line is one the line filter turns
 * down, and making, searching and dropping each of them was most of what capture cost `run`.
 * Here one look at the bytes of a stretch (where its LFs, "{"s and control bytes are) says how
 * many lines it holds and whether any of them needs reading for its shape; the plugin's side
 * (skim in pipeline.ts) says whether its JSON could say anything new.
 */

import { mayStartWrappedAt } from "./rejoin.js";

const LF = 0x0a;
const CR = 0x0d;
const ESC = 0x1b;
const OPEN = 0x7b;
const BRACKET = 0x5b;

/**
 * The number of line breaks in `bytes[from, to)` (`from` at a line start, `to` just after an LF),
 * counted as LineSplitter counts them: LF or a CR run before one, a lone CR run, a cursor move
 * (lines.ts). Undefined when a line in it has a "{" and also a control byte (cleaning could make
 * a key of what is around it) or may be the first row of a wrapped object (rejoin.ts): such a
 * line must go through the splitter. `events`: the offsets in `bytes` of its LFs, "{"s and
 * control bytes, in order (ControlScan.events).
 */
export function skimBreaks(bytes: Uint8Array, from: number, to: number, events: ArrayLike<number>): number | undefined {
  let breaks = 0;
  let lineStart = from;
  let brace = false;
  let dirty = false;
  for (let i = firstAtOrAfter(events, from); i < events.length; i++) {
    const at = events[i] ?? to;
    if (at >= to) break;
    const byte = bytes[at];
    if (byte === LF) {
      breaks++;
      if (brace && (dirty || mayStartWrappedAt(bytes, lineStart, at))) return undefined;
      lineStart = at + 1;
      brace = false;
      dirty = false;
    } else if (byte === OPEN) {
      brace = true;
    } else if (byte === CR) {
      let end = at + 1;
      while (bytes[end] === CR) end++;
      while (i + 1 < events.length && (events[i + 1] ?? to) < end) i++;
      // A CR run before an LF is part of that line break; any other is a break of its own.
      if (bytes[end] !== LF) {
        breaks++;
        dirty = true;
      }
    } else {
      dirty = true;
      if (byte === ESC && movesCursor(bytes, at)) breaks++;
    }
  }
  return breaks;
}

/**
 * Cuts `bytes` where a skim can start and end: `split` gets the bytes up to the first LF, then
 * `lines` the whole lines after them up to the last LF, then `split` the rest (when there is any).
 * With fewer than two LFs there are no such lines, and `split` gets it all.
 */
export function aroundWholeLines(bytes: Uint8Array, split: (from: number, to: number) => void, lines: (from: number, to: number) => void): void {
  const first = bytes.indexOf(LF) + 1;
  const last = bytes.lastIndexOf(LF) + 1;
  if (first === 0 || last === first) {
    split(0, bytes.length);
    return;
  }
  split(0, first);
  lines(first, last);
  if (last < bytes.length) split(last, bytes.length);
}

/**
 * The offset just after the last LF of `bytes`, 0 when there is none, found among its `events`
 * (every LF is one): the few events after it are walked, where `lastIndexOf` paid its way into
 * Buffer's binding on every read.
 */
export function afterLastLineFeed(bytes: Uint8Array, events: ArrayLike<number>): number {
  for (let i = events.length - 1; i >= 0; i--) {
    const at = events[i] ?? 0;
    if (bytes[at] === LF) return at + 1;
  }
  return 0;
}

/** The index of the first offset at or after `from` (offsets ascend). */
function firstAtOrAfter(offsets: ArrayLike<number>, from: number): number {
  let low = 0;
  let high = offsets.length;
  while (low < high) {
    const mid = (low + high) >>> 1;
    if ((offsets[mid] ?? from) < from) low = mid + 1;
    else high = mid;
  }
  return low;
}

/** The escape at `at` is a row move LineSplitter breaks lines at: CSI [0-9;]* A/B/E/F/H/d/f, or ESC D/E/M. */
function movesCursor(bytes: Uint8Array, at: number): boolean {
  const next = bytes[at + 1];
  if (next !== BRACKET) return next === 0x44 || next === 0x45 || next === 0x4d;
  let end = at + 2;
  for (let byte = bytes[end]; byte !== undefined && ((byte >= 0x30 && byte <= 0x39) || byte === 0x3b); byte = bytes[end]) end++;
  const final = bytes[end];
  return final === 0x41 || final === 0x42 || final === 0x45 || final === 0x46 || final === 0x48 || final === 0x64 || final === 0x66;
}
