import { closeSync, constants, fstatSync, ftruncateSync, lstatSync, renameSync, rmSync, writeSync, type Stats } from "node:fs";
import { dirname } from "node:path";
import { reasonOf } from "../errors.js";
import { makeFolders, openPrivate } from "../files.js";
import type { Logger } from "../log/logger.js";
import { tempPathFor } from "../pointer/atomic.js";

/**
 * An append-only file of JSON lines written for people debugging a run (recordings, traces):
 * created 0600 in a 0700 folder, never through a symlink, each line written whole and synchronously
 * (see writeWhole) so a killed run or a full disk leaves whole lines. A failed write (disk full)
 * closes it and is logged; the agent never notices.
 */
export class LineFile {
  #fd: number | undefined;

  private constructor(
    fd: number,
    private readonly path: string,
    private readonly log: Logger,
  ) {
    this.#fd = fd;
  }

  /**
   * Opens `path` anew. With `first` (a recording's header) the file only ever appears with that
   * line in it: it is written to a temp file that is then renamed over `path`, so a run killed
   * at any moment never leaves a header-less file.
   */
  static open(path: string, log: Logger, first?: unknown): LineFile | undefined {
    const temp = tempPathFor(path);
    let fd: number | undefined;
    try {
      makeFolders(dirname(path), 0o700);
      const flags = constants.O_WRONLY | constants.O_CREAT | constants.O_TRUNC;
      if (first === undefined) return new LineFile(openPrivate(path, flags), path, log);
      fd = openPrivate(temp, flags | constants.O_EXCL);
      writeWhole(fd, Buffer.from(`${JSON.stringify(first)}\n`));
      // A rename replaces whatever has the name: looked at last, so only a regular file is.
      const there = lstatSync(path, { throwIfNoEntry: false });
      if (there !== undefined && !there.isFile()) throw new Error(`${notAFile(there)} is there, not replaced`);
      renameSync(temp, path);
      return new LineFile(fd, path, log);
    } catch (error) {
      // Only a temp file this call created is removed: with a file where the folder should be,
      // even looking for one fails (ENOTDIR), and that once crashed run before the agent started.
      if (fd !== undefined) {
        closeSync(fd);
        rmSync(temp, { force: true });
      }
      unusable(path, log, error);
      return undefined;
    }
  }

  /** Opens an existing `path` to add lines after its first `keep` bytes, `lead` first. */
  static append(path: string, log: Logger, keep: number, lead: string): LineFile | undefined {
    let fd: number | undefined;
    try {
      fd = openPrivate(path, constants.O_WRONLY | constants.O_APPEND);
      const cut = fstatSync(fd).size - keep;
      if (cut > 0) {
        ftruncateSync(fd, keep);
        log.warn(`${path} ended in a cut line (${cut} bytes, from a run killed mid-write or a full disk): cut off before adding to it`);
      }
      if (lead !== "") writeSync(fd, lead);
      return new LineFile(fd, path, log);
    } catch (error) {
      if (fd !== undefined) closeSync(fd);
      unusable(path, log, error);
      return undefined;
    }
  }

  write(value: unknown): void {
    if (this.#fd === undefined) return;
    try {
      writeWhole(this.#fd, Buffer.from(`${JSON.stringify(value)}\n`));
    } catch (error) {
      this.log.warn(`writing ${this.path} stopped: ${reasonOf(error)}`);
      this.close();
    }
  }

  close(): void {
    if (this.#fd === undefined) return;
    try {
      closeSync(this.#fd);
    } catch {
      // Already unusable.
    }
    this.#fd = undefined;
  }
}

/**
 * Writes all of `data` before returning: a disk filling up or a file size limit can take part of
 * a line (a short write), and the rest is written after it. When the rest fails, the part written
 * is cut off again where it can be, so the file still ends with a whole line.
 */
function writeWhole(fd: number, data: Buffer): void {
  let written = 0;
  try {
    while (written < data.length) written += writeSync(fd, data, written);
  } catch (error) {
    if (written > 0) cutOff(fd, written);
    throw error;
  }
}

function cutOff(fd: number, bytes: number): void {
  try {
    ftruncateSync(fd, fstatSync(fd).size - bytes);
  } catch {
    // The cut line stays; a later run appending to the recording cuts it off.
  }
}

/**
 * A recording or trace that cannot be opened, which happens before the agent starts: one line on
 * stderr (as for an unusable pointer folder: nobody reads a log they do not know to look at) and
 * in the log. The agent runs all the same; only this file is missing.
 */
function unusable(path: string, log: Logger, error: unknown): void {
  const reason = reasonOf(error);
  process.stderr.write(`sessionpin: cannot write ${path} (${reason}): running the agent without it\n`);
  log.warn(`cannot write ${path}: ${reason}; running the agent without it`);
}

/** What a path that is no regular file is, in words: "a FIFO", "a character device". */
export function notAFile(stat: Stats): string {
  if (stat.isSymbolicLink()) return "a symbolic link";
  if (stat.isDirectory()) return "a folder";
  if (stat.isFIFO()) return "a FIFO";
  if (stat.isCharacterDevice()) return "a character device";
  if (stat.isBlockDevice()) return "a block device";
  if (stat.isSocket()) return "a socket";
  return "not a regular file";
}
