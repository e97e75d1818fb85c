/**
 * Text from files and processes as a terminal may be given it: what would act instead of showing
 * (escape sequences, other controls) or would show what is not there (bidirectional overrides,
 * zero-width and other invisible format characters) is written as an escape. A pointer holding
 * `\x1b]0;…\x07` once retitled the terminal of whoever ran `pointer show`, and a right-to-left
 * override turned an ID around in `sessions`. A backslash is left as it is: `explain` shows
 * values JSON-quoted, whose backslashes would double.
 */
// C0 and C1 controls, DEL; the Arabic letter mark, zero-width and direction marks, line and
// paragraph separators, embeddings and overrides, invisible operators and isolates, the BOM;
// and a lone UTF-16 half (a key's bytes that were no UTF-8, see src/bytes.ts).
const UNSAFE = /[\x00-\x1f\x7f-\x9f\u061c\u180e\u200b-\u200f\u2028-\u202e\u2060-\u206f\ufeff\ufff9-\ufffb]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

const NAMED: Readonly<Record<string, string>> = { "\n": "\\n", "\r": "\\r", "\t": "\\t" };

export function forTerminal(text: string): string {
  return text.replace(UNSAFE, (ch) => {
    const named = NAMED[ch];
    if (named !== undefined) return named;
    const unit = ch.charCodeAt(0);
    // A byte that was no UTF-8, kept as U+DC80-U+DCFF: shown as the byte it was.
    if (unit >= 0xdc80 && unit <= 0xdcff) return `\\x${(unit - 0xdc00).toString(16).padStart(2, "0")}`;
    return unit <= 0xff ? `\\x${unit.toString(16).padStart(2, "0")}` : `\\u{${unit.toString(16)}}`;
  });
}

// What JSON.stringify leaves as it is and a terminal would still act on or hide: DEL, C1, bidi
// and invisible format characters, lone surrogate halves (JSON.stringify escapes the last itself).
const UNSAFE_IN_JSON = /[\x7f-\x9f\u061c\u180e\u200b-\u200f\u2028-\u202e\u2060-\u206f\ufeff\ufff9-\ufffb]/g;

/** `JSON.stringify(value)` for a terminal: the same JSON to a parser, those characters as \uXXXX. */
export function jsonForTerminal(value: unknown): string {
  return JSON.stringify(value).replace(UNSAFE_IN_JSON, (ch) => `\\u${ch.charCodeAt(0).toString(16).padStart(4, "0")}`);
}
