import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { definePlugin } from "../../src/agents/declarative.js";
import { Extractor } from "../../src/engine/extract.js";
import { agents } from "../../src/agents/registry.js";
import type { AgentPlugin } from "../../src/agents/types.js";
import { Capture, type LinesBytes } from "../../src/engine/capture/pipeline.js";
import { ControlScan } from "../../src/engine/capture/control-scan.js";
import { randomChunks, seeded } from "../helpers/random.js";

/**
 * The skip test must never change what is pinned: every recorded output and a stream of traps,
 * through the capture with and without it, in random chunkings, must give the same pin events.
 */
const FIXTURES = join(import.meta.dirname, "../../fixtures");

const A = "T-0a1b2c3d-0000-4000-8000-00000000000a";
const B = "T-0a1b2c3d-0000-4000-8000-00000000000b";
const C = "T-0a1b2c3d-0000-4000-8000-00000000000c";

// Each line is a way a byte-level test could be fooled into skipping a line that matters.
const TRAPS = [
  "Welcome to Amp {beta}",
  `{"type":"system","subtype":"init","session_id":"${A}"}`,
  `{"type":"assistant","message":{"text":"same thread"},"session_id":"${A}"}`,
  // The key spelled with a JSON escape: a fork to B.
  `{"type":"assistant","\\u0073ession_id":"${B}"}`,
  // Back to A right after, in the same chunk: the test must see B pinned by now.
  `{"type":"user","session_id":"${A}"}`,
  // The value with an escape, naming C.
  `{"type":"user","session_id":"T-0a1b2c3d-0000-4000-8000-00000000000\\u0063"}`,
  `{"type":"user","session_id":"${C}"}`,
  // The key only inside message text: nothing to take, whatever it says.
  `{"type":"assistant","text":"the \\"session_id\\":\\"${A}\\" of yesterday","session_id":"${C}"}`,
  // Colour codes inside the key: cleaning joins it, and it names A.
  `{"type":"assistant","sess\x1b[1mion_id":"${A}"}`,
  // A deeper key with another ID: the rule reads the top level only, but only a parse knows that.
  `{"type":"assistant","session_id":"${A}","tool":{"session_id":"${B}"}}`,
  // The pinned ID again, now in a line that confirms it.
  `\x1b[32m{"type":"result","session_id":"${A}"}\x1b[0m`,
  `{"type":"result","session_id":"${A}"}`,
  `{"type":"assistant","session_id":null}`,
  `{"type":"assistant","session_id":"${B}"`,
  "{not json at all}",
].join("\r\n") + "\r\n";

// A user plugin reading a nested field, confirmed by an event name: the other shape of JSON rule.
// Its grammar takes any text, escapes included.
const nested = definePlugin({
  name: "nested",
  names: ["nested"],
  grammar: ".+",
  json: [
    { name: "hello", field: "session.id", when: { event: ["hello"] }, state: "provisional" },
    { name: "done", field: "session.id", when: { event: ["turn.done", "turn/done"] }, state: "confirmed" },
  ],
  resume: ["{args}", "--resume", "{id}"],
});
const NESTED_TRAPS = [
  `{"event":"hello","session":{"id":"${A}"}}`,
  `{"event":"turn.started","session":{"id":"${A}"}}`,
  // The allowed value with an escaped slash: "turn/done" confirms A.
  `{"event":"turn\\/done","session":{"id":"${A}"}}`,
  `{"event":"hello","session":{"id":"${B}"}}`,
  `{"event":"turn.done","session":{"id":"${B}"}}`,
  `{"event":"turn.done","session":{"id":"${B}"}}`,
  // An escape a byte test cannot read: a tab inside the ID.
  `{"event":"hello","session":{"id":"${B}\\t2"}}`,
].join("\n") + "\n";

// A stream-json run's shape at length, for the skim: the same thread on line after line, TUI rows
// with row moves, lone CRs and blank lines between (each counted as lines), and now and then a
// line whose bytes alone cannot tell: each of those must still be read, at its right line number.
const REPEATED = [
  `{"type":"assistant","message":{"content":[{"type":"text","text":"naïve café → ok"}]},"session_id":"${A}"}`,
  "\x1b[36m│\x1b[0m working \x1b[5;1H\x1b[1mstatus\x1b[0m",
  "\x1b[2K\r\x1b[33m⠋\x1b[0m thinking\rdone",
  "",
  "\x1bMup a row",
].join("\r\n");
const LONG = [
  `{"type":"system","subtype":"init","session_id":"${A}"}`,
  ...Array<string>(300).fill(REPEATED),
  `{"type":"assistant","\\u0073ession_id":"${B}"}`,
  ...Array<string>(20).fill(REPEATED),
  "\x1b[1m{not json}",
  ...Array<string>(20).fill(REPEATED),
  `{"type":"assistant","sess\x1b[1mion_id":"${B}"}`,
  ...Array<string>(100).fill(REPEATED.replaceAll(A, B)),
  `{"type":"assistant","session_id": "${C}"}`,
  ...Array<string>(100).fill(REPEATED.replaceAll(A, C)),
  `{"type":"assistant","session_id":"${C}","x":"\\u0041"}`,
  `{"type":"user","session_id":"${A}"}`,
  ...Array<string>(50).fill(REPEATED),
  `{"type":"result","subtype":"success",`,
  `"session_id":"${A}"}`,
  ...Array<string>(50).fill(REPEATED),
  `{"type":"result","session_id":"${A}"}`,
  ...Array<string>(50).fill(REPEATED),
  // Longer than capture holds behind the next read (16 KiB), and than one control scan (64 KiB).
  `{"type":"assistant","session_id":"${A}","text":"${"x".repeat(20_000)}"}`,
  ...Array<string>(20).fill(REPEATED),
  `\x1b[2J${Array<string>(1000).fill("\x1b[5;1Ha TUI row\x1b[0m\r").join("")}`,
  `{"type":"assistant","session_id":"${B}","text":"${"y".repeat(70_000)}"}`,
  ...Array<string>(20).fill(REPEATED.replaceAll(A, B)),
].join("\r\n") + "\r\n";

/** `bytes` cut at random places into pieces of up to 8 KiB: many whole lines per chunk, as a PTY reads them. */
function largeChunks(bytes: Buffer, random: () => number): Buffer[] {
  const chunks: Buffer[] = [];
  for (let at = 0; at < bytes.length;) {
    const size = 1 + Math.floor(random() * 8192);
    chunks.push(bytes.subarray(at, at + size));
    at += size;
  }
  return chunks;
}

// One for every call: a scan's result is read before the next scan, and instances are slow to make.
const scanner = new ControlScan();

/**
 * `scanned`: filtered, with the control bytes found per chunk in WebAssembly; `skimmed`: and runs
 * of whole lines offered to the skim first, as `run` does. `lines`: every line read, with its
 * number and offset; `skims`: how often lines were passed over.
 */
function pinEvents(
  plugin: AgentPlugin, chunks: readonly Buffer[], filtered: boolean | "scanned" | "skimmed", quietAfter?: () => boolean,
): { events: string[]; read: number; lines: string[]; skims: number } {
  const extractor = new Extractor(plugin, undefined, 67);
  let skims = 0;
  const skim = (lines: LinesBytes): boolean => {
    const quiet = !extractor.mayChangeAny(lines);
    if (quiet) skims++;
    return quiet;
  };
  const controls = filtered === "scanned" ? { controls: scanner } : filtered === "skimmed" ? { controls: scanner, skim } : {};
  const capture = new Capture(filtered ? { wanted: (bytes, mayHaveControls) => extractor.mayChange(bytes, mayHaveControls), ...controls } : {});
  const events: string[] = [];
  const lines: string[] = [];
  const onLine = (line: Parameters<Extractor["line"]>[0]): void => {
    lines.push(`${line.n} ${line.offset} ${line.text}`);
    for (const event of extractor.line(line).events) events.push(`${line.n} ${event.kind} ${event.pinned.id} ${event.pinned.state}`);
  };
  for (const chunk of chunks) {
    capture.push(chunk, onLine);
    // The output went quiet after this read, as `run`'s sink tells the capture.
    if (quietAfter?.()) capture.flush(onLine);
  }
  capture.end(onLine);
  return { events, read: lines.length, lines, skims };
}

function recordedOutputs(): Buffer[] {
  return readdirSync(FIXTURES, { recursive: true, encoding: "utf8" })
    .filter((path) => /(^|\/)input\.[a-z]+$/.test(path))
    .map((path) => readFileSync(join(FIXTURES, path)));
}

describe("skipping lines that cannot change the pin", () => {
  it("changes no pin event of any plugin on any recorded output, however it is chunked", () => {
    const outputs = [...recordedOutputs(), Buffer.from(TRAPS), Buffer.from(NESTED_TRAPS)];
    const random = seeded(41);
    for (const plugin of [...Object.values(agents), nested]) {
      for (const [index, output] of outputs.entries()) {
        const all = pinEvents(plugin, [output], false).events;
        expect(pinEvents(plugin, [output], true).events, `${plugin.name}, output ${index}`).toEqual(all);
        expect(pinEvents(plugin, [output], "scanned").events, `${plugin.name}, output ${index}, scanned`).toEqual(all);
        for (let round = 0; round < 5; round++) {
          expect(pinEvents(plugin, randomChunks(output, random), true).events, `${plugin.name}, output ${index}, round ${round}`).toEqual(all);
          if (round < 2) expect(pinEvents(plugin, randomChunks(output, random), "scanned").events, `${plugin.name}, output ${index}, round ${round}, scanned`).toEqual(all);
        }
      }
    }
  });

  it("finds the same pins when chunks are larger than one control scan, and reads the same lines", () => {
    const output = Buffer.concat([...recordedOutputs(), Buffer.from(TRAPS)]);
    expect(output.length).toBeGreaterThan(scanner.maxBytes);
    for (const plugin of [agents.amp, agents.claude, agents.codex, nested]) {
      expect(pinEvents(plugin, [output], "scanned").events, plugin.name).toEqual(pinEvents(plugin, [output], false).events);
    }
    const stream = readFileSync(join(FIXTURES, "amp/stream-basic/input.jsonl"));
    expect(pinEvents(agents.amp, [stream], "scanned").read).toBe(pinEvents(agents.amp, [stream], true).read);
  });

  it("passes over runs of lines only where reading each would change nothing: same pins, same lines read", () => {
    const outputs = [...recordedOutputs(), Buffer.from(TRAPS), Buffer.from(NESTED_TRAPS), Buffer.from(LONG)];
    const random = seeded(43);
    for (const plugin of [...Object.values(agents), nested]) {
      for (const [index, output] of outputs.entries()) {
        const all = pinEvents(plugin, [output], false).events;
        const scanned = pinEvents(plugin, largeChunks(output, random), "scanned");
        expect(scanned.events, `${plugin.name}, output ${index}, scanned`).toEqual(all);
        for (let round = 0; round < 2; round++) {
          const skimmed = pinEvents(plugin, largeChunks(output, random), "skimmed");
          expect(skimmed.events, `${plugin.name}, output ${index}, round ${round}`).toEqual(all);
          expect(skimmed.lines, `${plugin.name}, output ${index}, round ${round}`).toEqual(scanned.lines);
        }
        const flushed = pinEvents(plugin, largeChunks(output, random), "skimmed", () => random() < 0.3);
        expect(flushed.events, `${plugin.name}, output ${index}, flushed`).toEqual(all);
        expect(flushed.lines, `${plugin.name}, output ${index}, flushed`).toEqual(scanned.lines);
      }
    }
  });

  it("passes over most of a long stream-json run, and reads each line that could change the pin", () => {
    const output = Buffer.from(LONG);
    const full = pinEvents(agents.amp, [output], false);
    const chunks = largeChunks(output, seeded(44));
    const skimmed = pinEvents(agents.amp, chunks, "skimmed");
    expect(skimmed.events).toEqual(full.events);
    expect(full.events.map((event) => event.split(" ").slice(1, 3).join(" "))).toEqual([
      `captured ${A}`, `changed ${B}`, `changed ${A}`, `changed ${B}`, `changed ${C}`, `changed ${A}`, `confirmed ${A}`, `changed ${B}`,
    ]);
    expect(skimmed.skims).toBeGreaterThan(chunks.length / 2);
    expect(skimmed.read).toBeLessThan(full.read / 20);
  });

  it("reads a last line with no LF, held behind reads passed over whole, as if it may have control bytes", () => {
    // Its key is whole only once the escape inside it is cleaned away; the read it came in was
    // skimmed, never scanned for control bytes, and it reaches the filter only at the end.
    const head = Buffer.from(`${REPEATED}\r\n`);
    const skimmedWhole = Buffer.from(`${Array<string>(20).fill(REPEATED).join("\r\n")}\r\n{"type":"assistant","session\x1b[0m_id":"${B}"}`);
    const full = pinEvents(agents.amp, [head, skimmedWhole], false);
    expect(full.events.map((event) => event.split(" ").slice(1, 3).join(" "))).toEqual([`captured ${A}`, `changed ${B}`]);
    const skimmed = pinEvents(agents.amp, [head, skimmedWhole], "skimmed");
    expect(skimmed.skims).toBeGreaterThan(0);
    expect(skimmed.events).toEqual(full.events);
  });

  it("follows every trap as a full read does", () => {
    expect(pinEvents(agents.amp, [Buffer.from(TRAPS)], "scanned").events).toEqual(pinEvents(agents.amp, [Buffer.from(TRAPS)], true).events);
    expect(pinEvents(agents.amp, [Buffer.from(TRAPS)], true).events).toEqual([
      `2 captured ${A} provisional`,
      `4 changed ${B} provisional`,
      `5 changed ${A} provisional`,
      `6 changed ${C} provisional`,
      `9 changed ${A} provisional`,
      `11 confirmed ${A} confirmed`,
    ]);
    expect(pinEvents(nested, [Buffer.from(NESTED_TRAPS)], true).events).toEqual([
      `1 captured ${A} provisional`,
      `3 confirmed ${A} confirmed`,
      `4 changed ${B} provisional`,
      `5 confirmed ${B} confirmed`,
      `7 changed ${B}\t2 provisional`,
    ]);
  });

  it("reads only the lines that could matter from a stream-json run", () => {
    const output = readFileSync(join(FIXTURES, "amp/stream-basic/input.jsonl"));
    const full = pinEvents(agents.amp, [output], false);
    const skipping = pinEvents(agents.amp, [output], true);
    expect(skipping.events).toEqual(full.events);
    expect(skipping.read).toBeLessThan(full.read);
  });

  it("reads every line for plugins with text rules: a row may hold half an ID", () => {
    const output = Buffer.from(TRAPS);
    expect(pinEvents(agents.claude, [output], true).read).toBe(pinEvents(agents.claude, [output], false).read);
  });
});
