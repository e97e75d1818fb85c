import { closeSync, mkdtempSync, openSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { agents } from "../../src/agents/registry.js";
import type { AgentPlugin } from "../../src/agents/types.js";
import type { Line } from "../../src/engine/capture/line.js";
import { Capture } from "../../src/engine/capture/pipeline.js";
import { Extractor } from "../../src/engine/extract.js";
import { BlockScanner } from "../../src/fast/replay/blocks.js";
import { relevanceRules } from "../../src/fast/replay/clues.js";
import { readBlocks, RangeReader, type StretchScan } from "../../src/fast/replay/parallel.js";
import { RANGE_READ_BYTES, stretchStarts } from "../../src/fast/replay/ranges.js";
import { scanStretch, type ScanMessage } from "../../src/fast/replay/stretch.js";
import { randomChunks, seeded } from "../helpers/random.js";
import { ROOT } from "../helpers/sandbox.js";
import { lookAlikeRuns, splitKeyRuns, transcript } from "../helpers/transcript.js";
import { LONG, NESTED_TRAPS, nested, TRAPS } from "./traps.js";

/**
 * The simple path is the reference: every speed-up under src/fast/ must give exactly its results.
 * Inputs: every recorded output in the repository (fixtures/), outputs made to fool a byte-level
 * test (traps.ts), each cut at random places, inside escape sequences and UTF-8 characters too.
 */
const FIXTURES = join(ROOT, "fixtures");
const dir = mkdtempSync(join(tmpdir(), "sessionpin-equivalence-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const inputs: ReadonlyArray<readonly [string, Buffer]> = [
  ...readdirSync(FIXTURES, { recursive: true, encoding: "utf8" })
    .filter((path) => /(^|\/)input\.[a-z]+$/.test(path))
    .sort()
    .map((path) => [path, readFileSync(join(FIXTURES, path))] as const),
  ["traps", Buffer.from(TRAPS)],
  ["nested traps", Buffer.from(NESTED_TRAPS)],
  ["long", Buffer.from(LONG)],
];
// Plugins the fast replay takes: JSON rules alone (text rules read every line).
const fastPlugins = [...Object.values(agents), nested].filter((plugin) => plugin.text.length === 0);
const WIDTH = 67;

interface Read {
  /** Each line delivered: number, offset, text, whether it parsed as JSON or was cut. */
  readonly lines: string[];
  /** Each pin event, with the line it came from. */
  readonly pins: string[];
  /** What was pinned at the end. */
  readonly pinned: string;
}

function follow(plugin: AgentPlugin): Read & { readonly extractor: Extractor; onLine: (line: Line) => void } {
  const extractor = new Extractor(plugin, undefined, WIDTH);
  const lines: string[] = [];
  const pins: string[] = [];
  return {
    extractor,
    lines,
    pins,
    get pinned() {
      return JSON.stringify(extractor.tracker.current ?? null);
    },
    onLine(line) {
      lines.push(`${line.n} ${line.offset} ${line.cut ? "cut" : line.json ? "json" : "text"} ${JSON.stringify(line.text)}`);
      for (const event of extractor.line(line).events) pins.push(`${line.n} ${event.kind} ${JSON.stringify(event.pinned)}`);
    },
  };
}

/** The simple path: one capture, as `run` and replay without speed-ups read. */
function simple(plugin: AgentPlugin, chunks: readonly Buffer[]): Read {
  const read = follow(plugin);
  const capture = new Capture({ width: WIDTH });
  for (const chunk of chunks) capture.push(chunk, read.onLine);
  capture.end(read.onLine);
  return read;
}

/** Reads of 1 byte up to more than one ByteScan takes (64 KiB). */
function anySizes(bytes: Buffer, random: () => number): Buffer[] {
  const chunks: Buffer[] = [];
  for (let at = 0, size = 0; at < bytes.length; at += size) {
    const kind = random();
    size = 1 + Math.floor(random() * (kind < 0.3 ? 16 : kind < 0.9 ? 8192 : 100_000));
    chunks.push(bytes.subarray(at, at + size));
  }
  return chunks;
}

/** How a stretch [start, end) of the file at `path` (`bytes`) is scanned into blocks. */
type Scan = (plugin: AgentPlugin, path: string, bytes: Buffer, start: number, end: number) => ScanMessage[];

/** From reads of random sizes, 1 byte to more than one ByteScan takes. */
const randomReads = (random: () => number): Scan => (plugin, _path, bytes, start, end) => {
  const scanner = new BlockScanner(relevanceRules(plugin), start);
  for (const chunk of anySizes(bytes.subarray(start, end), random)) scanner.push(chunk);
  scanner.end();
  return [{ kind: "done", blocks: scanner.take(), lines: scanner.lines, end }];
};

/** As a worker thread scans it: reads of 64 KiB, each ending after its last line feed. */
const workerReads: Scan = (plugin, path, _bytes, start, end) => {
  const messages: ScanMessage[] = [];
  scanStretch({ path, start, end, rules: relevanceRules(plugin) }, (message) => messages.push(message));
  return messages;
};

/**
 * Replay's fast path, in this thread: the file cut into `stretches`, each scanned into blocks,
 * then the blocks read or passed over.
 */
async function fast(plugin: AgentPlugin, path: string, bytes: Buffer, stretches: number, scan: Scan): Promise<Read & { skipped: number }> {
  const read = follow(plugin);
  const fd = openSync(path, "r");
  try {
    let skipped = 0;
    const starts = stretchStarts(fd, bytes.length, stretches);
    const scans: StretchScan[] = starts.map((start, i) => {
      const messages = scan(plugin, path, bytes, start, starts[i + 1] ?? bytes.length);
      skipped += messages.flatMap((message) => message.blocks).filter((block) => block.skip !== undefined).length;
      return { next: async () => messages.shift() ?? Promise.reject(new Error("no more messages")) };
    });
    // The reader judges blocks by the pin of the extractor the lines are fed to.
    await readBlocks(new RangeReader(fd, read.extractor, read.onLine, WIDTH), scans, () => undefined);
    return { lines: read.lines, pins: read.pins, pinned: read.pinned, skipped };
  } finally {
    closeSync(fd);
  }
}

/** `bytes` again and again, to at least `size`: one pin held over long runs of lines, as in a long session. */
function repeated(bytes: Buffer, size: number): Buffer {
  return Buffer.concat(Array<Buffer>(Math.max(1, Math.ceil(size / Math.max(bytes.length, 1)))).fill(bytes));
}

/**
 * The fast path must give the simple path's pins and final pin, and each line it delivers must be
 * the simple path's line of that number: it may pass over lines, never change one. Returns how
 * many blocks the scan offered to pass over, and how many lines the reader delivered.
 */
async function expectSimple(plugin: AgentPlugin, path: string, bytes: Buffer, stretches: number, scan: Scan, reference: Read, label: string): Promise<{ skipped: number; delivered: number }> {
  const read = await fast(plugin, path, bytes, stretches, scan);
  expect(read.pins, label).toEqual(reference.pins);
  expect(read.pinned, label).toBe(reference.pinned);
  const numbered = new Map(reference.lines.map((line) => [line.slice(0, line.indexOf(" ")), line]));
  for (const line of read.lines) expect(line, label).toBe(numbered.get(line.slice(0, line.indexOf(" "))));
  return { skipped: read.skipped, delivered: read.lines.length };
}

describe("the simple path is the reference", () => {
  it("run's capture: every recorded output cut anywhere gives the lines of one read", () => {
    const random = seeded(51);
    for (const [name, bytes] of inputs) {
      const once = simple(agents.amp, [bytes]).lines;
      for (let round = 0; round < 3; round++) expect(simple(agents.amp, randomChunks(bytes, random)).lines, `${name}, round ${round}`).toEqual(once);
    }
  });

  it("replay's fast path: the simple path's pins and lines, for every plugin it takes, wherever stretches and reads fall", async () => {
    const random = seeded(53);
    let skipped = 0;
    for (const [index, [name, bytes]] of inputs.entries()) {
      // Long enough for blocks worth passing over (32 KiB and more).
      const long = repeated(bytes, 100_000);
      const path = join(dir, `input-${index}`);
      writeFileSync(path, long);
      for (const plugin of fastPlugins) {
        const reference = simple(plugin, [long]);
        const stretches = 1 + Math.floor(random() * 5);
        skipped += (await expectSimple(plugin, path, long, stretches, randomReads(random), reference, `${name} (${long.length} bytes), ${plugin.name}, ${stretches} stretches`)).skipped;
      }
    }
    // Not a test that passes by reading everything: many blocks were passed over.
    expect(skipped).toBeGreaterThan(200);
  }, 240_000);

  it("replay's fast path: the same on every recorded output end to end, and on made ones where pins change", async () => {
    const random = seeded(57);
    // Each output twice: its second time is a run of lines naming the pin the first one left.
    // Then made runs where the thread changes in the ways a byte-level guess can get wrong.
    const made = [transcript(random, 1_500_000, "T-"), transcript(random, 1_500_000, ""), splitKeyRuns(random, 20, "T-")];
    const all = Buffer.concat([...inputs.flatMap(([, bytes]) => [bytes, bytes]), ...made]);
    const path = join(dir, "all");
    writeFileSync(path, all);
    let skipped = 0;
    for (const plugin of fastPlugins) {
      const reference = simple(plugin, [all]);
      for (const stretches of [1, 2 + Math.floor(random() * 6)]) {
        skipped += (await expectSimple(plugin, path, all, stretches, randomReads(random), reference, `${plugin.name}, ${stretches} stretches`)).skipped;
      }
    }
    expect(skipped).toBeGreaterThan(20);
  }, 240_000);

  it("replay's fast path: a thread whose bytes look confirmed long before its `result` is still confirmed there, wherever the reads end", async () => {
    const random = seeded(59);
    // After a line that looks confirming, a worker marks the lines naming the thread "may confirm"
    // (block.ts), and the reader must read them while the thread is provisional. Which of the
    // scanner's two ways finds those lines depends on where a worker's reads end, so each way
    // gets a file: a stretch's first read starts at 0.
    const layouts = [
      // The look-alike ends the first read: the skim passes over every line after it.
      ["look-alike ending a read", lookAlikeRuns(random, [{ before: RANGE_READ_BYTES, after: 3 * RANGE_READ_BYTES }])],
      // The look-alike, 40 KB after it, the result and the next run's init, all in the first
      // read: each line is looked at on its own. Then a run with a long provisional stretch first.
      ["look-alike inside a read", lookAlikeRuns(random, [{ before: 2_000, after: 40_000 }, { before: 100_000, after: 100_000 }])],
    ] as const;
    for (const [name, bytes] of layouts) {
      const path = join(dir, name.replaceAll(" ", "-"));
      writeFileSync(path, bytes);
      const reference = simple(agents.amp, [bytes]);
      // Each run's thread is confirmed by its result line (the last of the run), and by nothing before it.
      const results = bytes.toString("latin1").split("\n").flatMap((line, k) => (line.startsWith(`{"type":"result"`) ? [k + 1] : []));
      expect(reference.pins.filter((pin) => pin.includes(" confirmed ")).map((pin) => Number(pin.split(" ")[0])), name).toEqual(results);
      for (const stretches of [1, 2, 3]) {
        for (const [reads, scan] of [["worker reads", workerReads], ["random reads", randomReads(random)]] as const) {
          const { delivered } = await expectSimple(agents.amp, path, bytes, stretches, scan, reference, `${name}, ${stretches} stretches, ${reads}`);
          // Not a test that passes by reading everything: the provisional lines before the
          // look-alike, which cannot confirm, were passed over.
          expect(delivered, `${name}, ${stretches} stretches, ${reads}`).toBeLessThan(reference.lines.length);
        }
      }
    }
  });
});
