import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { agents } from "../../../src/agents/registry.js";
import { BlockScanner } from "../../../src/fast/replay/blocks.js";
import { relevanceRules } from "../../../src/fast/replay/clues.js";
import { scanStretch, type ScanMessage } from "../../../src/fast/replay/stretch.js";
import { useTempDir } from "../../pointer/tempdir.js";

const tmp = useTempDir();
const rules = relevanceRules(agents.amp);
const A = "T-019cbd80-4c4f-79af-bee4-8834a30bbd19";
const user = (k: number): string => `{"type":"user","message":{"role":"user","content":[{"type":"text","text":"turn ${k} ${"w".repeat(100)}"}]},"session_id":"${A}"}\n`;

/** An Amp stream of `lines` lines naming one thread: mostly blocks to pass over. */
function stream(lines: number): string {
  return Array.from({ length: lines }, (_, k) => user(k)).join("");
}

function scanned(path: string, start: number, end: number | undefined): ScanMessage[] {
  const messages: ScanMessage[] = [];
  scanStretch({ path, start, end, rules }, (message) => messages.push(message));
  return messages;
}

describe("scanStretch", () => {
  it("sends the blocks of its stretch, the last message done with its line count and where it ended", () => {
    const text = stream(2000);
    const path = join(tmp.path, "amp.jsonl");
    writeFileSync(path, text);
    const scanner = new BlockScanner(rules, 0);
    scanner.push(Buffer.from(text));
    scanner.end();
    expect(scanned(path, 0, undefined)).toEqual([{ kind: "done", blocks: scanner.take(), lines: 2000, end: text.length }]);
  });

  it("reads only [start, end), numbering lines from the stretch's start", () => {
    const text = stream(2000);
    const path = join(tmp.path, "amp.jsonl");
    writeFileSync(path, text);
    const start = stream(500).length;
    const end = stream(1500).length + 8;
    const messages = scanned(path, start, end);
    const done = messages.at(-1);
    expect(done).toMatchObject({ kind: "done", lines: 1001, end });
    expect(messages.flatMap((m) => m.blocks)[0]).toEqual({ start, before: 0 });
  });

  it("sends blocks in batches every 4 MiB read, so the reader need not wait for the whole stretch", () => {
    const text = stream(100_000);
    const path = join(tmp.path, "big.jsonl");
    writeFileSync(path, text);
    const messages = scanned(path, 0, undefined);
    expect(text.length).toBeGreaterThan(12 * 1024 * 1024);
    expect(messages.slice(0, -1).every((m) => m.kind === "blocks")).toBe(true);
    expect(messages.length).toBeGreaterThanOrEqual(3);
    expect(messages.at(-1)).toMatchObject({ kind: "done", lines: 100_000, end: text.length });
    const scanner = new BlockScanner(rules, 0);
    scanner.push(Buffer.from(text));
    scanner.end();
    expect(messages.flatMap((m) => m.blocks)).toEqual(scanner.take());
  });

  it("throws for a file it cannot open", () => {
    expect(() => scanned(join(tmp.path, "missing.jsonl"), 0, undefined)).toThrow(/ENOENT/);
  });
});
