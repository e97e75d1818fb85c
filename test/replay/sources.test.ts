import { execFileSync, spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { MAX_CAST_LINE_BYTES, openSource, type Source } from "../../src/replay/sources.js";

let dir = "";
afterEach(() => dir && rmSync(dir, { recursive: true, force: true }));
const temp = (): string => (dir = mkdtempSync(join(tmpdir(), "sessionpin-sources-")));

/** Every byte a source yields, in order. */
async function drain(source: Source): Promise<Buffer> {
  const parts: Buffer[] = [];
  for await (const chunk of source.chunks) parts.push(Buffer.isBuffer(chunk.data) ? Buffer.from(chunk.data) : Buffer.from(chunk.data, "utf8"));
  return Buffer.concat(parts);
}

/** The message a read failed with, or "read" (not the bytes: a diff of 16 MiB would be the failure). */
const failureOf = (read: Promise<Buffer>): Promise<string> => read.then(() => "read", (error: unknown) => (error as Error).message);

// Several reads' worth of terminal text whose multi-byte characters fall on every alignment.
function terminalBytes(size: number): Buffer {
  const rows: string[] = [];
  for (let i = 0, length = 0; length < size; i++) {
    const row = `\x1b[${(i % 40) + 1};1H${"é".repeat(i % 7)}row ${i} ✓ ${"─".repeat(i % 13)}\r\n`;
    rows.push(row);
    length += Buffer.byteLength(row);
  }
  return Buffer.from(rows.join(""), "utf8");
}

describe("replay sources", () => {
  it("reads a regular file of any size whole and in order, counting what was read", async () => {
    const path = join(temp(), "screen.raw");
    const bytes = terminalBytes(700 * 1024);
    writeFileSync(path, bytes);
    const source = await openSource(path, "auto");
    expect(source.format).toBe("raw");
    expect(source.size).toBe(bytes.length);
    expect((await drain(source)).equals(bytes)).toBe(true);
    expect(source.bytesRead()).toBe(bytes.length);
  });

  it("reads a FIFO as a stream, format detected from what arrives first", async () => {
    const path = join(temp(), "pipe");
    execFileSync("mkfifo", [path]);
    const line = '{"type":"system","subtype":"init","session_id":"T-1"}\n';
    const writer = spawn("sh", ["-c", `printf '%s' '${line}' > ${path}`]);
    const written = new Promise((resolve) => writer.on("exit", resolve));
    const source = await openSource(path, "auto");
    expect(source.format).toBe("jsonl");
    expect(source.size).toBeUndefined();
    expect((await drain(source)).toString("utf8")).toBe(line);
    expect(await written).toBe(0);
  });

  it("gives timers a turn while a large file is read (the progress line)", async () => {
    const path = join(temp(), "big.raw");
    writeFileSync(path, terminalBytes(8 * 1024 * 1024));
    const source = await openSource(path, "auto");
    let ticks = 0;
    const timer = setInterval(() => void ticks++, 5);
    let chunks = 0;
    try {
      for await (const _chunk of source.chunks) {
        chunks++;
        // A slow consumer: the reads themselves never wait for anything.
        const until = performance.now() + 3;
        while (performance.now() < until);
      }
    } finally {
      clearInterval(timer);
    }
    // 128 chunks of 3 ms each, about 400 ms: a turn at least every 100 ms.
    expect(chunks).toBeGreaterThan(100);
    expect(ticks).toBeGreaterThan(0);
  });

  it("reads a cast's lines whole across reads, and stops at a line no event is (past 16 MiB) with a usage error, memory bounded", async () => {
    const path = join(temp(), "long.cast");
    const header = '{"version":2,"width":80,"height":24}\r\n';
    const event = `[0.5,"o","caf\u00e9 ${"x".repeat(200_000)}"]\n`;
    writeFileSync(path, header + event);
    expect((await drain(await openSource(path, "auto"))).toString("utf8")).toBe(`café ${"x".repeat(200_000)}`);
    writeFileSync(path, `${header}${event}[0.6,"o","${"y".repeat(MAX_CAST_LINE_BYTES)}"]\n`);
    expect(await failureOf(drain(await openSource(path, "cast")))).toBe(`sessionpin: ${path}: line 3 is longer than 16 MiB: no asciicast event is`);
  });

  it("reads asciicast v2 whatever its header's key order or a BOM in front, and v3 (asciinema 3's default) with its times added up", async () => {
    const events = async (text: string): Promise<{ format: string; width: number | undefined; chunks: Array<[string, number | undefined]> }> => {
      const path = join(temp(), "rec.cast");
      writeFileSync(path, text);
      const source = await openSource(path, "auto");
      const chunks: Array<[string, number | undefined]> = [];
      for await (const chunk of source.chunks) chunks.push([String(chunk.data), chunk.time]);
      return { format: source.format, width: source.width, chunks };
    };
    // As `jq -S` writes a header: sorted keys, "version" last but one.
    expect(await events('\uFEFF{"height":24,"timestamp":1,"version":2,"width":100}\n[0.5,"o","hello"]\n[1.25,"o","world"]\n')).toEqual({
      format: "cast", width: 100, chunks: [["hello", 0.5], ["world", 1.25]],
    });
    expect(await events('{"version":3,"term":{"cols":120,"rows":40,"type":"xterm-256color"},"timestamp":1}\n# a comment\n[0.5,"o","hello"]\n[0.25,"r","90x30"]\n[0.5,"o","world"]\n[0.1,"x","0"]\n')).toEqual({
      format: "cast", width: 120, chunks: [["hello", 0.5], ["world", 1.25]],
    });
  });

  it("replays an event whose time is out of range (1e400) without a time, and says so; a line that is no event is said too", async () => {
    const path = join(temp(), "rec.cast");
    writeFileSync(path, '{"version":2,"width":80,"height":24}\n[0.5,"o","a"]\n[1e400,"o","session T-1"]\n["2","o","b"]\n[1e400,"r","80x24"]\n{"not":"an event"}\n[3,"o","c"]\n[4,"o","cut');
    const chunks: Array<[string, number | undefined, string | undefined]> = [];
    for await (const chunk of (await openSource(path, "auto")).chunks) chunks.push([String(chunk.data), chunk.time, chunk.note]);
    expect(chunks).toEqual([
      ["a", 0.5, undefined],
      ["session T-1", undefined, "line 3: time 1e400 is no number of seconds: replayed without a time"],
      ["b", undefined, 'line 4: time "2" is no number of seconds: replayed without a time'],
      ["", undefined, "line 5: time 1e400 is no number of seconds: passed over"],
      ["", undefined, "line 6 is no asciicast event: passed over"],
      ["c", 3, undefined],
      ["", undefined, "line 8 is no asciicast event: passed over"],
    ]);
  });

  it("reads JSON lines whose first line has `messages` (pi's agent_end) as JSON lines, and one object alone as agentapi's state", async () => {
    const path = join(temp(), "rec");
    const lines = readFileSync(join(import.meta.dirname, "../../fixtures/pi/json-pty-0731/input.txt"), "utf8").split("\n").slice(11);
    expect(lines[0]).toMatch(/^\{"type":"agent_end","messages":\[/);
    writeFileSync(path, lines.join("\n"));
    expect((await openSource(path, "auto")).format).toBe("jsonl");
    writeFileSync(path, `${JSON.stringify({ messages: [{ role: "agent", message: "hi" }] })}\n`);
    expect((await openSource(path, "auto")).format).toBe("agentapi-state");
  });

  it("detects from the first line whole: a cast header longer than a read, from a file or a pipe, and a first line a slow pipe hands over in pieces", async () => {
    const at = temp();
    const event = '[0.5,"o","hello"]\n';
    const bigHeader = `${JSON.stringify({ version: 2, width: 80, height: 24, command: `amp ${"x".repeat(100_000)}` })}\n`;
    writeFileSync(join(at, "big.cast"), bigHeader + event);
    // The format and the text replayed, its length when long (the whole header would be the failure).
    const read = async (source: Source): Promise<[string, string]> => {
      const text = (await drain(source)).toString("utf8");
      return [source.format, text.length > 80 ? `${text.length} bytes` : text];
    };
    expect(await read(await openSource(join(at, "big.cast"), "auto"))).toEqual(["cast", "hello"]);
    /** Opens a FIFO fed `parts`, 300 ms apart, as a slow pipe hands them over. */
    const slowly = async (parts: readonly string[]): Promise<Source> => {
      const pipe = join(at, `pipe-${parts.length}-${parts[0]?.length ?? 0}`);
      execFileSync("mkfifo", [pipe]);
      parts.forEach((part, i) => writeFileSync(join(at, `part${i}`), part));
      const script = parts.map((_, i) => `cat ${join(at, `part${i}`)}`).join("; sleep 0.3; ");
      spawn("sh", ["-c", `(${script}) > ${pipe}`]);
      return openSource(pipe, "auto");
    };
    expect(await read(await slowly([bigHeader.slice(0, 70_000), bigHeader.slice(70_000) + event]))).toEqual(["cast", "hello"]);
    const small = '{"version":2,"width":80,"height":24}\n';
    expect(await read(await slowly([small.slice(0, 10), small.slice(10), event]))).toEqual(["cast", "hello"]);
    // A first line shaped like agentapi's state, then more lines: JSON lines, not a state file.
    const state = `${JSON.stringify({ messages: [{ role: "agent", message: "hi" }] })}\n`;
    expect((await slowly([state, '{"type":"message"}\n'])).format).toBe("jsonl");
    expect((await slowly([state.slice(0, 5), state.slice(5)])).format).toBe("agentapi-state");
  });

  it("reads agentapi's state file pretty-printed (jq ., json.tool) or with a byte-order mark in front", async () => {
    const path = join(temp(), "state.json");
    const state = { version: 1, messages: [{ id: 0, role: "agent", message: "hello", time: "2026-11-27T10:00:00Z" }] };
    for (const text of [`${JSON.stringify(state, null, 4)}\n`, `\uFEFF${JSON.stringify(state)}\n`, `\uFEFF${JSON.stringify(state, null, 2)}`]) {
      writeFileSync(path, text);
      const source = await openSource(path, "auto");
      expect([source.format, (await drain(source)).toString("utf8")], JSON.stringify(text.slice(0, 20))).toEqual(["agentapi-state", "hello\n"]);
    }
    // Pretty-printed JSON that is no state file stays JSON lines.
    writeFileSync(path, `${JSON.stringify({ type: "system", session_id: "x" }, null, 2)}\n`);
    expect((await openSource(path, "auto")).format).toBe("jsonl");
  });

  it("stops reading an endless agentapi state file where it stops being one, with a usage error", async () => {
    expect(await failureOf(drain(await openSource("/dev/zero", "agentapi-state")))).toBe("sessionpin: /dev/zero: not an agentapi state file (byte 0x00 at byte 0 where the state's opening { should be)");
  });

  it("reports an unreadable file as a usage error naming it and saying why in words", async () => {
    const path = join(temp(), "missing.raw");
    await expect(openSource(path, "auto")).rejects.toThrow(/^sessionpin: cannot read \S*missing\.raw: no such file or folder$/);
    await expect(openSource(dir, "auto")).rejects.toThrow(`sessionpin: cannot read ${dir}: is a folder`);
  });
});
