import { valueAt } from "../json.js";
import type { Line } from "./capture/line.js";
import { withinBudget } from "./budget.js";
import { preview } from "./walk.js";
import type { Candidate } from "./source.js";
import type { AgentPlugin, IdState, JsonRule, TextRule } from "../agents/types.js";

/** Why a rule that looked at a line took nothing from it. */
export type Refusal = "grammar" | "not-a-string" | "cut-off";

export type Verdict =
  | { readonly kind: "taken"; readonly rule: string; readonly id: string; readonly state: IdState }
  | { readonly kind: "refused"; readonly rule: string; readonly reason: Refusal; readonly value: string };

/** A field that cannot hold an ID, refused before there is a candidate to offer. */
export type NotAString = Extract<Verdict, { kind: "refused" }> & { readonly reason: "not-a-string" };

/** A plugin file's text rule that ran out of its time budget on this line (src/engine/budget.ts). */
export type CutOff = Extract<Verdict, { kind: "refused" }> & { readonly reason: "cut-off" };

/** What a rule found on a line: an ID to offer, a field that cannot be one, or the rule cut off. */
export type Finding = Candidate | NotAString | CutOff;

/**
 * What every rule of `plugin` makes of one line, judged: the candidates it finds, each through
 * the one grammar check.
 */
export function judgeLine(plugin: AgentPlugin, line: Line, before?: RowBefore): Verdict[] {
  return findOnLine(plugin, line, before).map((found) => ("source" in found ? judge(plugin.grammar, found) : found));
}

/**
 * What every rule of `plugin` finds on one line, not yet judged. JSON lines are read by field
 * only and text rules never see them: message text inside a JSON line is full of look-alike IDs.
 */
export function findOnLine(plugin: AgentPlugin, line: Line, before?: RowBefore): Finding[] {
  if (line.json !== undefined) {
    // A loop, not flatMap: this runs on every JSON line of `run`'s output.
    const found: Finding[] = [];
    for (const rule of plugin.json) {
      const finding = findField(rule, line.json, line.n);
      if (finding !== undefined) found.push(finding);
    }
    return found;
  }
  // Unframing both rows is work only text rules need.
  if (plugin.text.length === 0) return [];
  const rows = before === undefined ? undefined : { head: unframe(before.text), fullRow: before.fullRow, text: unframe(line.text) };
  return plugin.text.flatMap((rule): Finding[] => {
    const { found, cutOff } = withinBudget(rule.pattern, line.text.length, () => [
      ...findText(rule, line.text, line.n),
      ...(rows === undefined ? [] : findAcross(plugin.grammar, rule, rows, line.n)),
    ]);
    return cutOff === undefined ? found : [...found, { kind: "refused", rule: rule.name, reason: "cut-off", value: cutOff }];
  });
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
function findAcross(grammar: RegExp, rule: TextRule, rows: Rows, n: number): Candidate[] {
  const across = (separator: string, wholeWord: boolean): Candidate[] => {
    const head = rows.head + separator;
    const joined = head + rows.text;
    return findText(rule, joined, n, (start, end) =>
      start < head.length && end > head.length && (!wholeWord || end === joined.length || /\s/.test(joined[end] ?? "")));
  };
  // Which way of joining is right depends on what the grammar takes: the same check the
  // candidates meet again when they are offered.
  const takes = (found: readonly Candidate[]): boolean => found.some((candidate) => judge(grammar, candidate).kind === "taken");
  // A full row broke inside a word; a shorter one between words. TUIs also wrap at a width of
  // their own (Claude 2.1.330's /status splits the UUID at 65 of 67 columns), so a shorter row is
  // also joined without a space, but then the ID must end where the next row's first word ends:
  // an ID one short plus the start of an unrelated row must not make a look-alike.
  const spaced = across(rows.fullRow ? "" : " ", false);
  if (rows.fullRow || takes(spaced)) return spaced;
  const glued = across("", true);
  return takes(glued) ? glued : spaced;
}

function findField(rule: JsonRule, json: Readonly<Record<string, unknown>>, n: number): Finding | undefined {
  for (const path in rule.when) {
    const value = valueAt(json, path);
    if (typeof value !== "string" || !rule.when[path]?.includes(value)) return undefined;
  }
  const value = valueAt(json, rule.field);
  if (value === undefined || value === null) return undefined;
  if (typeof value !== "string") {
    // Shown, never stringified whole: the value may be nested thousands deep (walk.ts).
    return { kind: "refused", rule: rule.name, reason: "not-a-string", value: preview(value) };
  }
  return { source: "json-line", rule: rule.name, state: rule.state, value, line: n };
}

function findText(
  rule: TextRule,
  text: string,
  n: number,
  keep: (start: number, end: number) => boolean = () => true,
): Candidate[] {
  const pattern = globalOf(rule.pattern);
  const found: Candidate[] = [];
  pattern.lastIndex = 0;
  for (let match = pattern.exec(text); match !== null; match = pattern.exec(text)) {
    if (match[0] === "") pattern.lastIndex++;
    const value = match.groups?.["id"];
    if (value !== undefined && keep(match.index, match.index + match[0].length)) found.push({ source: "text-line", rule: rule.name, state: rule.state, value, line: n });
  }
  return found;
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
 * session log, the pid file, the up-front command or sessionpin's own choice. A value outside
 * the agent's grammar is refused, whatever brought it.
 */
export function judge(grammar: RegExp, candidate: Pick<Candidate, "rule" | "state" | "value">): Verdict {
  const { rule, state, value } = candidate;
  return fitsGrammar(grammar, value)
    ? { kind: "taken", rule, id: value, state }
    : { kind: "refused", rule, reason: "grammar", value };
}

// Whatever a grammar allows: a value an argument parser would read as an option (a leading "-"),
// one that would split a log line (CR, LF) or that no argv can hold (NUL) is never an ID. A user
// plugin with a loose grammar ("[^ ]+") and a resume template of ["{args}", "{id}"] must not put
// `--dangerously-allow-all` into the agent's argv from a forged pointer or a line of output.
// Nor is nothing: a grammar that allows "" ("x*") would pin an ID the pointer's schema refuses.
const NEVER_AN_ID = /^$|^-|[\0\n\r]/;
// Nor is a value longer than any agent's IDs (38 characters at most among the agents known): a
// grammar of "[a-z]+" took a whole megabyte-long line, and the pointer, 51 IDs deep with its
// history, could no longer be read.
export const MAX_ID_LENGTH = 1024;

/** Whether `value` is a whole ID of `grammar`: the test every ID meets before it is pinned or resumed. */
export function fitsGrammar(grammar: RegExp, value: string): boolean {
  return value.length <= MAX_ID_LENGTH && !NEVER_AN_ID.test(value) && grammar.test(value);
}

/** `judge` by its parts, for callers that hold no candidate. */
export function judgeId(grammar: RegExp, rule: string, state: IdState, value: string): Verdict {
  return judge(grammar, { rule, state, value });
}

/** Whether any of `patterns` occurs in `text`. */
export function matchesAny(patterns: readonly RegExp[], text: string): boolean {
  return patterns.some((pattern) => pattern.test(text));
}
