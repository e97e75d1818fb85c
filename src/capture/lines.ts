import type { Transform } from "node:stream";
import split2 from "split2";

/**
 * Where one terminal line ends: LF or CRLF; a lone CR (the next text overwrites the line); and
 * the cursor movements a TUI uses instead of newlines to reach another row (CUU/CUD/CNL/CPL/CUP/
 * HVP/VPA, IND/NEL/RI). A run of CRs only counts once the character after it is known, and an
 * escape sequence only once it is complete, so a chunk boundary never changes where lines end.
 */
export const LINE_BREAK = /\r*\n|\r+(?!\r|$)|\x1b\[[0-9;]*[ABEFHdf]|\x1b[DEM]/;

/** Lines longer than this are dropped, so one endless line cannot grow memory without bound. */
export const MAX_LINE_CHARS = 4 * 1024 * 1024;

/**
 * Bytes in, one `map(raw, n)` result per line out. split2 decodes UTF-8 across chunk boundaries
 * (a character split between two reads is kept whole). `n` counts every line, empty or not.
 */
export function splitLines<T>(
  map: (raw: string, n: number) => T | undefined,
  maxLineChars = MAX_LINE_CHARS,
): Transform {
  let n = 0;
  // A trailing CR is held back until the next chunk and is only left over at the very end.
  // split2 reads `skipOverflow` (drop the overlong line, keep going); its typings lack it.
  const options = { maxLength: maxLineChars, skipOverflow: true } as split2.Options;
  return split2(LINE_BREAK, (raw: string) => map(raw.replace(/\r+$/, ""), ++n), options);
}
