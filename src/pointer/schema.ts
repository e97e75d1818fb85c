import { isAbsolute } from "node:path";
import { z } from "zod";
import { SHA256_HEX } from "../digest.js";
import { FIRST_LINE, MIN_NAME_CHARS, POINTER_STATES } from "./bounds.js";
import { POINTER_VERSION } from "./version.js";

/**
 * The files of the pointer folder as they must be read. Imported only when a file is read or
 * written (`await import`), never before the agent starts: zod is most of sessionpin's start-up.
 * Its bounds live in bounds.ts, which the plain check (check.ts) reads too.
 */

// Offsets are accepted so a hand-edited pointer with local time still reads.
const isoTime = z.iso.datetime({ offset: true });

export const PointerSchema = z.object({
  version: z.literal(POINTER_VERSION),
  agent: z.string().min(MIN_NAME_CHARS),
  id: z.string().min(MIN_NAME_CHARS),
  /** Provisional until the agent has shown it accepts the ID (an init line vs. a resumed turn). */
  state: z.enum(POINTER_STATES),
  cwd: z.string().refine(isAbsolute, "expected an absolute path"),
  capturedAt: isoTime,
  confirmedAt: isoTime.optional(),
  /** Which extraction rule produced the ID, for `explain`. */
  source: z.object({
    rule: z.string(),
    line: z.number().int().min(FIRST_LINE).optional(),
  }),
  /** The external conversation this session serves (`--key`: a chat thread, a PR), if named. */
  key: z.string().min(MIN_NAME_CHARS).optional(),
  /**
   * The sha256 of every message the session took a turn with (never the text), newest last, at
   * most 50: a message it already had is not sent again.
   */
  messages: z.array(z.object({ sha256: z.string().regex(SHA256_HEX), at: isoTime })).optional(),
  /** When a run last ended with the agent having taken a turn. */
  lastRunAt: isoTime.optional(),
  /** IDs this pointer held before, newest last, so a wrong replacement can be undone by hand. */
  history: z.array(
    z.object({
      id: z.string(),
      at: isoTime,
      reason: z.string(),
    }),
  ),
});

export type Pointer = z.infer<typeof PointerSchema>;

/** `<pointer>.lock`: the live writer. */
export const LockInfoSchema = z.object({
  // Positive: kill(0, 0) would probe our own process group and always report "alive".
  pid: z.number().int().positive(),
  startedAt: z.string(),
  host: z.string(),
});
export type LockInfo = z.infer<typeof LockInfoSchema>;
