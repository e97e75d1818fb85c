import type { Line } from "./capture/line.js";
import type { Extractor } from "./extract.js";
import { judgeLine, type Refusal as RuleRefusal, type Verdict } from "./match.js";
import type { PinEvent } from "./tracker.js";
import type { AgentPlugin } from "../agents/types.js";
import { stringsIn, type WalkLimits } from "./walk.js";

/** Why a line gave no ID: the outcomes `explain` shows and `run --trace` writes. */
export type Refusal =
  | "grammar mismatch"
  | "not a string"
  | "rule cut off"
  | "look-alike field"
  | "superseded by a later ID"
  | "wrong agent"
  | "line too long"
  | "invalid JSON"
  /** A recording's line that is no event, or whose time cannot be read (`[1e400,"o",…]`). */
  | "bad recording event";

/** One line a rule looked at, and what came of it. */
export interface TraceEvent {
  readonly line: number;
  readonly offset?: number;
  /** Seconds into the recording, when the input has times. */
  readonly time?: number;
  readonly text: string;
  readonly plugin: string;
  readonly rule: string;
  readonly outcome: "taken" | "refused";
  readonly state?: "provisional" | "confirmed";
  /** The ID taken, or the value refused. */
  readonly value?: string;
  readonly reason?: Refusal;
  readonly detail?: string;
}

const SHOWN_CHARS = 160;
// Look-alikes sit near the top of a line: a bounded look, whatever the line holds.
const LOOKALIKE_WALK: WalkLimits = { depth: 6, values: 10_000 };
// Only ID-ish fields count as look-alikes: a loose grammar (Goose's names) fits any word.
const ID_FIELD = /(id|uuid|session|thread)$/i;

/**
 * The extractor plus an account of every decision, for `explain` and `run --trace`. `others`
 * are the plugins not chosen: an ID one of them would take is reported as "wrong agent".
 */
export class Explainer {
  readonly #lookalike: RegExp;

  /** With `tracing` false only the extractor's work is done (the hot path of `run`). */
  constructor(
    readonly extractor: Extractor,
    private readonly others: readonly AgentPlugin[] = [],
    private readonly tracing = true,
  ) {
    const { grammar } = extractor.plugin;
    this.#lookalike = new RegExp(grammar.source, grammar.flags);
  }

  line(line: Line, time?: number): { verdicts: Verdict[]; events: PinEvent[]; trace: TraceEvent[] } {
    const { verdicts, events } = this.extractor.line(line);
    if (!this.tracing) return { verdicts, events, trace: [] };
    const plugin = this.extractor.plugin;
    const at = { line: line.n, ...(line.offset !== undefined ? { offset: line.offset } : {}), ...(time !== undefined ? { time } : {}), text: shorten(line.text) };
    const trace: TraceEvent[] = verdicts.map((verdict) => ({ ...at, plugin: plugin.name, ...fromVerdict(verdict) }));
    if (line.cut) trace.push({ ...at, plugin: "*", rule: "capture", outcome: "refused", reason: "line too long", detail: "cut at the capture limit; not parsed" });
    else if (line.json === undefined && line.text.trimStart().startsWith("{")) {
      trace.push({ ...at, plugin: "*", rule: "capture", outcome: "refused", reason: "invalid JSON", detail: "starts like a JSON object but does not parse" });
    }
    if (line.json !== undefined && !verdicts.some((v) => v.kind === "taken")) {
      for (const [path, value] of stringsIn(line.json, LOOKALIKE_WALK)) {
        if (ID_FIELD.test(path) && this.#lookalike.test(value)) trace.push({ ...at, plugin: plugin.name, rule: path, outcome: "refused", value, reason: "look-alike field", detail: `no ${plugin.name} rule reads ${path} on this line` });
      }
    }
    for (const other of this.others) {
      for (const verdict of judgeLine(other, line)) {
        if (verdict.kind === "taken") trace.push({ ...at, plugin: other.name, rule: verdict.rule, outcome: "refused", value: verdict.id, reason: "wrong agent", detail: `the agent is ${plugin.name}` });
      }
    }
    for (const event of events) {
      if (event.kind !== "changed") continue;
      const { previous } = event;
      trace.push({
        line: previous.line ?? line.n, text: "", plugin: plugin.name, rule: previous.rule, outcome: "refused", value: previous.id,
        reason: "superseded by a later ID", detail: `${event.pinned.id} on line ${line.n}`,
      });
    }
    return { verdicts, events, trace };
  }
}

const REFUSALS: Readonly<Record<RuleRefusal, Refusal>> = { grammar: "grammar mismatch", "not-a-string": "not a string", "cut-off": "rule cut off" };

/** A verdict as the outcome part of a trace event. */
export function fromVerdict(verdict: Verdict): Pick<TraceEvent, "rule" | "outcome" | "state" | "value" | "reason"> {
  return verdict.kind === "taken"
    ? { rule: verdict.rule, outcome: "taken", state: verdict.state, value: verdict.id }
    : { rule: verdict.rule, outcome: "refused", value: verdict.value, reason: REFUSALS[verdict.reason] };
}

function shorten(text: string): string {
  return text.length <= SHOWN_CHARS ? text : `${text.slice(0, SHOWN_CHARS - 1)}…`;
}
