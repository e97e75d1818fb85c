import { isAbsolute } from "node:path";
import { SHA256_HEX } from "../digest.js";
import { FIRST_LINE, MIN_NAME_CHARS, POINTER_STATES } from "./bounds.js";
import type { Pointer } from "./schema.js";
import { POINTER_VERSION } from "./version.js";

/**
 * A pointer's check in plain code, for the two places zod would cost most: the pointer about to
 * be written (the first zod parse of a run cost 3-11 ms on a busy machine, the module load before
 * it up to 90 ms, right between the agent's ID line and the fsync), and the pointer a warm start
 * reads before the agent can start. Sound, not complete: `true` only for what PointerSchema
 * accepts too; a `false` sends the caller to the schema for the verdict and its wording. Its
 * bounds are the schema's (bounds.ts); test/pointer/check.test.ts generates, from the schema
 * itself, a pointer at each side of every bound of every field and holds the two to one verdict.
 */
export function surelyValid(value: unknown): value is Pointer {
  if (!record(value)) return false;
  const p = value as Partial<Record<keyof Pointer, unknown>>;
  return p.version === POINTER_VERSION && nonEmpty(p.agent) && nonEmpty(p.id) &&
    (POINTER_STATES as readonly unknown[]).includes(p.state) &&
    typeof p.cwd === "string" && isAbsolute(p.cwd) &&
    isoTime(p.capturedAt) && optional(p.confirmedAt, isoTime) && isSource(p.source) &&
    optional(p.key, nonEmpty) && optional(p.messages, (m) => everyItem(m, isMessage)) &&
    optional(p.lastRunAt, isoTime) && everyItem(p.history, isHistoryEntry);
}

/**
 * The pointer as PointerSchema's parse would hand it back: its fields in the schema's order,
 * unknown fields dropped, at every level. For a pointer `surelyValid` accepted.
 */
export function normalized(p: Pointer): Pointer {
  return {
    version: p.version, agent: p.agent, id: p.id, state: p.state, cwd: p.cwd, capturedAt: p.capturedAt,
    ...(p.confirmedAt === undefined ? {} : { confirmedAt: p.confirmedAt }),
    source: p.source.line === undefined ? { rule: p.source.rule } : { rule: p.source.rule, line: p.source.line },
    ...(p.key === undefined ? {} : { key: p.key }),
    ...(p.messages === undefined ? {} : { messages: p.messages.map((m) => ({ sha256: m.sha256, at: m.at })) }),
    ...(p.lastRunAt === undefined ? {} : { lastRunAt: p.lastRunAt }),
    history: p.history.map((h) => ({ id: h.id, at: h.at, reason: h.reason })),
  };
}

const nonEmpty = (v: unknown): boolean => typeof v === "string" && v.length >= MIN_NAME_CHARS;
const optional = (v: unknown, test: (v: unknown) => boolean): boolean => v === undefined || test(v);
const record = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);
const everyItem = (v: unknown, test: (item: unknown) => boolean): boolean => Array.isArray(v) && v.every(test);

// Only what `Date#toISOString` writes (a hand-edited time with an offset is left to the schema),
// and only real dates, checked by its digits: a pointer holds up to 100 times, and `sessions`
// reads thousands of pointers (a Date made and printed again cost 1 µs a time).
const TIME_SHAPE = "dddd-dd-ddTdd:dd:dd.dddZ";
function isoTime(v: unknown): boolean {
  if (typeof v !== "string" || v.length !== TIME_SHAPE.length) return false;
  for (let i = 0; i < TIME_SHAPE.length; i++) {
    const c = v.charCodeAt(i);
    if (TIME_SHAPE[i] === "d" ? c < 48 || c > 57 : c !== TIME_SHAPE.charCodeAt(i)) return false;
  }
  const number = (at: number, digits: number): number => {
    let value = 0;
    for (let i = at; i < at + digits; i++) value = value * 10 + v.charCodeAt(i) - 48;
    return value;
  };
  const month = number(5, 2);
  const day = number(8, 2);
  return month >= 1 && month <= 12 && day >= 1 && day <= daysIn(number(0, 4), month) && number(11, 2) < 24 && number(14, 2) < 60 && number(17, 2) < 60;
}

function daysIn(year: number, month: number): number {
  if (month !== 2) return [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1] ?? 0;
  return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0 ? 29 : 28;
}

function isSource(v: unknown): boolean {
  return record(v) && typeof v["rule"] === "string" &&
    optional(v["line"], (n) => Number.isSafeInteger(n) && (n as number) >= FIRST_LINE);
}

function isMessage(v: unknown): boolean {
  return record(v) && typeof v["sha256"] === "string" && SHA256_HEX.test(v["sha256"]) && isoTime(v["at"]);
}

function isHistoryEntry(v: unknown): boolean {
  return record(v) && typeof v["id"] === "string" && isoTime(v["at"]) && typeof v["reason"] === "string";
}
