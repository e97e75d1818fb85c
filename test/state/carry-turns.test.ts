import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { FolderRewrite, judge, TurnReader, turnsOfFile } from "../../src/state/carry-turns.js";
import { filesOf } from "./carry-support.js";

/** The turns of a transcript whose lines are its turns, fed in `chunks`. */
function turnsOf(chunks: readonly string[]): readonly string[] | undefined {
  const reader = new TurnReader({});
  for (const chunk of chunks) reader.push(Buffer.from(chunk));
  return reader.end();
}

describe("FolderRewrite", () => {
  const rewrite = (chunks: readonly string[], from: readonly string[], to: readonly string[]): string => {
    const r = new FolderRewrite(from, to);
    return Buffer.concat([...chunks.map((c) => r.push(Buffer.from(c))), r.end()]).toString();
  };

  it("replaces each whole JSON string naming the old folder, also when a chunk ends inside it", () => {
    const text = '{"cwd":"/work/a","file":"/work/a/x.ts","hash":"h-a"}\n{"cwd":"/work/a"}';
    const chunked = [text.slice(0, 9), text.slice(9, 11), text.slice(11, 50), text.slice(50)];
    expect(rewrite(chunked, ["/work/a", "h-a"], ["/srv/project-b", "h-b"])).toBe('{"cwd":"/srv/project-b","file":"/work/a/x.ts","hash":"h-b"}\n{"cwd":"/srv/project-b"}');
  });

  it("changes nothing for the same folder, and nothing but the names", () => {
    expect(rewrite(['{"cwd":"/w"}'], ["/w"], ["/w"])).toBe('{"cwd":"/w"}');
    expect(rewrite(['"/w" "/w2" "x/w"'], ["/w"], ["/v"])).toBe('"/v" "/w2" "x/w"');
    expect(rewrite(['{"p":"/d/\\u00e9"}'], ["/d/é"], ["/e"])).toBe('{"p":"/d/\\u00e9"}');
  });
});

describe("which copy of a session is newer: judged by turns", () => {
  it("tells same, older here, newer here and apart", () => {
    expect(judge(["a", "b"], ["a", "b"])).toEqual({ kind: "same" });
    expect(judge(["a"], ["a", "b"])).toEqual({ kind: "older-here", here: 1, carried: 2 });
    expect(judge(["a", "b", "c"], ["a", "b"])).toEqual({ kind: "newer-here", here: 3, carried: 2 });
    expect(judge(["a", "x"], ["a", "b", "c"])).toEqual({ kind: "apart", from: 2, here: 2, carried: 3 });
  });

  it("omp's title line, rewritten in place, is no turn", () => {
    const turns = (text: string): readonly string[] | undefined => {
      const reader = new TurnReader(filesOf("omp"));
      reader.push(Buffer.from(text));
      return reader.end();
    };
    const body = '{"type":"session","id":"x"}\n{"type":"message","n":1}\n';
    expect(turns(`{"type":"title","title":"","pad":"   "}\n${body}`)).toEqual(turns(`{"type":"title","title":"A title","pad":""}\n${body}`));
    expect(turns(body)).toHaveLength(2);
  });

  it("Auggie's session is one JSON document: its turns are its exchanges", () => {
    const reader = new TurnReader(filesOf("auggie"));
    reader.push(Buffer.from(JSON.stringify({ sessionId: "s", modified: "t", chatHistory: [{ exchange: { request_id: "r1" } }, { exchange: { request_id: "r2" } }] })));
    expect(reader.end()).toEqual(["r1", "r2"]);
  });
});

describe("FolderRewrite, byte by byte", () => {
  it("gives the same bytes fed one at a time, and the very bytes back when carried there and back", () => {
    const text = '{"cwd":"/work/a","x":"/work/a","h":"h-a"}\n{"cwd":"/work/ab"}\n"/work/a"';
    const bytewise = (input: Buffer, from: readonly string[], to: readonly string[]): Buffer => {
      const r = new FolderRewrite(from, to);
      return Buffer.concat([...[...input].map((byte) => r.push(Buffer.from([byte]))), r.end()]);
    };
    const there = bytewise(Buffer.from(text), ["/work/a", "h-a"], ["/srv/b", "h-b"]);
    expect(there.toString()).toBe('{"cwd":"/srv/b","x":"/srv/b","h":"h-b"}\n{"cwd":"/work/ab"}\n"/srv/b"');
    expect(bytewise(there, ["/srv/b", "h-b"], ["/work/a", "h-a"]).toString()).toBe(text);
  });
});

describe("TurnReader", () => {
  it("gives a turn per line, however the bytes were cut, the last one without its line break too", () => {
    const text = '{"type":"user","text":"héllo"}\n\n{"type":"assistant"}\n{"type":"user"}';
    const whole = turnsOf([text]);
    expect(whole).toHaveLength(3);
    // Cut inside the é as well: lines are hashed as bytes, not text.
    const bytes = Buffer.from(text);
    const reader = new TurnReader({});
    for (const byte of bytes) reader.push(Buffer.from([byte]));
    expect(reader.end()).toEqual(whole);
    expect(turnsOf([text.slice(0, 5), text.slice(5, 31), text.slice(31)])).toEqual(whole);
    expect(turnsOf([])).toEqual([]);
  });

  it("refuses, in one line, a one-document transcript too big to compare", () => {
    const reader = new TurnReader({ turns: () => [] });
    const mib = Buffer.alloc(1 << 20);
    expect(() => {
      for (let i = 0; i <= 256; i++) reader.push(mib);
    }).toThrow("a transcript of more than 268435456 bytes cannot be compared with the copy here");
  });
});

describe("turnsOfFile", () => {
  let dir = "";
  afterEach(() => rmSync(dir, { recursive: true, force: true }));
  const temp = (): string => (dir = mkdtempSync(join(tmpdir(), "sessionpin-turns-")));

  it("reads a regular file's turns, and none through a link, from a FIFO or a folder, or when it is missing", () => {
    const folder = temp();
    const file = join(folder, "s.jsonl");
    writeFileSync(file, '{"n":1}\n{"n":2}\n');
    const reader = (): TurnReader => new TurnReader({});
    expect(turnsOfFile(file, reader())).toEqual(turnsOf(['{"n":1}\n{"n":2}\n']));
    symlinkSync(file, join(folder, "link.jsonl"));
    expect(turnsOfFile(join(folder, "link.jsonl"), reader())).toBeUndefined();
    execFileSync("mkfifo", [join(folder, "fifo.jsonl")]);
    expect(turnsOfFile(join(folder, "fifo.jsonl"), reader())).toBeUndefined();
    expect(turnsOfFile(folder, reader())).toBeUndefined();
    expect(turnsOfFile(join(folder, "missing.jsonl"), reader())).toBeUndefined();
  });
});

