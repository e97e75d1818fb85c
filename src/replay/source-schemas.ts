import { z } from "zod";
import { CastV2Header, cells } from "../record/cast-header.js";

/**
 * An asciicast v2 or v3 header and its events, as `replay` reads them (agentapi's state file is
 * read as it streams: agentapi-state.ts). Imported only when such a file is opened (`await
 * import`): zod takes ~60 ms to load, and the CLI bundle must not load it on every start.
 */
/** v3 (asciinema 3's default) keeps the size under `term`, and times each event from the one before. */
export const CastHeader = z.union([
  CastV2Header,
  z.object({ version: z.literal(3), term: z.object({ cols: cells, rows: cells }), command: z.string().optional() }),
]);
export const CastEvent = z.tuple([z.number(), z.string(), z.string()]);
/** An event whose time cannot be read: its output is still output. */
export const UntimedEvent = z.tuple([z.unknown(), z.string(), z.string()]);
