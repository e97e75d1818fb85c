import { isAbsolute } from "node:path";
import { describe, expect, it } from "vitest";
import { SHA256_HEX } from "../../src/digest.js";
import { normalized, surelyValid } from "../../src/pointer/check.js";
import { PointerSchema, type Pointer } from "../../src/pointer/schema.js";

/**
 * The plain check against PointerSchema, on one table generated from the schema's own definition:
 * every field missing, of another type, and at each side of each of its bounds. A field or bound
 * added to the schema adds its rows; one of a kind this generator does not know fails the table
 * until it is taught, so the check cannot silently fall behind.
 */

const base: Pointer = {
  version: 1,
  agent: "amp",
  id: "T-0199a3b2-7c1d-7e40-9d3f-1a2b3c4d5e6f",
  state: "provisional",
  cwd: "/work/proj",
  key: "pr-42",
  messages: [{ sha256: "a".repeat(64), at: "2026-11-22T21:30:01.000Z" }],
  capturedAt: "2026-11-22T21:30:00.000Z",
  confirmedAt: "2026-11-22T21:30:05.000Z",
  lastRunAt: "2026-11-22T21:31:00.000Z",
  source: { rule: "init", line: 3 },
  history: [{ id: "old", at: "2026-11-21T10:00:00.000Z", reason: "rejected" }],
};

const MISSING = Symbol("missing");

/** One value for a place in the pointer; `plain`: valid as sessionpin writes it, so the plain check must take it too. */
interface Sample {
  readonly what: string;
  readonly value: unknown;
  readonly valid: boolean;
  readonly plain?: boolean;
}

interface Def {
  readonly type: string;
  readonly shape?: Readonly<Record<string, Node>>;
  readonly innerType?: Node;
  readonly element?: Node;
  readonly values?: readonly unknown[];
  readonly entries?: Readonly<Record<string, string>>;
  readonly checks?: ReadonlyArray<{ readonly _zod: { readonly def: CheckDef } }>;
  readonly format?: string;
  readonly offset?: boolean;
  readonly local?: boolean;
  readonly precision?: number | null;
}
interface CheckDef {
  readonly check: string;
  readonly minimum?: number;
  readonly value?: number;
  readonly inclusive?: boolean;
  readonly format?: string;
  readonly pattern?: RegExp;
  readonly fn?: unknown;
}
interface Node {
  readonly _zod: { readonly def: Def };
}

const valid = (what: string, value: unknown, plain = true): Sample => ({ what, value, valid: true, plain });
const invalid = (what: string, value: unknown): Sample => ({ what, value, valid: false });

// Times as Date#toISOString writes them are the plain check's; others the schema takes are left to it.
const TIMES: readonly Sample[] = [
  valid("a time", "2026-11-22T21:30:00.000Z"),
  valid("29 February of a leap year", "2024-02-29T21:30:00.000Z"),
  valid("29 February of 2000", "2000-02-29T21:30:00.000Z"),
  valid("the last moment of a day", "2026-12-31T23:59:59.999Z"),
  valid("a time with an offset", "2026-11-22T22:30:00.000+01:00", false),
  valid("a time without milliseconds", "2026-11-22T21:30:00Z", false),
  invalid("30 February", "2026-02-30T21:30:00.000Z"),
  invalid("29 February of 2100", "2100-02-29T21:30:00.000Z"),
  invalid("31 April", "2026-04-31T21:30:00.000Z"),
  invalid("month 0", "2026-00-10T21:30:00.000Z"),
  invalid("month 13", "2026-13-10T21:30:00.000Z"),
  invalid("day 0", "2026-05-00T21:30:00.000Z"),
  invalid("hour 24", "2026-11-22T24:00:00.000Z"),
  invalid("minute 60", "2026-11-22T21:60:00.000Z"),
  invalid("second 60", "2026-11-22T21:30:60.000Z"),
  invalid("a date only", "2026-11-22"),
  invalid("not a time", "soon"),
];

const PATTERNS = new Map<string, readonly Sample[]>([
  [SHA256_HEX.source, [
    valid("64 hex digits", "0123456789abcdef".repeat(4)),
    invalid("upper case", "A".repeat(64)),
    invalid("63 digits", "a".repeat(63)),
    invalid("65 digits", "a".repeat(65)),
    invalid("not hex", "g".repeat(64)),
  ]],
]);

const REFINEMENTS = new Map<unknown, readonly Sample[]>([
  [isAbsolute, [valid("the root", "/"), valid("an absolute path", "/w/x"), invalid("a relative path", "relative/dir"), invalid("./", "./x"), invalid("empty", "")]],
]);

function unknownKind(what: string): never {
  throw new Error(`no samples for ${what}: teach test/pointer/check.test.ts this kind, and the plain check too`);
}

/** Samples for a string's checks, beside `example`. */
function stringSamples(def: Def, example: unknown): Sample[] {
  if (def.format === "datetime") {
    if (def.offset !== true || def.local === true || def.precision !== null) unknownKind("a time with other options");
    return [...TIMES, invalid("a number", 7)];
  }
  if (def.format !== undefined) unknownKind(`string format ${def.format}`);
  const samples = [valid("any text", typeof example === "string" ? example : "text"), invalid("a number", 7)];
  for (const { _zod: { def: check } } of def.checks ?? []) {
    if (check.check === "min_length" && check.minimum !== undefined) {
      samples.push(valid(`${check.minimum} characters`, "x".repeat(check.minimum)));
      if (check.minimum > 0) samples.push(invalid(`${check.minimum - 1} characters`, "x".repeat(check.minimum - 1)));
    } else if (check.check === "string_format" && check.format === "regex" && check.pattern !== undefined) {
      samples.push(...(PATTERNS.get(check.pattern.source) ?? unknownKind(`pattern ${check.pattern.source}`)));
    } else if (check.check === "custom") {
      samples.push(...(REFINEMENTS.get(check.fn) ?? unknownKind("a refinement")));
    } else {
      unknownKind(`string check ${check.check}`);
    }
  }
  // A sample made at one check's bound is valid only if it keeps the string's other checks too.
  return samples.map((s) => (s.valid && typeof s.value === "string" && !plainString(def, s.value) ? invalid(s.what, s.value) : s));
}

function plainString(def: Def, value: string): boolean {
  return (def.checks ?? []).every(({ _zod: { def: check } }) =>
    check.check === "min_length" ? value.length >= (check.minimum ?? 0)
    : check.check === "string_format" ? (check.pattern as RegExp).test(value)
    : check.check === "custom" ? (check.fn as (v: string) => boolean)(value)
    : unknownKind(`string check ${check.check}`));
}

function numberSamples(def: Def): Sample[] {
  const samples = [invalid("a string", "1")];
  let least = -Number.MAX_SAFE_INTEGER;
  for (const { _zod: { def: check } } of def.checks ?? []) {
    if (check.check === "number_format" && check.format === "safeint") {
      samples.push(invalid("a fraction", 1.5), invalid("past the safe integers", 2 ** 53));
    } else if (check.check === "greater_than" && check.value !== undefined) {
      least = check.inclusive === true ? check.value : check.value + 1;
      samples.push(invalid(`below ${least}`, least - 1));
    } else {
      unknownKind(`number check ${check.check}`);
    }
  }
  return [...samples, valid(`${least}`, least), valid("the largest safe integer", Number.MAX_SAFE_INTEGER)];
}

/** The samples for one node of the schema; `example` is the base pointer's value there. */
function samplesOf(node: Node, example: unknown): Sample[] {
  const def = node._zod.def;
  switch (def.type) {
    case "optional":
      return [valid("left out", MISSING), ...samplesOf(def.innerType as Node, example)];
    case "literal":
      return (def.values ?? []).flatMap((v) => [valid(`${String(v)}`, v), invalid(`${String(v)} as text`, String(v)), ...(typeof v === "number" ? [invalid(`${v + 1}`, v + 1)] : [])]);
    case "enum":
      return [...Object.values(def.entries ?? {}).map((v) => valid(v, v)), invalid("another word", "pinned"), invalid("upper case", String(Object.values(def.entries ?? {})[0]).toUpperCase())];
    case "string":
      return stringSamples(def, example);
    case "number":
      return numberSamples(def);
    case "array": {
      const first = Array.isArray(example) ? example[0] : undefined;
      return [
        valid("empty", []), invalid("an object", {}), invalid("null", null),
        ...samplesOf(def.element as Node, first).filter((s) => s.value !== MISSING).map((s) => ({ ...s, what: `[0] ${s.what}`, value: [s.value] })),
      ];
    }
    case "object": {
      const record = (example ?? {}) as Record<string, unknown>;
      const samples: Sample[] = [invalid("null", null), invalid("a list", []), invalid("text", "{}"), valid("with an unknown field (dropped)", { ...record, extra: true })];
      for (const [key, child] of Object.entries(def.shape ?? {})) {
        const required = child._zod.def.type !== "optional";
        for (const s of [...(required ? [invalid("left out", MISSING)] : []), ...samplesOf(child, record[key])]) {
          const value = { ...record };
          if (s.value === MISSING) delete value[key];
          else value[key] = s.value;
          samples.push({ ...s, what: `${key} ${s.what}`, value });
        }
      }
      return samples;
    }
    default:
      return unknownKind(`a ${def.type}`);
  }
}

const table = samplesOf(PointerSchema as unknown as Node, base);

describe("surelyValid: the write side's check without zod", () => {
  it("has a row at each side of every bound of every field", () => {
    // A row per field at least, more for every bound: the count moves when the schema does.
    expect(table.length).toBeGreaterThan(Object.keys(PointerSchema.shape).length * 3);
    for (const field of Object.keys(PointerSchema.shape)) expect(table.some((s) => s.what.startsWith(`${field} `)), field).toBe(true);
  });

  for (const sample of table) {
    it(`${sample.valid ? "takes" : "refuses"} ${sample.what}`, () => {
      const schema = PointerSchema.safeParse(sample.value);
      // The table says what the schema says: its rows are at the bounds the schema has.
      expect(schema.success, JSON.stringify(schema.error?.issues)).toBe(sample.valid);
      // Sound: never takes what the schema refuses. Complete but for what only a hand writes, which goes to the schema.
      expect(surelyValid(sample.value)).toBe(sample.valid && sample.plain === true);
      if (surelyValid(sample.value)) expect(JSON.stringify(normalized(sample.value))).toBe(JSON.stringify(schema.data));
    });
  }

  it.each([["a number", 1], ["undefined", undefined]])("refuses %s read from a file, as the schema does", (_name, value) => {
    expect(PointerSchema.safeParse(value).success).toBe(false);
    expect(surelyValid(value)).toBe(false);
  });

  it("accepts what sessionpin writes, in the schema's field order", () => {
    const written = { history: [], source: { rule: "init" }, capturedAt: new Date().toISOString(), cwd: "/w", state: "confirmed", id: "x", agent: "amp", version: 1 } as Pointer;
    expect(surelyValid(written)).toBe(true);
    expect(JSON.stringify(normalized(written))).toBe(JSON.stringify(PointerSchema.parse(written)));
  });
});
