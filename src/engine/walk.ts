/**
 * The one walker over parsed JSON that came from outside (a line of agent output, a file): a loop
 * over a stack of its own, never a recursion, and bounded in depth and in values looked at.
 * JSON.parse is iterative in V8 and takes a line nested 200,000 deep; JSON.stringify and any
 * recursive function are not: a 10 KB stream-json line whose `session_id` was an array nested
 * 5,000 deep overflowed the stack in `JSON.stringify(value)` and killed a live `claude` session.
 */

/** How far a walk goes: levels below the value it starts at, and values looked at in all. */
export interface WalkLimits {
  readonly depth: number;
  readonly values: number;
}

type Container = Readonly<Record<string, unknown>> | readonly unknown[];

const isContainer = (value: unknown): value is Container => typeof value === "object" && value !== null;

/** A container's entries, each with its key: an array's index as a string, as Object.entries gives. */
function entriesOf(value: Container): Array<[string, unknown]> {
  return Object.entries(value);
}

/**
 * Every string in `value` with its dotted path (`message.id`), in document order (depth first),
 * at most `limits.depth` levels down and among the first `limits.values` values. What lies beyond
 * either bound is not looked at.
 */
export function* stringsIn(value: unknown, limits: WalkLimits): Iterable<[string, string]> {
  const stack: Array<{ path: string; value: unknown; depth: number }> = [{ path: "", value, depth: limits.depth }];
  let seen = 0;
  for (let top = stack.pop(); top !== undefined && seen < limits.values; top = stack.pop()) {
    seen++;
    if (typeof top.value === "string") {
      yield [top.path, top.value];
    } else if (top.depth > 0 && isContainer(top.value)) {
      const children = entriesOf(top.value);
      // Pushed last to first, so the first child is popped first: document order.
      for (let i = children.length - 1; i >= 0; i--) {
        const [key, child] = children[i] as [string, unknown];
        stack.push({ path: top.path ? `${top.path}.${key}` : key, value: child, depth: top.depth - 1 });
      }
    }
  }
}

/** The most a preview shows, in characters, and how deep it goes before `[…]` / `{…}`. */
const PREVIEW_CHARS = 200;
const PREVIEW_DEPTH = 8;

/**
 * `value` (parsed JSON) as JSON text, as JSON.stringify writes it, for a message: exactly that when it is short
 * and shallow; otherwise cut at `maxChars` with "…", and containers deeper than `maxDepth` shown
 * as `[…]` or `{…}`. Work is bounded by `maxChars`, whatever the value's size or depth.
 */
export function preview(value: unknown, maxChars = PREVIEW_CHARS, maxDepth = PREVIEW_DEPTH): string {
  let out = "";
  const full = (): boolean => out.length > maxChars;
  // Each frame: the container's entries, the next one to write, and whether it is an array.
  const stack: Array<{ entries: Array<[string, unknown]>; at: number; array: boolean }> = [];
  const open = (item: unknown): void => {
    if (!isContainer(item)) {
      out += scalar(item, maxChars);
      return;
    }
    const array = Array.isArray(item);
    if (stack.length >= maxDepth) {
      out += array ? "[…]" : "{…}";
      return;
    }
    out += array ? "[" : "{";
    stack.push({ entries: entriesOf(item), at: 0, array });
  };
  open(value);
  while (stack.length > 0 && !full()) {
    const frame = stack[stack.length - 1] as (typeof stack)[number];
    const entry = frame.entries[frame.at];
    if (entry === undefined) {
      out += frame.array ? "]" : "}";
      stack.pop();
      continue;
    }
    if (frame.at > 0) out += ",";
    frame.at++;
    const [key, child] = entry;
    if (!frame.array) out += `${JSON.stringify(key.length > maxChars ? key.slice(0, maxChars) : key)}:`;
    open(child);
  }
  return full() || stack.length > 0 ? `${out.slice(0, maxChars - 1)}…` : out;
}

function scalar(value: unknown, maxChars: number): string {
  if (typeof value === "string") return JSON.stringify(value.length > maxChars ? value.slice(0, maxChars) : value);
  if (typeof value === "number") return Number.isFinite(value) ? String(value) : "null";
  if (typeof value === "boolean") return String(value);
  if (typeof value === "bigint") return String(value);
  return "null";
}
