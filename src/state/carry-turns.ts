import { createHash } from "node:crypto";
import { closeSync, constants, fstatSync, openSync, readSync } from "node:fs";
import type { CarryFiles } from "../agents/types.js";
import { refused } from "./archive-rules.js";

/**
 * A session's files name the folder they were made in; carried to another folder, each of its
 * old names (a whole JSON string: `"/work/a"`) becomes the new folder's (`"/work/b"`). Byte for
 * byte, as the bytes stream by: nothing else in the file changes, so carrying a session there and
 * back gives the very bytes it had, and a copy already in place is compared byte for byte.
 */
export class FolderRewrite {
  readonly #steps: Replace[];

  constructor(from: readonly string[], to: readonly string[]) {
    this.#steps = from.flatMap((name, i) => {
      const target = to[i];
      return target === undefined || target === name ? [] : [new Replace(Buffer.from(JSON.stringify(name)), Buffer.from(JSON.stringify(target)))];
    });
  }

  /** The rewritten bytes of `chunk` that can be told already (a name cut between two chunks waits for the next). */
  push(chunk: Buffer): Buffer {
    return this.#steps.reduce((bytes, step) => step.push(bytes), chunk);
  }

  /** The bytes still held back, at the end of the file. */
  end(): Buffer {
    return this.#steps.reduce((held, step) => Buffer.concat([step.push(held), step.end()]), Buffer.alloc(0));
  }
}

/** One name replaced in a stream of bytes: what could be the start of the name is held back until the next chunk. */
class Replace {
  #held = Buffer.alloc(0);

  constructor(
    readonly from: Buffer,
    readonly to: Buffer,
  ) {}

  push(chunk: Buffer): Buffer {
    const buffer = this.#held.length === 0 ? chunk : Buffer.concat([this.#held, chunk]);
    const out: Buffer[] = [];
    let start = 0;
    for (let at = buffer.indexOf(this.from); at >= 0; at = buffer.indexOf(this.from, start)) {
      out.push(buffer.subarray(start, at), this.to);
      start = at + this.from.length;
    }
    const keep = Math.min(this.from.length - 1, buffer.length - start);
    out.push(buffer.subarray(start, buffer.length - keep));
    this.#held = Buffer.from(buffer.subarray(buffer.length - keep));
    return Buffer.concat(out);
  }

  end(): Buffer {
    const held = this.#held;
    this.#held = Buffer.alloc(0);
    return held;
  }
}

/** A transcript read whole, for a spec whose transcript is one document: past this it is not compared. */
const MAX_DOCUMENT_BYTES = 256 * 1024 * 1024;

/**
 * The turns of a transcript, as its bytes come: the sha256 of each line (a spec's `notTurn` lines
 * left out), or, for a transcript rewritten whole, the spec's own `turns` of the whole text.
 */
export class TurnReader {
  readonly #document: ((text: string) => readonly string[] | undefined) | undefined;
  readonly #notTurn: ((line: string) => boolean) | undefined;
  readonly #turns: string[] = [];
  #chunks: Buffer[] = [];
  #bytes = 0;

  constructor(spec: Pick<CarryFiles, "turns" | "notTurn">) {
    this.#document = spec.turns;
    this.#notTurn = spec.notTurn;
  }

  push(chunk: Buffer): void {
    this.#bytes += chunk.length;
    if (this.#document !== undefined) {
      if (this.#bytes > MAX_DOCUMENT_BYTES) throw refused(`a transcript of more than ${MAX_DOCUMENT_BYTES} bytes cannot be compared with the copy here`);
      this.#chunks.push(chunk);
      return;
    }
    let start = 0;
    for (let at = chunk.indexOf(10); at >= 0; at = chunk.indexOf(10, start)) {
      this.#line(Buffer.concat([...this.#chunks, chunk.subarray(start, at)]));
      this.#chunks = [];
      start = at + 1;
    }
    if (start < chunk.length) this.#chunks.push(chunk.subarray(start));
  }

  /** The turns, in order; undefined when the document is not one the spec can read. */
  end(): readonly string[] | undefined {
    if (this.#document !== undefined) return this.#document(Buffer.concat(this.#chunks).toString("utf8"));
    if (this.#chunks.length > 0) this.#line(Buffer.concat(this.#chunks));
    this.#chunks = [];
    return this.#turns;
  }

  #line(line: Buffer): void {
    if (line.length === 0 || this.#notTurn?.(line.toString("utf8")) === true) return;
    this.#turns.push(createHash("sha256").update(line).digest("hex"));
  }
}

/** The turns of the regular file at `path` (never through a link), or undefined when there is none. */
export function turnsOfFile(path: string, reader: TurnReader): readonly string[] | undefined {
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch {
    return undefined;
  }
  try {
    if (!fstatSync(fd).isFile()) return undefined;
    const buffer = Buffer.alloc(1 << 20);
    for (let n = readSync(fd, buffer); n > 0; n = readSync(fd, buffer)) reader.push(Buffer.from(buffer.subarray(0, n)));
    return reader.end();
  } finally {
    closeSync(fd);
  }
}

/** Which copy of a session is newer: the one here, or the archive's. */
export type Judgement =
  | { readonly kind: "same" }
  /** The copy here has the archive's first turns, and no others: the archive's replaces it. */
  | { readonly kind: "older-here"; readonly here: number; readonly carried: number }
  | { readonly kind: "newer-here"; readonly here: number; readonly carried: number }
  /** Both have turns the other lacks, from turn `from` on (1-based). */
  | { readonly kind: "apart"; readonly from: number; readonly here: number; readonly carried: number };

/**
 * Turns, not times: an archive's file times are another machine's clock's, and a copy restored
 * from a CI cache has the restore's. A copy whose turns are the first of the archive's is older;
 * one with turns the archive lacks is newer, or went its own way, and is never overwritten.
 */
export function judge(here: readonly string[], carried: readonly string[]): Judgement {
  const common = here.findIndex((turn, i) => carried[i] !== turn);
  const counts = { here: here.length, carried: carried.length };
  if (common < 0) return here.length === carried.length ? { kind: "same" } : here.length < carried.length ? { kind: "older-here", ...counts } : { kind: "newer-here", ...counts };
  return common >= carried.length ? { kind: "newer-here", ...counts } : { kind: "apart", from: common + 1, ...counts };
}
