import { cleanText } from "./clean.js";
import { parseJsonObject } from "../../json.js";
import type { Line } from "./line.js";
import { decodeLine, type RawLine } from "./lines.js";

/**
 * JSON event lines hard-wrapped in a screen snapshot, put back together. agentapi's state file
 * keeps what it read off the agent's 67-column screen, and `tmux capture-pane` what it read off
 * the pane: a stream line longer than the screen arrives as several rows, none of them JSON.
 *
 *   {"type":"system","subtype":"init","cwd":"/home/coder/project","se     row 1: the screen's width
 *   ssion_id":"7c3f9e21-5b4d-4e8a-9f12-3d6b8a0c4e57","tools":["Bash"],     row 2: the same width
 *   "model":"claude-sonnet-4-5"}                                           last row: no longer
 *
 * A terminal breaks a long line at its width and nowhere else, so the rows are joined without
 * a separator and only when they look like that: the first row starts at column 0 with `{"`, is
 * no JSON on its own and is at least MIN_WIDTH characters long; every further row but the last
 * is as wide as the widest; the last is no wider; and the rows joined are one JSON object.
 * Snapshots drop the spaces a row ends with (agentapi and `tmux capture-pane` both trim rows), so
 * a row up to SLACK columns narrower than the widest still counts as full, and is padded back
 * with spaces before the join (a break after a space inside a JSON string loses nothing). A
 * pretty-printed object (`{` alone on its row), an indented one (chat text) or rows of other
 * lengths are left as they are, row by row. Rows whose characters are wider than one column
 * (CJK) do not line up and are not joined either: a miss, never a look-alike.
 *
 * Nothing here costs a line that is not a candidate: a row is one only when its bytes start with
 * `{` and do not end with `}` (a whole stream line ends with `}`).
 */

/** Narrower than any terminal an agent is run in; `{"type":"system"` alone is 16. */
export const MIN_WIDTH = 40;
/** How many trailing spaces a snapshot may have trimmed off a full row (code in a JSON string has runs of them). */
export const SLACK = 8;
// A wrapped object longer than this is let go row by row: memory stays bounded.
const MOST_BYTES = 1024 * 1024;

/** A line several rows were joined into: already decoded, cleaned and parsed. */
export interface JoinedLine extends Line {
  readonly offset: number;
  readonly json: Readonly<Record<string, unknown>>;
}

export type Rejoined = { readonly kind: "row"; readonly line: RawLine } | { readonly kind: "joined"; readonly line: JoinedLine };

const OPEN = 0x7b;
const CLOSE = 0x7d;

/** Whether a raw line could be the first row of a wrapped JSON object: it starts with `{` and does not end with `}`. */
export function mayStartWrapped(bytes: string): boolean {
  if (bytes.charCodeAt(0) !== OPEN) return false;
  let end = bytes.length;
  while (end > 0 && isBlank(bytes.charCodeAt(end - 1))) end--;
  return bytes.charCodeAt(end - 1) !== CLOSE;
}

const isBlank = (code: number): boolean => code === 0x20 || code === 0x09 || code === 0x0d;

/** The text of a raw line as the pipeline makes it. */
const textOf = (line: RawLine): string => cleanText(decodeLine(line.bytes));

/** Characters, not UTF-16 units: a screen row holds so many characters. */
const width = (text: string): number => {
  let count = 0;
  for (const _ of text) count++;
  return count;
};

interface Held {
  readonly line: RawLine;
  readonly text: string;
  readonly columns: number;
}

/** Holds rows that may be a wrapped object until they prove to be one or not. */
export class WrappedJson {
  #rows: Held[] = [];
  #width = 0;
  #bytes = 0;

  /**
   * `screenWidth`, when known (a cast's header, `--width`, the PTY's columns), counts as the widest
   * row from the start: then rows that all lost trailing spaces still join. 0: learnt from the rows.
   */
  constructor(private readonly screenWidth = 0) {}

  /** Rows are being held: every line must be offered until `flush`. */
  get holding(): boolean {
    return this.#rows.length > 0;
  }

  /** One line, in order; what may be delivered now, in order. */
  offer(line: RawLine): Rejoined[] {
    if (this.#rows.length === 0) return this.#start(line);
    if (line.cut) return [...this.flush(), { kind: "row", line }];
    const text = textOf(line);
    const columns = width(text);
    const widest = Math.max(this.#width, columns);
    // Every row held is followed by this one, so each must have filled the screen.
    if (text === "" || this.#rows.some((row) => widest - row.columns > SLACK)) return [...this.#giveUp(), ...this.offer(line)];
    const joined = this.#rows.map((row) => row.text.padEnd(row.text.length + widest - row.columns)).join("") + text;
    // This row is the last one when the object ends here (it may end at the edge, too).
    const json = text.endsWith("}") ? parseJsonObject(joined) : undefined;
    this.#rows.push({ line, text, columns });
    this.#bytes += line.bytes.length;
    if (json !== undefined) return [{ kind: "joined", line: this.#take(joined, json) }];
    // Too narrow to be full, so it was the last row; or too much held.
    if (widest - columns > SLACK || this.#bytes > MOST_BYTES) return this.#giveUp();
    this.#width = widest;
    return [];
  }

  /** The rows held, as they are (the output ended). */
  flush(): Rejoined[] {
    const rows = this.#rows;
    this.#rows = [];
    return rows.map((row) => ({ kind: "row", line: row.line }));
  }

  #start(line: RawLine): Rejoined[] {
    if (line.cut || !mayStartWrapped(line.bytes)) return [{ kind: "row", line }];
    const text = textOf(line);
    const columns = width(text);
    if (columns < MIN_WIDTH || !text.startsWith('{"') || parseJsonObject(text) !== undefined) return [{ kind: "row", line }];
    this.#rows = [{ line, text, columns }];
    // A first row wider than the screen did not come from it: the hint is ignored.
    this.#width = this.screenWidth > columns && this.screenWidth - columns <= SLACK ? this.screenWidth : columns;
    this.#bytes = line.bytes.length;
    return [];
  }

  /** Not an object: the first row goes as it is, the others are looked at again (one may start one). */
  #giveUp(): Rejoined[] {
    const [first, ...rest] = this.#rows;
    this.#rows = [];
    if (first === undefined) return [];
    return [{ kind: "row", line: first.line }, ...rest.flatMap((row) => this.offer(row.line))];
  }

  #take(text: string, json: Readonly<Record<string, unknown>>): JoinedLine {
    const rows = this.#rows;
    this.#rows = [];
    const first = rows[0] as Held;
    return { n: first.line.n, offset: first.line.offset, text, json };
  }
}
