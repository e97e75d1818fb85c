import { cleanText } from "./clean.js";
import { parseJsonObject } from "./json.js";
import type { Line } from "./line.js";
import { LineSplitter } from "./lines.js";

/**
 * The whole capture pipeline: raw output bytes in any chunking → `Line`s (blank lines are counted
 * but not returned). Synchronous and pure, so `run` and `replay` share it and each line can be
 * tied to the chunk (and the recording time) that completed it.
 */
export class Capture {
  readonly #splitter: LineSplitter;

  constructor(maxLineChars?: number) {
    this.#splitter = new LineSplitter(maxLineChars);
  }

  push(chunk: Uint8Array | string): Line[] {
    return this.#lines(this.#splitter.push(chunk));
  }

  end(): Line[] {
    return this.#lines(this.#splitter.end());
  }

  #lines(raw: ReturnType<LineSplitter["push"]>): Line[] {
    return raw.flatMap(({ n, raw: text, offset, cut }) => {
      const clean = cleanText(text);
      if (clean === "") return [];
      const json = cut ? undefined : parseJsonObject(clean);
      return [{ n, text: clean, offset, ...(cut ? { cut } : {}), ...(json === undefined ? {} : { json }) }];
    });
  }
}

/** Every line of a complete output. */
export function captureAll(chunks: Iterable<Uint8Array | string>, maxLineChars?: number): Line[] {
  const capture = new Capture(maxLineChars);
  const lines: Line[] = [];
  for (const chunk of chunks) lines.push(...capture.push(chunk));
  lines.push(...capture.end());
  return lines;
}
