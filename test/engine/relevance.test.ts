import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { definePlugin } from "../../src/agents/declarative.js";
import { Extractor } from "../../src/engine/extract.js";
import { agents } from "../../src/agents/registry.js";
import type { AgentPlugin } from "../../src/agents/types.js";
import { Capture } from "../../src/engine/capture/pipeline.js";
import { ControlScan } from "../../src/replay/fast/control-scan.js";
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

// One for every call: a scan's result is read before the next scan, and instances are slow to make.
const scanner = new ControlScan();

/** `scanned`: filtered, with the control bytes found per chunk in WebAssembly, as `run` does. */
function pinEvents(plugin: AgentPlugin, chunks: readonly Buffer[], filtered: boolean | "scanned"): { events: string[]; read: number } {
  const extractor = new Extractor(plugin, undefined, 67);
  const controls = filtered === "scanned" ? { controls: scanner } : {};
  const capture = new Capture(filtered ? { wanted: (bytes, mayHaveControls) => extractor.mayChange(bytes, mayHaveControls), ...controls } : {});
  const events: string[] = [];
  let read = 0;
  const onLine = (line: Parameters<Extractor["line"]>[0]): void => {
    read++;
    for (const event of extractor.line(line).events) events.push(`${line.n} ${event.kind} ${event.pinned.id} ${event.pinned.state}`);
  };
  for (const chunk of chunks) capture.push(chunk, onLine);
  capture.end(onLine);
  return { events, read };
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
