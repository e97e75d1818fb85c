/** JSON objects from agent output and agent files, without ever throwing: shared by the plugins and the engine. */

/** The line as a JSON object, or undefined when it is anything else (never throws). */
export function parseJsonObject(text: string): Record<string, unknown> | undefined {
  const trimmed = text.trim();
  if (!trimmed.startsWith("{") || !trimmed.endsWith("}")) return undefined;
  try {
    const value: unknown = JSON.parse(trimmed);
    return typeof value === "object" && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}

/** The value at a dotted path (`message.id`), or undefined. */
export function valueAt(object: Readonly<Record<string, unknown>>, path: string): unknown {
  // Walked by indexOf, not split: `run` asks this of every JSON line, and an array per call
  // was a tenth of judging them (issue 44).
  let current: unknown = object;
  for (let start = 0; ;) {
    if (typeof current !== "object" || current === null) return undefined;
    const dot = path.indexOf(".", start);
    current = (current as Record<string, unknown>)[dot === -1 ? path.slice(start) : path.slice(start, dot)];
    if (dot === -1) return current;
    start = dot + 1;
  }
}
