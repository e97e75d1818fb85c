import { closeSync, openSync } from "node:fs";
import type { Worker } from "node:worker_threads";
import type { Extractor } from "../../engine/extract.js";
import type { FileToRead } from "../../replay/replay.js";
import type { Line } from "../../engine/capture/line.js";
import { Capture } from "../../engine/capture/pipeline.js";
import { canSkip, type Block } from "./block.js";
import { PinCheck, relevanceRules } from "./clues.js";
import { RANGE_READ_BYTES, rangeChunks, stretchStarts } from "./ranges.js";
import { timerTurns } from "./turns.js";
import type { ScanJob, ScanMessage } from "./stretch.js";

// A worker's strings live for one line: a small young generation does as well as the default 16 MB
// (1 GB, 2 workers: same time) and keeps replay's peak memory under 100 MB (2 MB: 92 MB; 16 MB: 122 MB).
const YOUNG_GENERATION_MB = 2;

/**
 * The main thread's part of a parallel read: ranges of the file through the usual capture (lines
 * numbered and placed as in the whole file), and blocks from the workers, skipped when the pin
 * held by then says none of their lines could change it.
 */
export class RangeReader {
  readonly #check = new PinCheck();
  readonly #buffer = Buffer.allocUnsafe(RANGE_READ_BYTES);
  readonly #turn = timerTurns();
  /** The capture of the block read last, while the next block may go on with it. */
  #open: Capture | undefined;

  constructor(
    private readonly fd: number,
    private readonly extractor: Extractor,
    private readonly onLine: (line: Line) => void,
    /** The screen's width, for rows of wrapped JSON lines (see Capture). */
    private readonly width = 0,
  ) {}

  /** Reads [start, end), whose first line is number `before` + 1, with the capture still open if there is one. */
  async #read(start: number, end: number, before: number): Promise<void> {
    const capture = (this.#open ??= new Capture({ width: this.width, from: { lines: before, offset: start } }));
    // A block to read can be most of a file (every line judged): timers get turns meanwhile.
    for (const chunk of rangeChunks(this.fd, start, end, this.#buffer)) {
      capture.push(chunk, this.onLine);
      await this.#turn();
    }
  }

  /** A block of a stretch whose first line is number `base` + 1, ending at `end`. */
  async block(block: Block, end: number, base: number): Promise<void> {
    // Rows of a wrapped JSON line held at the end of the block read last go on into this one,
    // which is read then, whatever it holds: a capture of its own would cut the line apart.
    if (this.#open?.holdingRows !== true) {
      // Its last line is delivered before the pin it may change decides on this block.
      this.finish();
      if (canSkip(block, this.extractor.tracker.current, this.#check)) return;
    }
    await this.#read(block.start, end, base + block.before);
  }

  /** Ends the capture of the blocks read last: what it holds is delivered. */
  finish(): void {
    const open = this.#open;
    this.#open = undefined;
    open?.end(this.onLine);
  }
}

/**
 * Feeds `onLine` the lines the capture makes of the file, numbered and placed as in the whole
 * file, but for blocks of them that could not change the extractor's pin: the same pins, from the
 * same lines. The file is cut into `stretches` at line feeds, worker threads scan them into blocks
 * at once, and this thread takes the blocks in order, skipping or reading each. It does little
 * else, so a worker per CPU keeps them all busy (reading the first stretch here instead was as
 * fast, and this thread's memory grew 15 MB).
 */
export async function readInParallel(file: FileToRead, extractor: Extractor, stretches: number, onLine: (line: Line) => void): Promise<void> {
  // Imported here: the CLI is one bundle, and what its modules import at the top is loaded before
  // every agent's start, which never needs threads.
  const { Worker: Thread } = await import("node:worker_threads");
  const fd = openSync(file.path, "r");
  const scans: WorkerScan[] = [];
  try {
    const starts = stretchStarts(fd, file.size, stretches);
    const rules = relevanceRules(extractor.plugin);
    for (const [i, start] of starts.entries()) scans.push(new WorkerScan(Thread, { path: file.path, start, end: starts[i + 1], rules }));
    await readBlocks(new RangeReader(fd, extractor, onLine, file.width), scans, (offset) => file.progress(offset));
  } finally {
    for (const scan of scans) scan.stop();
    closeSync(fd);
  }
}

/** The messages of one stretch's scan, in order. */
export interface StretchScan {
  next(): Promise<ScanMessage>;
}

/** Takes the stretches' blocks in order, skipping or reading each. */
export async function readBlocks(reader: RangeReader, scans: readonly StretchScan[], progress: (offset: number) => void): Promise<void> {
  let lines = 0;
  for (const scan of scans) {
    let pending: Block | undefined;
    for (let message = await scan.next(); ; message = await scan.next()) {
      for (const block of message.blocks) {
        if (pending !== undefined) await reader.block(pending, block.start, lines);
        progress(block.start);
        pending = block;
      }
      if (message.kind === "done") {
        if (pending !== undefined) await reader.block(pending, message.end, lines);
        progress(message.end);
        lines += message.lines;
        break;
      }
    }
  }
  reader.finish();
}

/** One worker thread scanning one stretch; its messages in order, its failure as a rejection. */
class WorkerScan implements StretchScan {
  readonly #worker: Worker;
  readonly #queue: ScanMessage[] = [];
  #failure: Error | undefined;
  #wake: (() => void) | undefined;

  constructor(Thread: typeof Worker, job: ScanJob) {
    this.#worker = new Thread(new URL("./scan-worker.js", import.meta.url), { workerData: job, resourceLimits: { maxYoungGenerationSizeMb: YOUNG_GENERATION_MB } });
    const wake = (): void => {
      this.#wake?.();
      this.#wake = undefined;
    };
    this.#worker.on("message", (message: ScanMessage) => {
      this.#queue.push(message);
      wake();
    });
    this.#worker.on("error", (error) => {
      this.#failure = error;
      wake();
    });
    this.#worker.on("exit", (code) => {
      this.#failure ??= new Error(`a replay worker stopped (exit code ${code}) before it was done`);
      wake();
    });
  }

  async next(): Promise<ScanMessage> {
    for (;;) {
      const message = this.#queue.shift();
      if (message !== undefined) return message;
      if (this.#failure !== undefined) throw this.#failure;
      await new Promise<void>((resolve) => (this.#wake = resolve));
    }
  }

  stop(): void {
    void this.#worker.terminate();
  }
}
