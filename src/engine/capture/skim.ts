/**
 * Stretches of whole lines passed over without a string made of each. A stream-json agent names
 * its session on every line; once it is pinned, nearly every line is one the line filter turns
 * down, and making, searching and dropping each of them was most of what capture cost `run`.
 * Here one look at the bytes of a stretch (where its LFs, "{"s and control bytes are) says how
 * many lines it holds and whether any of them needs reading for its shape; the plugin's side
 * (skim in pipeline.ts) says whether its JSON could say anything new.
 *
 * The look is ControlScan.breaks (control-scan.ts), in WebAssembly over the offsets its `events`
 * wrote: the line breaks of a run of whole lines, counted as LineSplitter counts them (an LF or
 * a CR run before one, a lone CR run, a row move: lines.ts), or none when a line in it has a "{"
 * and also a control byte (cleaning could make a key of what is around it) or may be the first
 * row of a wrapped object (rejoin.ts): such a line must go through the splitter.
 */

const LF = 0x0a;

/**
 * Cuts `bytes` where a skim can start and end: `split` gets the bytes up to the first LF, then
 * `lines` the whole lines after them up to the last LF, then `split` the rest (when there is any).
 * With fewer than two LFs there are no such lines, and `split` gets it all. `events`: those of
 * `bytes` (ControlScan.events), where the last LF is found.
 */
export function aroundWholeLines(bytes: Uint8Array, events: ArrayLike<number>, split: (from: number, to: number) => void, lines: (from: number, to: number) => void): void {
  const first = bytes.indexOf(LF) + 1;
  const last = afterLastLineFeed(bytes, events);
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
