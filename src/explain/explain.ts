import { replay, type ReplayOptions, type ReplayResult } from "../replay/replay.js";
import type { Source } from "../replay/sources.js";
import type { TraceEvent } from "../engine/trace.js";

/**
 * `sessionpin explain` as a call: the replay's result and every line a rule looked at, in order.
 * The events are kept in memory; for a very large recording pass `trace` to `replay()` instead.
 */
export async function explain(
  source: Source,
  options: Omit<ReplayOptions, "trace">,
): Promise<{ result: ReplayResult; events: TraceEvent[] }> {
  const events: TraceEvent[] = [];
  const result = await replay(source, { ...options, trace: (event) => void events.push(event) });
  return { result, events };
}
