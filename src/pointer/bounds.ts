import type { IdState } from "../agents/types.js";

/**
 * What a pointer's fields may hold, as values: the one home of each bound. PointerSchema
 * (schema.ts, zod, for files and callers) and the plain check (check.ts, for the paths zod would
 * slow) both read them; test/pointer/check.test.ts holds the two to every bound the schema has.
 */

export const POINTER_STATES = ["provisional", "confirmed"] as const satisfies readonly IdState[];

/** The fewest characters an agent's name, an ID or a key may have. */
export const MIN_NAME_CHARS = 1;

/** Output lines are counted from 1. */
export const FIRST_LINE = 1;
