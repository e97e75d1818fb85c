import { z } from "zod";

/**
 * An asciicast v2 or v3 header and its events, as `replay` reads them (agentapi's state file is
 * read as it streams: agentapi-state.ts). Imported only when such a file is opened (`await
 * import`): zod takes ~60 ms to load, and the CLI bundle must not load it on every start.
 */
const size = z.number().int().positive();
/** v3 (asciinema 3's default) keeps the size under `term`, and times each event from the one before. */
export const CastHeader = z.union([
  z.object({ version: z.literal(2), width: size, height: size, command: z.string().optional() }),
  z.object({ version: z.literal(3), term: z.object({ cols: size, rows: size }), command: z.string().optional() }),
]);
export const CastEvent = z.tuple([z.number(), z.string(), z.string()]);
/** An event whose time cannot be read: its output is still output. */
export const UntimedEvent = z.tuple([z.unknown(), z.string(), z.string()]);
