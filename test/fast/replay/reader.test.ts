import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { agents } from "../../../src/agents/registry.js";
import type { Line } from "../../../src/engine/capture/line.js";
import { Capture } from "../../../src/engine/capture/pipeline.js";
import { Extractor } from "../../../src/engine/extract.js";
import { parallelReader } from "../../../src/fast/replay/reader.js";
import { ROOT } from "../../helpers/sandbox.js";
import { useTempDir } from "../../pointer/tempdir.js";
import { TRAPS } from "../traps.js";

const tmp = useTempDir();

/** The worker threads start from the build's scan-worker.js, so the reader that starts them is the build's. */
const built = (): Promise<typeof import("../../../src/fast/replay/reader.js")> => import(join(ROOT, "dist/fast/replay/reader.js"));

const A = "T-019cbd80-4c4f-79af-bee4-8834a30bbd19";
const B = "T-019cbd80-4c4f-79af-bee4-8834a30bbd20";
const user = (id: string, k: number): string => `{"type":"user","message":{"role":"user","content":[{"type":"text","text":"turn ${k}"}]},"session_id":"${id}"}\n`;
const result = (id: string): string => `{"type":"result","subtype":"success","is_error":false,"result":"ok","session_id":"${id}"}\n`;

/** A long Amp stream-json session: A, confirmed, then B, confirmed, with many lines naming each. */
function ampStream(): string {
  const part = (id: string): string => Array.from({ length: 3000 }, (_, k) => user(id, k)).join("") + result(id);
  return part(A) + part(B) + Array.from({ length: 3000 }, (_, k) => user(B, k)).join("");
}

/** What the pins were, read by `read` or, without it, by one capture of the whole file. */
function pinsOf(extractor: Extractor): { pins: string[]; onLine: (line: Line) => void } {
  const pins: string[] = [];
  return { pins, onLine: (line) => void pins.push(...extractor.line(line).events.map((e) => `${line.n} ${e.kind} ${e.pinned.id} ${e.pinned.state}`)) };
}

describe("parallelReader", () => {
  it("SESSIONPIN_NO_FAST=1 hands replay no fast reader, and text rules are left to the capture", async () => {
    expect(parallelReader(2, { SESSIONPIN_NO_FAST: "1" })).toBeUndefined();
    const reader = parallelReader(2, {});
    const path = join(tmp.path, "text-rules");
    writeFileSync(path, TRAPS.repeat(Math.ceil(100_000 / TRAPS.length)));
    const file = { path, size: 100_000, width: 0, progress: () => undefined };
    expect(await reader?.read(file, new Extractor(agents.claude), () => undefined)).toBe(false);
  });

  it("leaves to the capture a file too small for two threads of 16 MB, or one thread asked for", async () => {
    const path = join(tmp.path, "small.jsonl");
    writeFileSync(path, ampStream());
    const lines: Line[] = [];
    const file = { path, size: 1024 * 1024, width: 0, progress: () => undefined };
    expect(await parallelReader(undefined, {})?.read(file, new Extractor(agents.amp), (line) => void lines.push(line))).toBe(false);
    expect(await parallelReader(1, {})?.read(file, new Extractor(agents.amp), (line) => void lines.push(line))).toBe(false);
    expect(lines).toEqual([]);
  });

  it("reads a file of JSON rules in worker threads, to the pins one capture of it finds", async () => {
    const text = ampStream();
    const path = join(tmp.path, "amp.jsonl");
    writeFileSync(path, text);
    const whole = pinsOf(new Extractor(agents.amp));
    const capture = new Capture();
    capture.push(Buffer.from(text), whole.onLine);
    capture.end(whole.onLine);
    expect(whole.pins).toEqual([`1 captured ${A} provisional`, `3001 confirmed ${A} confirmed`, `3002 changed ${B} provisional`, `6002 confirmed ${B} confirmed`]);

    const { parallelReader: builtReader } = await built();
    // The caller feeds the extractor the lines, as replay does: the reader asks it for the pin held.
    const extractor = new Extractor(agents.amp);
    const fast = pinsOf(extractor);
    let delivered = 0;
    const file = { path, size: Buffer.byteLength(text), width: 0, progress: () => undefined };
    expect(await builtReader(3, {})?.read(file, extractor, (line) => {
      delivered++;
      fast.onLine(line);
    })).toBe(true);
    expect(fast.pins).toEqual(whole.pins);
    // Not a read of every line: runs naming the confirmed pin were passed over.
    expect(delivered).toBeLessThan(9002 / 2);
  });
});
