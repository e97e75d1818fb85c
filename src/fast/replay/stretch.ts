import { closeSync, openSync } from "node:fs";
import type { RelevanceRules } from "./clues.js";
import type { Block } from "./block.js";
import { BlockScanner } from "./blocks.js";
import { rangeChunks } from "./ranges.js";

/** One stretch of a file to scan into blocks (`end` undefined: to the end of the file). */
export interface ScanJob {
  readonly path: string;
  readonly start: number;
  readonly end: number | undefined;
  readonly rules: RelevanceRules;
}

/** Blocks as they are found; the last message also has the stretch's line count and where it ended. */
export type ScanMessage =
  | { readonly kind: "blocks"; readonly blocks: Block[] }
  | { readonly kind: "done"; readonly blocks: Block[]; readonly lines: number; readonly end: number };

// Blocks go out in batches: a message per block would cost more than finding them.
const SEND_EVERY_BYTES = 4 * 1024 * 1024;

/** Reads a stretch and hands out its blocks in batches, the last message `done`. */
export function scanStretch(job: ScanJob, send: (message: ScanMessage) => void): void {
  const scanner = new BlockScanner(job.rules, job.start);
  const fd = openSync(job.path, "r");
  try {
    let sent = job.start;
    for (const chunk of rangeChunks(fd, job.start, job.end, scanner.readBuffer)) {
      scanner.push(chunk);
      if (scanner.scannedTo - sent >= SEND_EVERY_BYTES) {
        sent = scanner.scannedTo;
        send({ kind: "blocks", blocks: scanner.take() });
      }
    }
    scanner.end();
    send({ kind: "done", blocks: scanner.take(), lines: scanner.lines, end: scanner.scannedTo });
  } finally {
    closeSync(fd);
  }
}
