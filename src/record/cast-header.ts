import { z } from "zod";

/**
 * The asciicast v2 header (docs.asciinema.org/manual/asciicast/v2), the first line of a
 * recording: what `--record` writes (asciicast.ts takes its type from here) and what `replay`
 * reads (replay/source-schemas.ts). Loaded only with `await import`, by replay: zod takes ~60 ms
 * to load, which no start of an agent waits for.
 */

/** A terminal's columns or rows. */
export const cells = z.number().int().positive();

export const CastV2Header = z.object({
  version: z.literal(2),
  width: cells,
  height: cells,
  /** Unix seconds at the start. */
  timestamp: z.number().int().optional().catch(undefined),
  /** The command recorded: replay takes its plugin from it. */
  command: z.string().optional(),
  /** Another recorder's environment map of odd values is no reason to refuse its recording: it is dropped. */
  env: z.record(z.string(), z.string()).optional().catch(undefined),
});
export type CastV2Header = z.infer<typeof CastV2Header>;
