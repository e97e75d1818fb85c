import { readSync } from "node:fs";

const LF = 0x0a;

// Each read becomes one latin1 string: above 128 KiB V8 puts strings in the large-object space,
// freed only by a full collection, and peak memory grew with the input (1 MiB reads: 146 MB).
export const RANGE_READ_BYTES = 64 * 1024;

/**
 * The bytes of [start, end) of an open file, up to 64 KiB at a time through one buffer (each chunk
 * valid until the next is asked for); `end` undefined reads to the end of the file, whatever it has
 * grown to.
 *
 * A chunk ends just after its last line feed, and the bytes after it are read again with the next
 * one: a line splitter then has no partial line to join to the next chunk, which copied every
 * chunk once more (a tenth of a replay worker's time, with the garbage it made). Only a chunk
 * with no line feed, the last of the range and a short read at the file's end keep a partial line.
 */
export function* rangeChunks(fd: number, start: number, end: number | undefined, buffer: Buffer): Generator<Buffer> {
  let at = start;
  while (end === undefined || at < end) {
    const want = end === undefined ? buffer.length : Math.min(buffer.length, end - at);
    const n = readSync(fd, buffer, 0, want, at);
    if (n === 0) break;
    const lastLineFeed = n === want && at + n !== end ? buffer.lastIndexOf(LF, n - 1) : -1;
    const length = lastLineFeed === -1 ? n : lastLineFeed + 1;
    at += length;
    yield buffer.subarray(0, length);
  }
}

/**
 * Where to cut a file of `size` bytes into up to `count` stretches: just after a line feed near
 * each even share, since every line feed ends a line whatever came before it. Fewer when the file
 * has too few line feeds. Always starts with 0.
 */
export function stretchStarts(fd: number, size: number, count: number): number[] {
  const starts = [0];
  const buffer = Buffer.allocUnsafe(RANGE_READ_BYTES);
  for (let k = 1; k < count; k++) {
    const from = Math.max(Math.floor((size * k) / count), (starts.at(-1) ?? 0) + 1);
    const limit = Math.floor((size * (k + 1)) / count);
    for (let at = from; at < limit;) {
      const n = readSync(fd, buffer, 0, Math.min(buffer.length, limit - at), at);
      if (n === 0) break;
      const lf = buffer.subarray(0, n).indexOf(LF);
      if (lf !== -1) {
        if (at + lf + 1 < size) starts.push(at + lf + 1);
        break;
      }
      at += n;
    }
  }
  return starts;
}
