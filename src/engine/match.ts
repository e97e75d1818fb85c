import { valueAt } from "./capture/json.js";
import type { Line } from "./capture/line.js";
import type { AgentPlugin, IdState, JsonRule, TextRule } from "../agents/types.js";

/** Why a rule that looked at a line took nothing from it. */
export type Refusal = "grammar" | "not-a-string";

export type Verdict =
  | { readonly kind: "taken"; readonly rule: string; readonly id: string; readonly state: IdState }
  | { readonly kind: "refused"; readonly rule: string; readonly reason: Refusal; readonly value: string };

/**
 * What every rule of `plugin` makes of one line. JSON lines are judged by field only and text
 * rules never see them: message text inside a JSON line is full of look-alike IDs.
 */
export function judgeLine(plugin: AgentPlugin, line: Line, before?: RowBefore): Verdict[] {
  if (line.json !== undefined) {
    const json = line.json;
    return plugin.json.flatMap((rule) => judgeField(plugin.grammar, rule, json));
  }
  // Unframing both rows is work only text rules need.
  if (plugin.text.length === 0) return [];
  const rows = before === undefined ? undefined : { head: unframe(before.text), fullRow: before.fullRow, text: unframe(line.text) };
  return plugin.text.flatMap((rule) => [
    ...judgeText(plugin.grammar, rule, line.text),
    ...(rows === undefined ? [] : judgeAcross(plugin.grammar, rule, rows)),
  ]);
}

/** The text line before this one, which a terminal may have wrapped into it. */
export interface RowBefore {
  readonly text: string;
  /** It filled the row: the break fell inside a word (no space between the halves). */
  readonly fullRow: boolean;
}

// Box borders stand at both ends of a row (Gemini's exit box) and are not part of the text.
const FRAME = /^[\s│┃║|]+|[\s│┃║|]+$/g;

function unframe(text: string): string {
  return text.replace(FRAME, "");
}

/** Two rows without their frames, the first of them possibly wrapped into the second. */
interface Rows {
  readonly head: string;
  readonly fullRow: boolean;
  readonly text: string;
}

/**
 * Matches that start in the row before and end in this one: agentapi runs agents at 67 columns,
 * so `To continue this session, run codex resume <uuid>` arrives in two rows. Matches within
 * either row alone are left to that row.
 */
function judgeAcross(grammar: RegExp, rule: TextRule, rows: Rows): Verdict[] {
  const across = (separator: string, wholeWord: boolean): Verdict[] => {
    const head = rows.head + separator;
    const joined = head + rows.text;
    return judgeText(grammar, rule, joined, (start, end) =>
      start < head.length && end > head.length && (!wholeWord || end === joined.length || /\s/.test(joined[end] ?? "")));
  };
  // A full row broke inside a word; a shorter one between words. TUIs also wrap at a width of
  // their own (Claude 2.1.330's /status splits the UUID at 65 of 67 columns), so a shorter row is
  // also joined without a space, but then the ID must end where the next row's first word ends:
  // an ID one short plus the start of an unrelated row must not make a look-alike.
  const verdicts = across(rows.fullRow ? "" : " ", false);
  if (rows.fullRow || verdicts.some((verdict) => verdict.kind === "taken")) return verdicts;
  const glued = across("", true);
  return glued.some((verdict) => verdict.kind === "taken") ? glued : verdicts;
}

function judgeField(
  grammar: RegExp,
  rule: JsonRule,
  json: Readonly<Record<string, unknown>>,
): Verdict[] {
  const applies = Object.entries(rule.when ?? {}).every(([path, allowed]) => {
    const value = valueAt(json, path);
    return typeof value === "string" && allowed.includes(value);
  });
  if (!applies) return [];
  const value = valueAt(json, rule.field);
  if (value === undefined || value === null) return [];
  if (typeof value !== "string") {
    return [{ kind: "refused", rule: rule.name, reason: "not-a-string", value: JSON.stringify(value) }];
  }
  return [judgeId(grammar, rule.name, rule.state, value)];
}

function judgeText(
  grammar: RegExp,
  rule: TextRule,
  text: string,
  keep: (start: number, end: number) => boolean = () => true,
): Verdict[] {
  const pattern = globalOf(rule.pattern);
  const verdicts: Verdict[] = [];
  pattern.lastIndex = 0;
  for (let match = pattern.exec(text); match !== null; match = pattern.exec(text)) {
    if (match[0] === "") pattern.lastIndex++;
    const value = match.groups?.["id"];
    if (value !== undefined && keep(match.index, match.index + match[0].length)) verdicts.push(judgeId(grammar, rule.name, rule.state, value));
  }
  return verdicts;
}

// Finding every match needs a global regex; rules are written without the flag, and making one
// per line was a third of the time spent on text lines.
const GLOBAL = new WeakMap<RegExp, RegExp>();

function globalOf(pattern: RegExp): RegExp {
  let global = GLOBAL.get(pattern);
  if (global === undefined) {
    global = new RegExp(pattern.source, pattern.flags.replace("g", "") + "g");
    GLOBAL.set(pattern, global);
  }
  return global;
}

/**
 * The one grammar check, for an ID from any source: a line of output, the session store, the
 * pid file, the up-front command or sessionpin's own choice. A value outside the agent's
 * grammar is refused, whatever brought it.
 */
export function judgeId(grammar: RegExp, rule: string, state: IdState, value: string): Verdict {
  return grammar.test(value)
    ? { kind: "taken", rule, id: value, state }
    : { kind: "refused", rule, reason: "grammar", value };
}

/** Whether any of `patterns` occurs in `text`. */
export function matchesAny(patterns: readonly RegExp[], text: string): boolean {
  return patterns.some((pattern) => pattern.test(text));
}
