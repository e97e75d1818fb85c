import { closeSync, constants, openSync, readSync } from "node:fs";
import { errnoCode } from "../errors.js";

/**
 * At most `max` bytes of an open file, read to its end: undefined when it holds more. The files
 * beside a pointer are small (a pointer, a lock), and a file named like one may be anything: read
 * whole, a 1 GiB file named like a pointer cost 1.1 GB in `sessions` and in `run`. `size`, the
 * size fstat gave, sizes the first read: a regular file that has no more gives a short read, and
 * that is its end (one read a pointer, not two: `sessions` reads thousands).
 */
export function readCapped(fd: number, max: number, size = 4095): Buffer | undefined {
  let buffer = Buffer.allocUnsafe(Math.min(max + 1, size + 1));
  let length = 0;
  for (;;) {
    if (length === buffer.length) {
      if (length > max) return undefined;
      const grown = Buffer.allocUnsafe(Math.min(max + 1, buffer.length * 4));
      buffer.copy(grown, 0, 0, length);
      buffer = grown;
    }
    const wanted = buffer.length - length;
    const read = readSync(fd, buffer, length, wanted, null);
    length += read;
    if (read === 0 || read < wanted) return buffer.subarray(0, length);
  }
}

/** A lock holds a pid, a time and a host name: what is larger is no lock sessionpin wrote. */
export const MAX_LOCK_BYTES = 64 * 1024;

/**
 * A lock's (or a takeover claim's) text, read no further than MAX_LOCK_BYTES, never through a
 * link, never waiting on a FIFO; undefined when it is gone.
 */
export function readLockText(path: string): string | "too large" | undefined {
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (err) {
    if (errnoCode(err) === "ENOENT") return undefined;
    throw err;
  }
  try {
    return readCapped(fd, MAX_LOCK_BYTES)?.toString("utf8") ?? "too large";
  } finally {
    closeSync(fd);
  }
}
