import { mayStartWrapped } from "../../engine/capture/rejoin.js";
import { asBytes } from "../../engine/capture/lines.js";
import type { Pinned } from "../../engine/tracker.js";
import type { AgentPlugin } from "../../agents/types.js";

/**
 * Whether judging a line could change what the tracker holds, asked of the line's raw bytes (a
 * latin1 string) without decoding or parsing it: false only when it certainly could not. Stream-json
 * agents repeat the same ID on every line, so after the first few lines nearly all of them are
 * passed over for the cost of a few substring searches. Free of state but the pin, so a worker
 * thread can ask it of lines the main thread reaches later (blocks.ts).
 */

// The bytes cleaning acts on (src/engine/capture/clean.ts), in raw UTF-8 (a latin1 string), where a
// C1 control is \xc2 and 80-9f. The first test is one character class, the fastest search there
// is; \xc2 leads a C1 control only when the next byte is 80-9f, which the second test checks.
const MAYBE_CONTROL_BYTES = /[^\t\x20-\x7e\x80-\xc1\xc3-\xff]/;
const CONTROL_BYTES = /[\x00-\x08\x0b-\x1f\x7f]|\xc2[\x80-\x9f]/;

// What cleaning removes (escape sequences, controls) could join the pieces of a field name, and
// a JSON escape (`\u0069d`, `\/`) spells a name or value another way: such lines are judged in full.
function spelledOtherwise(bytes: string): boolean {
  return (MAYBE_CONTROL_BYTES.test(bytes) && CONTROL_BYTES.test(bytes)) || bytes.includes("\\u") || bytes.includes("\\/");
}

interface Field {
  /** `"name":` as bytes, the way every JSON writer the agents use puts a key. */
  readonly key: string;
  /** At a key: the separator and a string value without escapes, its content in group 1. */
  readonly plainValue: RegExp;
  /** At a key: the separator and any string value (one with escapes fails `plainValue`). */
  readonly stringValue: RegExp;
}

/** No pin could change by judging the line. */
export const IRRELEVANT = 0;
/** The line must be judged whatever is pinned. */
export const JUDGE = 1;
/**
 * What a line's bytes say before the pin is asked: IRRELEVANT, JUDGE, or the one ID value (as
 * bytes) the line names, which matters only against the pin. Free of state, so a worker thread can
 * work it out for lines the main thread reaches later.
 */
export type Clue = typeof IRRELEVANT | typeof JUDGE | string;

/** The two state-free questions a plugin's JSON rules ask of a line's bytes. */
export interface LineClues {
  clue(bytes: string): Clue;
  /** Whether every condition of some confirming rule appears in the bytes (asked only of a value line). */
  confirms(bytes: string): boolean;
}

/** The parts of a plugin relevance reads: plain data, so it can be sent to a worker thread. */
export type RelevanceRules = Pick<AgentPlugin, "json"> & { readonly textRules: number };

export const relevanceRules = (plugin: AgentPlugin): RelevanceRules => ({ json: plugin.json, textRules: plugin.text.length });

export function lineClues({ json, textRules }: RelevanceRules): LineClues {
  // Text rules read every line, and a row may hold the first half of a wrapped ID.
  if (textRules > 0) return { clue: () => JUDGE, confirms: () => true };
  const fields = fieldNames(json).map(field);
  const confirming = confirmingValues(json);
  return {
    clue(bytes) {
      // Cleaning never adds a "{", and only a line that is an object is read by JSON rules.
      if (!bytes.includes("{")) return IRRELEVANT;
      // The first row of a JSON line a screen snapshot wrapped: its fields are on the next rows.
      if (mayStartWrapped(bytes)) return JUDGE;
      if (spelledOtherwise(bytes)) return JUDGE;
      return idValue(bytes, fields);
    },
    confirms: (bytes) => mayConfirm(confirming, (value) => bytes.includes(value)),
  };
}

/** The last segment of each rule's field path: the key names a line is searched for, at any depth. */
export const fieldNames = (json: AgentPlugin["json"]): string[] => [...new Set(json.map((rule) => rule.field.split(".").at(-1) ?? rule.field))];

/** For each rule that confirms: per `when` path, the allowed values as they appear in the bytes. */
export const confirmingValues = (json: AgentPlugin["json"]): string[][][] => json
  .filter((rule) => rule.state === "confirmed")
  .map((rule) => Object.values(rule.when ?? {}).map((allowed) => allowed.map((value) => asBytes(JSON.stringify(value)))));

/**
 * Whether some confirming rule has, for every one of its conditions, an allowed value that `found`
 * finds. Loops, not `some`/`every`: the skim asks this of every read while a pin is provisional,
 * and the callbacks those take were made anew on each call.
 */
export function mayConfirm<T>(confirming: readonly T[][][], found: (value: T) => boolean): boolean {
  rules: for (const when of confirming) {
    for (const allowed of when) if (!allowed.some(found)) continue rules;
    return true;
  }
  return false;
}

/** The half of relevance that asks the pin: whether a line naming only `value` could change it. */
export class PinCheck {
  #id = "";
  #bytes = "";

  /** True or false, or undefined when only a confirming rule could change it (see `confirms`). */
  matters(value: string, pinned: Pinned | undefined): boolean | undefined {
    if (pinned === undefined) return true;
    if (pinned.id !== this.#id) [this.#id, this.#bytes] = [pinned.id, asBytes(pinned.id)];
    if (value !== this.#bytes) return true;
    return pinned.state === "provisional" ? undefined : false;
  }
}

function field(name: string): Field {
  const key = asBytes(JSON.stringify(name));
  const escaped = key.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  return {
    key,
    plainValue: new RegExp(`${escaped}\\s*:\\s*"([^"\\\\]*)"`, "y"),
    stringValue: new RegExp(`${escaped}\\s*:\\s*"`, "y"),
  };
}

/**
 * The one string value at any of the fields' names, at any depth: IRRELEVANT when there is none,
 * JUDGE when there are different ones (one of them differs from any pin) or one has escapes (only
 * a parse can tell what it says). A name that is not followed by `:` and a string is a value, part
 * of a text, or a key whose value is no ID: no rule takes an ID from there.
 */
function idValue(bytes: string, fields: readonly Field[]): Clue {
  let found: string | undefined;
  for (const { key, plainValue, stringValue } of fields) {
    for (let at = bytes.indexOf(key); at !== -1; at = bytes.indexOf(key, at + key.length)) {
      plainValue.lastIndex = at;
      const plain = plainValue.exec(bytes);
      if (plain !== null) {
        const value = plain[1] ?? "";
        if (found !== undefined && value !== found) return JUDGE;
        found = value;
        continue;
      }
      stringValue.lastIndex = at;
      if (stringValue.test(bytes)) return JUDGE;
    }
  }
  return found ?? IRRELEVANT;
}
