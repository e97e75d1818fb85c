import type { TraceEvent } from "../engine/trace.js";
import { forTerminal } from "./escape.js";

const BOLD = "\x1b[1m";
const GREEN = "\x1b[32m";
const YELLOW = "\x1b[33m";
const INVERSE = "\x1b[7m";
const RESET = "\x1b[0m";

/**
 * One trace event as a line for people: where, which rule, the outcome, then the cleaned line
 * with the ID (or the refused value) highlighted.
 *
 *   L12 b3456 2.35s  taken    amp/system-init    provisional  T-019c…  │ {"type":"system",…
 *   L15 b3890        refused  amp/result         grammar mismatch "T-ABC"  │ {"type":"result",…
 */
export function formatTrace(event: TraceEvent, color: boolean): string {
  const paint = (code: string, text: string): string => (color ? `${code}${text}${RESET}` : text);
  const where = [`L${event.line}`, event.offset !== undefined ? `b${event.offset}` : "", event.time !== undefined ? `${event.time.toFixed(2)}s` : ""]
    .filter(Boolean)
    .join(" ");
  // Everything but the paint comes from the recording: escaped as every name sessionpin prints is.
  const rule = forTerminal(`${event.plugin}/${event.rule}`);
  const value = event.value === undefined ? undefined : forTerminal(event.value);
  const outcome = event.outcome === "taken"
    ? `${paint(GREEN, "taken")}    ${rule.padEnd(24)} ${event.state ?? ""}  ${paint(BOLD, value ?? "")}`
    : `${paint(YELLOW, "refused")}  ${rule.padEnd(24)} ${event.reason ?? ""}${event.value !== undefined ? ` ${forTerminal(JSON.stringify(event.value))}` : ""}${event.detail ? ` (${forTerminal(event.detail)})` : ""}`;
  const shown = forTerminal(event.text);
  const text = value && color ? shown.split(value).join(paint(INVERSE, value)) : shown;
  return `${where.padEnd(18)} ${outcome}${text ? `  │ ${text}` : ""}`;
}
