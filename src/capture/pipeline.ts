import type { Transform } from "node:stream";
import { cleanText } from "./clean.js";
import { parseJsonObject } from "./json.js";
import type { Line } from "./line.js";
import { splitLines } from "./lines.js";

/**
 * The whole capture pipeline as one stream: write the agent's raw output bytes in any chunking,
 * read `Line` objects (blank lines are counted but not emitted). `run` and `replay` both use it.
 */
export function createCapture(maxLineChars?: number): Transform {
  return splitLines<Line>((raw, n) => {
    const text = cleanText(raw);
    if (text === "") return undefined;
    const json = parseJsonObject(text);
    return json === undefined ? { n, text } : { n, text, json };
  }, maxLineChars);
}

/** Every line of a complete output, for tests and one-shot callers. */
export async function captureAll(chunks: Iterable<Uint8Array | string>): Promise<Line[]> {
  const capture = createCapture();
  const lines: Line[] = [];
  capture.on("data", (line: Line) => lines.push(line));
  const done = new Promise<void>((resolve, reject) => {
    capture.on("end", resolve);
    capture.on("error", reject);
  });
  for (const chunk of chunks) capture.write(chunk);
  capture.end();
  await done;
  return lines;
}
