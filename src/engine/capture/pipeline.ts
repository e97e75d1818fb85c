import { cleanText } from "./clean.js";
import { parseJsonObject } from "../../json.js";
import type { Line } from "./line.js";
import { decodeLine, LineSplitter, type RawLine, type SplitFrom } from "./lines.js";
import { WrappedJson, type Rejoined } from "./rejoin.js";

export interface CaptureOptions {
  readonly maxLineBytes?: number;
  /** The screen's width, when known: rows of a wrapped JSON line are joined even if each lost its trailing spaces. */
  readonly width?: number;
  /** For a capture that starts part-way through an output, at a line start (see LineSplitter). */
  readonly from?: SplitFrom;
}

/**
 * The whole capture pipeline: raw output bytes in any chunking → lines (split on line breaks
 * and cursor moves, lines.ts) → JSON lines a screen wrapped, joined again (rejoin.ts) → each
 * decoded, cleaned and parsed → `Line`s (blank lines are counted but not delivered). Synchronous
 * and pure, so `run` and `replay` share it and each line can be tied to the chunk (and the
 * recording time) that completed it.
 */
export class Capture {
  readonly #splitter: LineSplitter;
  // JSON lines a screen snapshot wrapped into rows (agentapi's state file, tmux capture-pane).
  readonly #wrapped: WrappedJson;

  constructor(options: CaptureOptions = {}) {
    this.#splitter = new LineSplitter(options.maxLineBytes, options.from);
    this.#wrapped = new WrappedJson(options.width);
  }

  push(chunk: Uint8Array | string, onLine: (line: Line) => void): void {
    for (const raw of this.#splitter.push(chunk)) this.#deliver(this.#wrapped.offer(raw), onLine);
  }

  end(onLine: (line: Line) => void): void {
    for (const raw of this.#splitter.end()) this.#deliver(this.#wrapped.offer(raw), onLine);
    this.#deliver(this.#wrapped.flush(), onLine);
  }

  /** Rows that may be a JSON line a screen snapshot wrapped are held: the lines that follow may complete it. */
  get holdingRows(): boolean {
    return this.#wrapped.holding;
  }

  #deliver(lines: readonly Rejoined[], onLine: (line: Line) => void): void {
    for (const item of lines) {
      const line = item.kind === "row" ? lineOf(item.line) : item.line;
      if (line !== undefined) onLine(line);
    }
  }
}

/** A line of the output as plugins see it: decoded, cleaned, parsed; undefined when it is blank. */
function lineOf(raw: RawLine): Line | undefined {
  const text = cleanText(decodeLine(raw.bytes));
  if (text === "") return undefined;
  if (raw.cut) return { n: raw.n, text, offset: raw.offset, cut: true };
  const json = parseJsonObject(text);
  // Two literals, not a spread of `{}` or `{ json }`: one object per line, not three.
  return json === undefined ? { n: raw.n, text, offset: raw.offset } : { n: raw.n, text, offset: raw.offset, json };
}

/** Every line of a complete output. */
export function captureAll(chunks: Iterable<Uint8Array | string>, maxLineBytes?: number): Line[] {
  const capture = new Capture(maxLineBytes === undefined ? {} : { maxLineBytes });
  const lines: Line[] = [];
  const keep = (line: Line): void => void lines.push(line);
  for (const chunk of chunks) capture.push(chunk, keep);
  capture.end(keep);
  return lines;
}
