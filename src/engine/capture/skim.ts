/**
 * Stretches of whole lines passed over without a string made of each. A stream-json agent names
 * its session on every line; once it is pinned, nearly every line is one the line filter turns
 * down, and making, searching and dropping each of them was most of what capture cost `run`.
 * Here one look at the bytes of a stretch (where its LFs, "{"s and control bytes are) says how
 * many lines it holds and whether any of them needs reading for its shape; the plugin's side
 * (skim in pipeline.ts) says whether its JSON could say anything new.
 *
 * The look is ControlScan.shape (control-scan.ts), in WebAssembly: the line breaks of a run of
 * whole lines, counted as LineSplitter counts them (an LF or a CR run before one, a lone CR run, a
 * row move: lines.ts), or none when a line in it has a "{" and also a control byte (cleaning could
 * make a key of what is around it) or may be the first row of a wrapped object (rejoin.ts): such a
 * line must go through the splitter.
 */

const LF = 0x0a;

/**
 * Where the whole lines a skim may pass over start in `bytes`: at 0 when the splitter is `idle`
 * (between lines), else just after the first LF (0 when there is none: no whole line starts).
 */
export function firstLineStart(bytes: Uint8Array, idle: boolean): number {
  return idle ? 0 : bytes.indexOf(LF) + 1;
}
