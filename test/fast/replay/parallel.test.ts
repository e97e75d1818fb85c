import { closeSync, mkdtempSync, openSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { Extractor } from "../../../src/engine/extract.js";
import { agents } from "../../../src/agents/registry.js";
import { relevanceRules } from "../../../src/fast/replay/clues.js";
import type { AgentPlugin } from "../../../src/agents/types.js";
import type { Line } from "../../../src/engine/capture/line.js";
import { Capture } from "../../../src/engine/capture/pipeline.js";
import { readBlocks, RangeReader, type StretchScan } from "../../../src/fast/replay/parallel.js";
import { stretchStarts } from "../../../src/fast/replay/ranges.js";
import { scanStretch, type ScanMessage } from "../../../src/fast/replay/stretch.js";
import { seeded } from "../../helpers/random.js";
import { splitKeyRuns, transcript } from "../../helpers/transcript.js";

/**
 * Reading a file in stretches (blocks found from bytes alone, skipped or read in order by the
 * pin held by then) must deliver the lines the one-pass capture delivers, but for blocks passed
 * over: same numbers, offsets and text, so the same pins. The worker threads themselves run in the CLI tests.
 */
const dir = mkdtempSync(join(tmpdir(), "sessionpin-parallel-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

interface Outcome {
  readonly lines: string[];
  readonly pins: string[];
}

function recorder(extractor: Extractor): Outcome & { onLine: (line: Line) => void } {
  const lines: string[] = [];
  const pins: string[] = [];
  return {
    lines,
    pins,
    onLine(line) {
      lines.push(`${line.n} ${line.offset} ${line.text.slice(0, 80)}`);
      for (const event of extractor.line(line).events) pins.push(`${line.n} ${event.kind} ${event.pinned.id} ${event.pinned.state}`);
    },
  };
}

function oneRead(plugin: AgentPlugin, bytes: Buffer): Outcome {
  const extractor = new Extractor(plugin);
  const seen = recorder(extractor);
  const capture = new Capture();
  capture.push(bytes, seen.onLine);
  capture.end(seen.onLine);
  return seen;
}

/** The lines of one read that a read in stretches delivered too: it may pass over lines, never change one. */
function readOf(whole: Outcome, parts: Outcome): string[] {
  const delivered = new Set(parts.lines);
  return whole.lines.filter((line) => delivered.has(line));
}

async function inStretches(plugin: AgentPlugin, path: string, size: number, count: number): Promise<Outcome & { skipped: number }> {
  const extractor = new Extractor(plugin);
  const seen = recorder(extractor);
  const fd = openSync(path, "r");
  try {
    const starts = stretchStarts(fd, size, count);
    let skipped = 0;
    const scans: StretchScan[] = starts.map((start, i) => {
      const messages: ScanMessage[] = [];
      scanStretch({ path, start, end: starts[i + 1], rules: relevanceRules(plugin) }, (message) => messages.push(message));
      skipped += messages.flatMap((m) => m.blocks).filter((block) => block.skip !== undefined).length;
      return { next: async () => messages.shift() ?? Promise.reject(new Error("no more messages")) };
    });
    await readBlocks(new RangeReader(fd, extractor, seen.onLine), scans, () => undefined);
    return { ...seen, skipped };
  } finally {
    closeSync(fd);
  }
}

describe("reading a file in stretches", () => {
  it("delivers the lines and pins of one read, wherever the file is cut", async () => {
    const random = seeded(23);
    let skipped = 0;
    for (let round = 0; round < 8; round++) {
      for (const plugin of [agents.amp, agents.cursor, agents.omp]) {
        const bytes = transcript(random, 600_000 + Math.floor(random() * 1_500_000), plugin === agents.amp ? "T-" : "");
        const path = join(dir, `t${round}-${plugin.name}.raw`);
        writeFileSync(path, bytes);
        const whole = oneRead(plugin, bytes);
        expect(whole.pins.length, `${plugin.name}, round ${round}`).toBeGreaterThan(0);
        for (const count of [1, 2, 3 + Math.floor(random() * 6)]) {
          const parts = await inStretches(plugin, path, bytes.length, count);
          expect(parts.pins, `${plugin.name}, round ${round}, ${count} stretches`).toEqual(whole.pins);
          expect(parts.lines, `${plugin.name}, round ${round}, ${count} stretches`).toEqual(readOf(whole, parts));
          skipped += parts.skipped;
        }
      }
    }
    // Not a test that passes by reading everything: most of the file was passed over in blocks.
    expect(skipped).toBeGreaterThan(100);
  });

  it("never passes over a line whose key a colour code splits, wherever the reads end", async () => {
    const bytes = splitKeyRuns(seeded(37), 40, "T-");
    const path = join(dir, "split-keys.raw");
    writeFileSync(path, bytes);
    const whole = oneRead(agents.amp, bytes);
    expect(whole.pins.length).toBeGreaterThan(40);
    for (const count of [1, 3]) {
      const parts = await inStretches(agents.amp, path, bytes.length, count);
      expect(parts.skipped).toBeGreaterThan(20);
      expect(parts.pins, `${count} stretches`).toEqual(whole.pins);
    }
  });

  it("reads the rows of a JSON line a screen snapshot wrapped, wherever the file is cut", async () => {
    const random = seeded(47);
    // A snapshot's rows: the line cut every 67 columns, each row ended by CRLF, as agentapi keeps them.
    const wrapped = (line: string): string => (line.match(/.{1,67}/g) ?? []).join("\r\n") + "\r\n";
    const [a, b, c] = ["a", "b", "c"].map((letter) => `T-${letter.repeat(8)}-1111-2222-3333-444444444444`) as [string, string, string];
    const runOf = (id: string): string => transcript(random, 200_000, "T-").toString("latin1").replace(/T-[0-9a-f-]{36}/g, id);
    // TUI rows naming no thread: a block to pass over, right after the rows.
    const rows = Array.from({ length: 3000 }, (_, k) => `\x1b[${1 + (k % 20)};1H\x1b[36m│\x1b[0m working on it\r\n`).join("");
    const bytes = Buffer.from([
      runOf(a),
      wrapped(`{"type":"system","subtype":"init","cwd":"/home/coder/project","session_id":"${b}","tools":["Bash"]}`),
      rows,
      runOf(b),
      wrapped(`{"type":"assistant","message":{"text":"${"read the tests ".repeat(12)}"},"session_id":"${c}"}`),
      rows,
      runOf(c),
    ].join(""), "latin1");
    const path = join(dir, "wrapped.raw");
    writeFileSync(path, bytes);
    const whole = oneRead(agents.amp, bytes);
    expect(whole.pins.filter((pin) => pin.includes(" changed "))).toEqual([expect.stringContaining(b), expect.stringContaining(c)]);
    for (const count of [1, 2, 5]) {
      const parts = await inStretches(agents.amp, path, bytes.length, count);
      expect(parts.pins, `${count} stretches`).toEqual(whole.pins);
      expect(parts.lines, `${count} stretches`).toEqual(readOf(whole, parts));
      // The rows' next lines were found in blocks to pass over (3000 TUI rows each time).
      expect(parts.skipped, `${count} stretches`).toBeGreaterThanOrEqual(2);
    }
  });
});
