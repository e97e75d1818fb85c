import { z } from "zod";

/**
 * The recordings `replay` reads whole-structured: an asciicast v2 header and its events, and
 * agentapi's state file. Imported only when such a file is opened (`await import`): zod takes
 * ~60 ms to load, and the CLI bundle must not load it on every start.
 */
export const CastHeader = z.object({ version: z.literal(2), width: z.number().int().positive(), height: z.number().int().positive(), command: z.string().optional() });
export const CastEvent = z.tuple([z.number(), z.string(), z.string()]);
export const AgentapiState = z.object({
  messages: z.array(z.object({ message: z.string(), role: z.string(), time: z.string().optional() })),
});
