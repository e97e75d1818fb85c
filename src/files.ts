import { closeSync, constants, existsSync, fchmodSync, fstatSync, mkdirSync, openSync, readFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { errnoCode } from "./errors.js";

/**
 * A small file the user names (a plugin, a prompt), or why it cannot be read. Opened without
 * blocking and checked before reading: a FIFO would hold the start before the agent runs, and
 * /dev/zero would be read until memory ran out. `what` names it in the size message.
 */
export function readSmallFile(path: string, maxBytes: number, what: string): { text: string } | { problem: string } {
  const fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
  try {
    const stat = fstatSync(fd);
    if (stat.isDirectory()) return { problem: "is a folder" };
    if (!stat.isFile()) return { problem: "not a regular file" };
    if (stat.size > maxBytes) return { problem: `${stat.size} bytes, more than ${what}'s ${maxBytes}` };
    return { text: readFileSync(fd, "utf8") };
  } finally {
    closeSync(fd);
  }
}

/**
 * Opens a file sessionpin writes for people (the log, a trace, a recording) with `flags`: never
 * through a symbolic link, never waiting on a FIFO (with no reader the open fails at once), only
 * a regular file, and private: 0600 when created, and narrowed to 0600 when it was there with
 * more (typed input may be recorded in it). Throws with the reason otherwise.
 */
export function openPrivate(path: string, flags: number): number {
  const fd = openSync(path, flags | constants.O_NOFOLLOW | constants.O_NONBLOCK, 0o600);
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile()) throw new Error("not a regular file");
    if ((stat.mode & 0o077) !== 0) fchmodSync(fd, 0o600);
    return fd;
  } catch (error) {
    closeSync(fd);
    throw error;
  }
}

/**
 * `mkdir -p`, one folder at a time, each made with `mode`. Node's own (`recursive: true`) loops
 * for ever, in one native call no signal stops, where a folder cannot be made in a parent that
 * exists (procfs answers ENOENT: `--log /proc/x/run.log`); here that is the error thrown.
 */
export function makeFolders(dir: string, mode: number): void {
  const missing: string[] = [];
  for (let at = resolve(dir); !existsSync(at) && dirname(at) !== at; at = dirname(at)) missing.push(at);
  for (const folder of missing.reverse()) {
    try {
      mkdirSync(folder, { mode });
    } catch (error) {
      // Made meanwhile by another run, or a dangling link: the next folder down says which.
      if (errnoCode(error) !== "EEXIST") throw error;
    }
  }
}
