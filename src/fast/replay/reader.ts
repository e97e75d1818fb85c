import { availableParallelism } from "node:os";
import type { FileReader } from "../../replay/replay.js";
import { fastPaths } from "../switch.js";
import { readInParallel } from "./parallel.js";

const MOST_AUTO_JOBS = 8;
// Below this a thread's start-up (about 40 ms) costs more than it saves.
const LEAST_BYTES_PER_JOB = 16 * 1024 * 1024;

/**
 * Replay's speed-up, which `replay` is handed: a regular file read for one agent's JSON rules by
 * worker threads at once (parallel.ts, README.md), passing over the blocks of lines that could not
 * change the pin. It buys replay's figure: 1 GB within 1.5x `grep -c` (one thread reading every
 * line is several times that). `jobs`: threads, default one per CPU (at most 8), each with at
 * least 16 MB; fewer than 2, and files it cannot pass over lines of, are left to the capture.
 * Undefined with SESSIONPIN_NO_FAST=1.
 */
export function parallelReader(jobs?: number, env: NodeJS.ProcessEnv = process.env): FileReader | undefined {
  if (!fastPaths(env)) return undefined;
  return {
    async read(file, extractor, onLine) {
      // Text rules read every line: a row may hold half an ID.
      if (extractor.plugin.text.length > 0) return false;
      const stretches = jobs ?? Math.min(availableParallelism(), MOST_AUTO_JOBS, Math.floor(file.size / LEAST_BYTES_PER_JOB));
      if (stretches < 2) return false;
      await scavengeAlone();
      await readInParallel(file, extractor, stretches, onLine);
      return true;
    },
  };
}

/**
 * A worker fills its 2 MB young generation about once per MB read. V8 scavenges it with helper
 * threads too, and while other work holds the cores, a worker waits for helpers that are not
 * running: scavenging on the worker's own thread made replay 1.10x faster busy and changed nothing
 * quiet (bench/README.md). Pretenuring off: a worker makes little garbage, much of what a scavenge
 * finds alive is the read in hand, and V8 took to allocating such objects in the old generation,
 * where they piled up until a full collection (the peak 78 → 85 MB at 2 GB, more the longer the
 * file); off, the peak stayed at 78 MB in the same time. Both are read at each scavenge.
 */
async function scavengeAlone(): Promise<void> {
  const v8 = await import("node:v8");
  v8.setFlagsFromString("--no-parallel-scavenge");
  v8.setFlagsFromString("--no-allocation-site-pretenuring");
}
