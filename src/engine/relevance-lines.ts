import { asBytes } from "./capture/lines.js";
import { confirmingValues, fieldNames, mayConfirm, type RelevanceRules } from "./relevance.js";
import type { Pinned } from "./tracker.js";

/**
 * relevance.ts's question asked of many whole lines at once (their bytes as one latin1 string;
 * skim.ts found their shapes plain: no line with "{" has a control byte or starts a wrapped
 * object). False only when every line's answer would be false: each field name there is followed
 * by `:"<pinned ID>"`, no JSON escape is anywhere, and a provisional pin sees none of its
 * confirming rules' values complete. A few searches over the whole string instead of a few per line.
 * `holds(value)`: whether the lines hold a confirming value (ControlScan.includes over their
 * bytes). The answer: MAY_CHANGE, or whether some line names the pin (NAMES_PIN) or none does (SILENT).
 */
export type LinesRelevance = (lines: string, pinned: Pinned | undefined, holds: (value: string) => boolean) => LinesVerdict;

export const MAY_CHANGE = 0;
export const NAMES_PIN = 1;
export const SILENT = 2;
export type LinesVerdict = typeof MAY_CHANGE | typeof NAMES_PIN | typeof SILENT;

export function linesRelevance({ json, textRules }: RelevanceRules): LinesRelevance {
  if (textRules > 0) return () => MAY_CHANGE;
  const keys = fieldNames(json).map((name) => new Needle(asBytes(JSON.stringify(name))));
  const confirming = confirmingValues(json);
  let id: string | undefined;
  // Undefined for an ID JSON escapes, which could be written more than one way: only a parse of
  // each line tells what it says.
  let named: Array<{ key: Needle; pinned: string }> | undefined;
  return (lines, pinned, holds) => {
    if (pinned === undefined) return MAY_CHANGE;
    if (pinned.id !== id) {
      id = pinned.id;
      const value = JSON.stringify(pinned.id);
      named = value === `"${pinned.id}"` ? keys.map((key) => ({ key, pinned: `${key.text}:${asBytes(value)}` })) : undefined;
    }
    if (named === undefined) return MAY_CHANGE;
    if (lines.includes("\\u") || lines.includes("\\/")) return MAY_CHANGE;
    let names = false;
    for (const { key, pinned: expected } of named) {
      for (let at = key.find(lines, 0); at !== -1; at = key.find(lines, at + key.text.length)) {
        if (!sliceIs(lines, at, expected)) return MAY_CHANGE;
        names = true;
      }
    }
    if (pinned.state === "provisional" && mayConfirm(confirming, holds)) return MAY_CHANGE;
    return names ? NAMES_PIN : SILENT;
  };
}

// A slice and === measured 2x faster here than startsWith with a position, or a loop of charCodeAt.
const sliceIs = (text: string, at: number, expected: string): boolean => at >= 0 && text.slice(at, at + expected.length) === expected;

// Characters of agent output from most to least common (English text, JSON's punctuation): a
// search runs fastest from the least common one in what it looks for, which it stops at least.
const COMMON = ` "etaoinsrhldcu:,mfpgwybvk.{}[]`;
const rank = (code: number): number => {
  const at = COMMON.indexOf(String.fromCharCode(code));
  return at === -1 ? COMMON.length : at;
};

/**
 * A field name searched for by its tail from its least common character: `"session_id"` by
 * `_id"`. JavaScript's search stops at each place the first character it looks for occurs; `"` is
 * on every few bytes of JSON, `_` seldom. A value of common letters only (`"result"`, by `ult"`:
 * every "u" of the text) costs more this way than `holds` does.
 */
class Needle {
  readonly #anchor: string;
  readonly #offset: number;

  constructor(readonly text: string) {
    let best = 0;
    for (let i = 1; i < text.length; i++) if (rank(text.charCodeAt(i)) > rank(text.charCodeAt(best))) best = i;
    this.#offset = best;
    this.#anchor = text.slice(best);
  }

  /** The first occurrence at or after `from`, or -1. */
  find(haystack: string, from: number): number {
    for (let at = haystack.indexOf(this.#anchor, from + this.#offset); at !== -1; at = haystack.indexOf(this.#anchor, at + 1)) {
      if (sliceIs(haystack, at - this.#offset, this.text)) return at - this.#offset;
    }
    return -1;
  }
}
