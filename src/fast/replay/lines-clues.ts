import { asBytes } from "../../engine/capture/lines.js";
import type { Pinned } from "../../engine/tracker.js";
import type { LinesBytes, Needle } from "../skim/byte-scan.js";
import { confirmingValues, fieldNames, mayConfirm, type RelevanceRules } from "./clues.js";

/**
 * clues.ts's question asked of many whole lines at once, by counting needles in their bytes
 * (ByteScan.shape found their shapes plain: no line with "{" has a control byte or starts a
 * wrapped object). False only when every line's answer would be false: each field name there is
 * followed by `:"<pinned ID>"`, no JSON escape is anywhere, and a provisional pin sees none of its
 * confirming rules' values complete. One pass over the whole run for all of them (ByteScan.tally)
 * instead of a few searches per line. The answer: MAY_CHANGE, or whether some line names the pin
 * (NAMES_PIN) or none does (SILENT).
 */
export type LinesRelevance = (lines: LinesBytes, pinned: Pinned | undefined) => LinesVerdict;

export const MAY_CHANGE = 0;
export const NAMES_PIN = 1;
export const SILENT = 2;
export type LinesVerdict = typeof MAY_CHANGE | typeof NAMES_PIN | typeof SILENT;

// A JSON escape could spell a name or the ID another way: only a parse of the line tells.
const ESCAPES: readonly Needle[] = [{ bytes: "\\u", counted: 2 }, { bytes: "\\/", counted: 2 }];

export function linesRelevance({ json, textRules }: RelevanceRules): LinesRelevance {
  if (textRules > 0) return () => MAY_CHANGE;
  const keys = fieldNames(json).map((name) => asBytes(JSON.stringify(name)));
  const values = confirmingValues(json);
  const distinct = [...new Set(values.flat(2))];
  // Each confirming value as the index of its needle, after the keys.
  const confirming = values.map((when) => when.map((allowed) => allowed.map((value) => keys.length + distinct.indexOf(value))));
  let id: string | undefined;
  // What is asked while the pin is `id`: each key followed by `:"<pinned ID>"`, and while it is
  // provisional the confirming values too. Undefined for an ID JSON escapes, which could be written more than
  // one way: only a parse of each line tells what it says.
  let asked: { readonly pinned: readonly Needle[]; readonly provisional: readonly Needle[] } | undefined;
  // The counts of the read in hand, for the one `confirmed` made here rather than on every read.
  let found: ArrayLike<number> = [];
  const confirmed = (index: number): boolean => (found[index] ?? 0) > 0;
  return (lines, pinned) => {
    if (pinned === undefined) return MAY_CHANGE;
    if (pinned.id !== id) {
      id = pinned.id;
      const value = JSON.stringify(pinned.id);
      const named = keys.map((key) => ({ bytes: `${key}:${asBytes(value)}`, counted: key.length }));
      asked = value === `"${pinned.id}"` ? { pinned: named, provisional: [...named, ...distinct.map((bytes) => ({ bytes, counted: bytes.length }))] } : undefined;
    }
    if (asked === undefined) return MAY_CHANGE;
    // A backslash is seldom there, and one byte is found in one cheap pass: the two escapes only then.
    if (lines.includes("\\")) {
      const escaped = lines.tally(ESCAPES);
      if (escaped[0] !== 0 || escaped[1] !== 0) return MAY_CHANGE;
    }
    const provisional = pinned.state === "provisional";
    found = lines.tally(provisional ? asked.provisional : asked.pinned);
    let names = false;
    // A key is followed by `"<pinned ID>"` at each of its places, or its count is -1.
    for (let k = 0; k < keys.length; k++) {
      const places = found[k] ?? -1;
      if (places < 0) return MAY_CHANGE;
      if (places > 0) names = true;
    }
    if (provisional && mayConfirm(confirming, confirmed)) return MAY_CHANGE;
    return names ? NAMES_PIN : SILENT;
  };
}
