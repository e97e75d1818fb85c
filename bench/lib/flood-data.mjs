/**
 * What the throughput child writes: 64 KiB blocks of agent-like output (Amp stream-json lines that
 * carry one thread ID, and coloured TUI rows with box drawing and UTF-8), the same bytes every
 * run, so the driver knows the expected length and hash without reading the child's copy.
 */
import { createHash } from "node:crypto";
import { seeded } from "../../test/helpers/seeded.mjs";

export const BLOCK = 64 * 1024;
export const FLOOD_ID = "T-019f3c4d-5e6f-7a8b-9c0d-1e2f3a4b5c6d";
const VARIANTS = 16;

const WORDS = ("the agent reads README.md and then edits src/capture/lines.ts to split rows on cursor " +
  "moves before it runs npm test again; build passed in 1.2s with 0 errors, 3 warnings — naïve café " +
  "résumé ✓ ✗ ⠋ ⠙ ⠹ … → ←").split(" ");

function sentence(r, words) {
  const out = [];
  for (let i = 0; i < words; i++) out.push(WORDS[Math.floor(r() * WORDS.length)]);
  return out.join(" ");
}

function line(r) {
  const kind = r();
  if (kind < 0.45) {
    const type = r() < 0.5 ? "assistant" : "user";
    return JSON.stringify({ type, message: { role: type, content: [{ type: "text", text: sentence(r, 8 + Math.floor(r() * 40)) }] },
      parent_tool_use_id: null, session_id: FLOOD_ID });
  }
  if (kind < 0.55) return `\x1b[36m│\x1b[0m ${sentence(r, 6).padEnd(60)} \x1b[36m│\x1b[0m`;
  if (kind < 0.65) return `\x1b[2K\r\x1b[33m${sentence(r, 1)}\x1b[0m ${sentence(r, 5)}`;
  if (kind < 0.72) return `\x1b[${1 + Math.floor(r() * 40)};1H\x1b[1m${sentence(r, 4)}\x1b[0m`;
  return sentence(r, 4 + Math.floor(r() * 16));
}

/** Block `i % VARIANTS`: whole lines, padded with spaces to exactly BLOCK bytes, ending in "\n". */
function makeBlock(v) {
  const r = seeded(1000 + v);
  let text = v === 0
    ? `${JSON.stringify({ type: "system", subtype: "init", cwd: "/home/coder/project", session_id: FLOOD_ID, tools: ["Bash"], mcp_servers: [] })}\n`
    : "";
  for (;;) {
    const next = `${line(r)}\n`;
    if (Buffer.byteLength(text + next) > BLOCK - 1) break;
    text += next;
  }
  const buf = Buffer.alloc(BLOCK, 0x20);
  const used = buf.write(text, 0, "utf8");
  buf[BLOCK - 1] = 0x0a;
  if (used > BLOCK - 1) throw new Error("block overflow");
  return buf;
}

let blocks;
export function floodBlocks() {
  blocks ??= Array.from({ length: VARIANTS }, (_, v) => makeBlock(v));
  return blocks;
}

/**
 * What a reader of the child's PTY receives for `total` bytes: every "\n" turned into "\r\n" by
 * the PTY's output processing (ONLCR), in both the bare and the shimmed case.
 */
export function expectedOutput(total) {
  const count = total / BLOCK;
  if (!Number.isInteger(count)) throw new Error(`size must be a multiple of ${BLOCK}`);
  const hash = createHash("sha256");
  let bytes = 0;
  const translated = floodBlocks().map((b) => Buffer.from(b.toString("latin1").replace(/\n/g, "\r\n"), "latin1"));
  for (let i = 0; i < count; i++) {
    const b = translated[i % VARIANTS];
    hash.update(b);
    bytes += b.length;
  }
  return { bytes, sha256: hash.digest("hex") };
}
