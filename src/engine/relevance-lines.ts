import { asBytes } from "./capture/lines.js";
import type { LinesBytes } from "./capture/pipeline.js";
import { confirmingValues, fieldNames, mayConfirm, type RelevanceRules } from "./relevance.js";
import type { Pinned } from "./tracker.js";

/**
 * relevance.ts's question asked of many whole lines at once, by counting needles in their bytes
 * (skim.ts found their shapes plain: no line with "{" has a control byte or starts a wrapped
 * object). False only when every line's answer would be false: each field name there is followed
 * by `:"<pinned ID>"`, no JSON escape is anywhere, and a provisional pin sees none of its
 * confirming rules' values complete. A few counts over the whole run instead of a few searches per
 * line. The answer: MAY_CHANGE, or whether some line names the pin (NAMES_PIN) or none does (SILENT).
 */
export type LinesRelevance = (lines: LinesBytes, pinned: Pinned | undefined) => LinesVerdict;

export const MAY_CHANGE = 0;
export const NAMES_PIN = 1;
export const SILENT = 2;
export type LinesVerdict = typeof MAY_CHANGE | typeof NAMES_PIN | typeof SILENT;

export function linesRelevance({ json, textRules }: RelevanceRules): LinesRelevance {
  if (textRules > 0) return () => MAY_CHANGE;
  const keys = fieldNames(json).map((name) => asBytes(JSON.stringify(name)));
  const confirming = confirmingValues(json);
  let id: string | undefined;
  // Undefined for an ID JSON escapes, which could be written more than one way: only a parse of
  // each line tells what it says.
  let named: Array<{ key: string; pinned: string }> | undefined;
  return (lines, pinned) => {
    if (pinned === undefined) return MAY_CHANGE;
    if (pinned.id !== id) {
      id = pinned.id;
      const value = JSON.stringify(pinned.id);
      named = value === `"${pinned.id}"` ? keys.map((key) => ({ key, pinned: `${key}:${asBytes(value)}` })) : undefined;
    }
    if (named === undefined) return MAY_CHANGE;
    // A backslash is seldom there, and one byte is found by `memchr`: the two escapes only then.
    if (lines.includes("\\") && (lines.includes("\\u") || lines.includes("\\/"))) return MAY_CHANGE;
    let names = false;
    for (const { key, pinned: expected } of named) {
      // Each place `"<pinned ID>"` follows the key is a place of the key: every one of them is
      // followed by it when the counts are equal.
      const places = lines.count(key);
      if (places === 0) continue;
      if (lines.count(expected) !== places) return MAY_CHANGE;
      names = true;
    }
    if (pinned.state === "provisional" && mayConfirm(confirming, (value) => lines.includes(value))) return MAY_CHANGE;
    return names ? NAMES_PIN : SILENT;
  };
}
