import type { IdState } from "../agents/types.js";

/**
 * The places an ID comes from: a JSON line or a text line of the output, the agent's session
 * store, its session log (OpenCode), its pid file (Claude), the up-front command (Amp's
 * `threads new`) and sessionpin's own choice of a new ID (Gemini's `--session-id`).
 */
export type IdSource = "json-line" | "text-line" | "store" | "session-log" | "pid-file" | "upfront" | "chosen";

/**
 * An ID a source offers, not yet held against the agent's grammar. Every source hands its
 * candidates to `Extractor.offer`, the one way into the tracker: the grammar check (judge), then
 * the tracker.
 */
export interface Candidate {
  readonly source: IdSource;
  /** The plugin rule (or store, log, pid-file rule) that found it. */
  readonly rule: string;
  readonly state: IdState;
  readonly value: string;
  /** The output line it was read from. */
  readonly line?: number;
}

