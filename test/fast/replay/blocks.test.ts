import { describe, expect, it } from "vitest";
import { agents } from "../../../src/agents/registry.js";
import type { AgentPlugin } from "../../../src/agents/types.js";
import type { Block } from "../../../src/fast/replay/block.js";
import { MAX_LINE_BYTES } from "../../../src/engine/capture/lines.js";
import { BlockScanner } from "../../../src/fast/replay/blocks.js";
import { relevanceRules } from "../../../src/fast/replay/clues.js";
import { seeded } from "../../helpers/random.js";
import { splitKeyRuns, transcript } from "../../helpers/transcript.js";

/** Amp's stream-json lines, shaped as fixtures/amp/stream-basic/input.jsonl records them. */
const A = "T-019cbd80-4c4f-79af-bee4-8834a30bbd19";
const B = "T-019cbd80-4c4f-79af-bee4-8834a30bbd20";
const init = (id: string): string => `{"type":"system","subtype":"init","cwd":"/p","session_id":"${id}","tools":[],"mcp_servers":[]}\n`;
const user = (id: string, k: number): string => `{"type":"user","message":{"role":"user","content":[{"type":"text","text":"turn ${k} ${"w".repeat(150)}"}]},"parent_tool_use_id":null,"session_id":"${id}"}\n`;
const result = (id: string): string => `{"type":"result","subtype":"success","is_error":false,"num_turns":1,"result":"ok","session_id":"${id}"}\n`;
const noise = (k: number): string => `plain text line ${k} ${"n".repeat(150)}\n`;
const many = (count: number, line: (k: number) => string): string => Array.from({ length: count }, (_, k) => line(k)).join("");

function scan(text: string, start = 0, plugin: AgentPlugin = agents.amp): { blocks: Block[]; lines: number; scannedTo: number } {
  const scanner = new BlockScanner(relevanceRules(plugin), start);
  scanner.push(Buffer.from(text, "latin1"));
  scanner.end();
  return { blocks: scanner.take(), lines: scanner.lines, scannedTo: scanner.scannedTo };
}

describe("BlockScanner", () => {
  it("passes over runs of lines that name the guessed ID, and says which of them may confirm it", () => {
    const head = init(A);
    const quiet = many(600, (k) => user(A, k));
    const confirming = result(A);
    const text = head + quiet + confirming + many(600, (k) => user(A, 600 + k));
    expect(scan(text)).toEqual({
      blocks: [
        { start: 0, before: 0 },
        { start: head.length, before: 1, skip: { value: A, mayConfirm: false } },
        // The line that confirms the guess is read; once confirmed, any line naming it may confirm it again.
        { start: head.length + quiet.length, before: 601 },
        { start: head.length + quiet.length + confirming.length, before: 602, skip: { value: A, mayConfirm: true } },
      ],
      lines: 1202,
      scannedTo: text.length,
    });
  });

  it("passes over lines naming no ID as a block with no value, and reads a line naming another ID", () => {
    const head = init(A) + many(400, noise);
    const other = init(B);
    const text = head + other + many(400, noise);
    expect(scan(text, 1000).blocks).toEqual([
      { start: 1000, before: 0 },
      { start: 1000 + init(A).length, before: 1, skip: { mayConfirm: false } },
      { start: 1000 + head.length, before: 401 },
      { start: 1000 + head.length + other.length, before: 402, skip: { mayConfirm: false } },
    ]);
  });

  it("reads a run too short to be worth passing over, and a partial last line", () => {
    const short = init(A) + many(10, (k) => user(A, k)) + init(B);
    expect(scan(short).blocks).toEqual([{ start: 0, before: 0 }]);
    const cut = init(A) + many(400, noise) + user(A, 0).slice(0, 40);
    const blocks = scan(cut).blocks;
    expect(blocks.at(-1)).toEqual({ start: cut.length - 40, before: 401 });
  });

  it("reads a line cut at the line limit even when it names the guessed ID: its end is lost", () => {
    const head = init(A) + many(400, noise);
    // Cut where its first MAX_LINE_BYTES end, it looks like a whole object naming A.
    const kept = `{"type":"user","session_id":"${A}","text":"`;
    const overlong = `${kept}${"x".repeat(MAX_LINE_BYTES - kept.length - 2)}"},"more":"${"y".repeat(1000)}"}\n`;
    const text = head + overlong + many(400, noise);
    expect(scan(text).blocks).toEqual([
      { start: 0, before: 0 },
      { start: init(A).length, before: 1, skip: { mayConfirm: false } },
      { start: head.length, before: 401 },
      { start: head.length + overlong.length, before: 402, skip: { mayConfirm: false } },
    ]);
  });

  it("finds the same blocks however the bytes arrive: byte runs, a whole 64 KiB read, more than one scan takes", () => {
    const random = seeded(29);
    let skipped = 0;
    const blocks = (plugin: AgentPlugin, chunks: Buffer[]): { blocks: Block[]; lines: number } => {
      const scanner = new BlockScanner(relevanceRules(plugin), 0);
      for (const chunk of chunks) scanner.push(chunk);
      scanner.end();
      return { blocks: scanner.take(), lines: scanner.lines };
    };
    for (const [plugin, bytes] of [agents.amp, agents.cursor, agents.omp].flatMap((plugin) => {
      const prefix = plugin === agents.amp ? "T-" : "";
      return [[plugin, transcript(random, 1_000_000, prefix)], [plugin, splitKeyRuns(random, 20, prefix)]] as const;
    })) {
      const reads = Array.from({ length: Math.ceil(bytes.length / 65536) }, (_, k) => bytes.subarray(k * 65536, (k + 1) * 65536));
      const expected = blocks(plugin, reads);
      skipped += expected.blocks.filter((block) => block.skip !== undefined).length;
      const chunks: Buffer[] = [];
      for (let at = 0, size = 0; at < bytes.length; at += size) {
        size = 1 + Math.floor(random() * (random() < 0.5 ? 16 : 8192));
        chunks.push(bytes.subarray(at, at + size));
      }
      const got = blocks(plugin, chunks);
      expect(got.lines, plugin.name).toBe(expected.lines);
      for (let k = 0; k < Math.max(got.blocks.length, expected.blocks.length); k++) expect(got.blocks[k], `${plugin.name} block ${k}`).toEqual(expected.blocks[k]);
      expect(blocks(plugin, [bytes]), plugin.name).toEqual(expected);
    }
    expect(skipped).toBeGreaterThan(20);
  });
});
