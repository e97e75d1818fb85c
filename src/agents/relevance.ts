import { bytesNeedCleaning } from "../capture/clean.js";
import { asBytes } from "../capture/lines.js";
import type { Pinned } from "./tracker.js";
import type { AgentPlugin } from "./types.js";

/**
 * Whether judging a line could change what the tracker holds, from the line's raw bytes (a latin1
 * string) without decoding or parsing it. False only when it certainly could not; `run` and
 * `replay` then skip the line. Stream-json agents repeat the same ID on every line, so after the
 * first few lines nearly all of them are skipped here, for the cost of a few substring searches.
 */
export type Relevance = (bytes: string, pinned: Pinned | undefined) => boolean;

// What cleaning removes (escape sequences, controls) could join the pieces of a field name, and
// a JSON escape (`\u0069d`, `\/`) spells a name or value another way: such lines are judged in full.
function spelledOtherwise(bytes: string): boolean {
  return bytesNeedCleaning(bytes) || bytes.includes("\\u") || bytes.includes("\\/");
}

interface Field {
  /** `"name":` as bytes, the way every JSON writer the agents use puts a key. */
  readonly key: string;
  /** At a key: the separator and a string value without escapes, its content in group 1. */
  readonly plainValue: RegExp;
  /** At a key: the separator and any string value (one with escapes fails `plainValue`). */
  readonly stringValue: RegExp;
}

export function relevance(plugin: AgentPlugin): Relevance {
  // Text rules read every line, and a row may hold the first half of a wrapped ID.
  if (plugin.text.length > 0) return () => true;
  const fields = [...new Set(plugin.json.map((rule) => rule.field.split(".").at(-1) ?? rule.field))].map(field);
  // For each rule that confirms: per `when` path, the allowed values as they appear in the bytes.
  const confirming = plugin.json
    .filter((rule) => rule.state === "confirmed")
    .map((rule) => Object.values(rule.when ?? {}).map((allowed) => allowed.map((value) => asBytes(JSON.stringify(value)))));
  let pinnedId = "";
  let pinnedBytes = "";
  return (bytes, pinned) => {
    // Cleaning never adds a "{", and only a line that is an object is read by JSON rules.
    if (!bytes.includes("{")) return false;
    if (spelledOtherwise(bytes)) return true;
    const values = idValues(bytes, fields);
    if (values === undefined) return true;
    if (values.length === 0) return false;
    if (pinned === undefined) return true;
    if (pinned.id !== pinnedId) [pinnedId, pinnedBytes] = [pinned.id, asBytes(pinned.id)];
    if (values.some((value) => value !== pinnedBytes)) return true;
    // Only the pinned ID is here: it matters only if a rule could now confirm it.
    return pinned.state === "provisional" && confirming.some((when) => when.every((allowed) => allowed.some((value) => bytes.includes(value))));
  };
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
 * Every string value at any of the fields' names, at any depth; undefined when one has escapes
 * (only a parse can tell what it says). A name that is not followed by `:` and a string is a
 * value, part of a text, or a key whose value is no ID: no rule takes an ID from there.
 */
function idValues(bytes: string, fields: readonly Field[]): string[] | undefined {
  const values: string[] = [];
  for (const { key, plainValue, stringValue } of fields) {
    for (let at = bytes.indexOf(key); at !== -1; at = bytes.indexOf(key, at + key.length)) {
      plainValue.lastIndex = at;
      const plain = plainValue.exec(bytes);
      if (plain !== null) {
        values.push(plain[1] ?? "");
        continue;
      }
      stringValue.lastIndex = at;
      if (stringValue.test(bytes)) return undefined;
    }
  }
  return values;
}
