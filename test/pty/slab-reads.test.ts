/**
 * The agent's output read into slabs (src/pty/slab-reads.ts), through a real PTY and a real child:
 * every byte arrives once and in order, a chunk kept stays as it was while later reads land, the
 * reads really go into shared slabs on this Node (not node-pty's events by the back door),
 * pause holds the agent back until resume, and where a Node's sockets take no slabs node-pty's
 * events deliver everything.
 */
import { createHash } from "node:crypto";
import { Socket } from "node:net";
import { describe, expect, it } from "vitest";
import { spawnAgent, type AgentPty, type ExitStatus } from "../../src/pty/host.js";
import { readIntoSlabs } from "../../src/pty/slab-reads.js";
import { sleep, waitUntil } from "../e2e/support.js";

/** A child printing `total` bytes of a seeded stream of letters (no LF: the PTY passes them as they are), then exiting at once. */
function flood(total: number): AgentPty {
  const script = [
    "let x = 7, left = " + total + ";",
    "const block = Buffer.alloc(65536);",
    "while (left > 0) {",
    "  const n = Math.min(left, block.length);",
    "  for (let i = 0; i < n; i++) { x = (x * 1103515245 + 12345) >>> 0; block[i] = 97 + (x >>> 16) % 26; }",
    "  let at = 0; while (at < n) { try { at += require('fs').writeSync(1, block, at, n - at); } catch (e) { if (e.code !== 'EAGAIN') throw e; } }",
    "  left -= n;",
    "}",
  ].join("\n");
  return spawnAgent([process.execPath, "-e", script], { cols: 80, rows: 24, cwd: process.cwd(), env: process.env });
}

/** The same stream as `flood`'s child prints. */
function expected(total: number): string {
  let x = 7;
  const bytes = Buffer.alloc(total);
  for (let i = 0; i < total; i++) {
    x = (x * 1103515245 + 12345) >>> 0;
    bytes[i] = 97 + ((x >>> 16) % 26);
  }
  return createHash("sha256").update(bytes).digest("hex");
}

/** Every chunk `agent` printed, once it exited and all of it came (node-pty may report the exit before the last read). */
async function whole(agent: AgentPty, chunks: readonly Buffer[], total: number): Promise<ExitStatus> {
  let status: ExitStatus | undefined;
  void agent.exited.then((exit) => (status = exit));
  await waitUntil(() => status !== undefined && chunks.reduce((n, chunk) => n + chunk.length, 0) >= total, `${total} bytes and the exit`);
  return status as ExitStatus;
}

describe("output read into slabs", () => {
  it("delivers 4 MB whole and in order, every chunk kept intact while later reads land in the same slabs", async () => {
    const total = 4 * 1024 * 1024;
    const agent = flood(total);
    const chunks: Buffer[] = [];
    agent.onData((chunk) => chunks.push(chunk));
    const status = await whole(agent, chunks, total);
    expect(status.exitCode).toBe(0);
    expect(createHash("sha256").update(Buffer.concat(chunks)).digest("hex")).toBe(expected(total));
    // Reads shared slabs of 64 KiB: this Node's sockets took the slabs, and no read was dropped.
    const slabs = new Set(chunks.map((chunk) => chunk.buffer));
    expect(chunks.length).toBeGreaterThan(100);
    expect(slabs.size).toBeLessThan(chunks.length / 4);
    // All but a stray read: node-pty may hand the very last bytes over on its own path at the
    // exit (once, on a loaded machine, an 8 KiB buffer of its own).
    const inSlabs = chunks.filter((chunk) => chunk.buffer.byteLength === 64 * 1024).reduce((n, chunk) => n + chunk.length, 0);
    expect(inSlabs / total).toBeGreaterThan(0.99);
  });

  it("holds the agent back while paused and delivers the rest after resume", async () => {
    const total = 1024 * 1024;
    const agent = flood(total);
    let exited = false;
    void agent.exited.then(() => (exited = true));
    const chunks: Buffer[] = [];
    agent.onData((chunk) => {
      if (chunks.length === 0) agent.pause();
      chunks.push(chunk);
    });
    await waitUntil(() => chunks.length > 0, "the first read");
    await sleep(300);
    // The PTY holds a few KiB: the agent cannot have written its megabyte past a reader that
    // stopped, nor exited.
    expect(chunks.reduce((n, chunk) => n + chunk.length, 0)).toBeLessThan(total / 4);
    expect(exited).toBe(false);
    agent.resume();
    await whole(agent, chunks, total);
    expect(createHash("sha256").update(Buffer.concat(chunks)).digest("hex")).toBe(expected(total));
  });

  it("delivers everything through node-pty's events on a Node whose sockets show no onread fields", async () => {
    const total = 1024 * 1024;
    const agent = flood(total);
    const chunks: Buffer[] = [];
    // As on a Node without the fields: readIntoSlabs finds none of them and changes nothing.
    const real = Object.getOwnPropertySymbols;
    Object.getOwnPropertySymbols = () => [];
    try {
      agent.onData((chunk) => chunks.push(chunk));
    } finally {
      Object.getOwnPropertySymbols = real;
    }
    await whole(agent, chunks, total);
    expect(createHash("sha256").update(Buffer.concat(chunks)).digest("hex")).toBe(expected(total));
    // Node's own buffers, one a read: no slab was used.
    expect(new Set(chunks.map((chunk) => chunk.buffer)).size).toBeGreaterThan(chunks.length / 2);
  });

  it("leaves a socket without the onread fields alone, so node-pty's events deliver", () => {
    expect(readIntoSlabs(undefined, () => undefined)).toBe(false);
    expect(readIntoSlabs({ _handle: { useUserBuffer: () => undefined } }, () => undefined)).toBe(false);
    // A socket not yet connected has the fields but no handle to read with.
    expect(readIntoSlabs(new Socket(), () => undefined)).toBe(false);
  });
});
