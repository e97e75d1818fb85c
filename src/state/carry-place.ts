import { closeSync, constants, fsyncSync, lstatSync, mkdirSync, openSync, renameSync, rmSync, writeFileSync, writeSync } from "node:fs";
import { dirname, join, relative, sep } from "node:path";
import { errnoCode, reasonOf } from "../errors.js";
import { makeFolders } from "../files.js";
import { tempPathFor } from "../pointer/atomic.js";
import { CarryError, refused } from "./archive-rules.js";

/**
 * Where an import writes: below the agent's root for the new HOME and folder. The folders above
 * the root are the agent's own and may be links (a store kept on another disk), as every run
 * finds them; from the root down, nothing is ever reached through a link: a link or a file where
 * a folder belongs, or anything but a regular file where a file goes, refuses the import before
 * anything is written, and every file is written under a temp name first (created exclusively,
 * never through a link) and renamed into place once all of them are whole.
 */

/** What is at `path` without following a link: "none", a real "folder", a regular "file", or "other". */
function kindAt(path: string): "none" | "folder" | "file" | "other" {
  try {
    const stat = lstatSync(path);
    return stat.isDirectory() ? "folder" : stat.isFile() ? "file" : "other";
  } catch (error) {
    if (errnoCode(error) === "ENOENT") return "none";
    throw new CarryError(1, `cannot look at ${path}: ${reasonOf(error)}`, { cause: error });
  }
}

/** The folders from `root` down to `file`'s own, root first. */
function foldersTo(root: string, file: string): string[] {
  const parts = relative(root, dirname(file)).split(sep).filter((part) => part !== "");
  return [root, ...parts.map((_part, i) => join(root, ...parts.slice(0, i + 1)))];
}

/**
 * Whether `file` (below `root`) can be written without following a link; what is there now:
 * "none" or a regular "file". Throws the refusal otherwise.
 */
export function checkPlace(root: string, file: string): "none" | "file" {
  for (const folder of foldersTo(root, file)) {
    const kind = kindAt(folder);
    if (kind === "none") return "none";
    if (kind !== "folder") throw refused(`${folder} is ${kind === "file" ? "a file" : "a link or no folder"} where a folder of the session goes (links are never followed)`);
  }
  const kind = kindAt(file);
  if (kind === "folder" || kind === "other") throw refused(`${file} is ${kind === "folder" ? "a folder" : "a link or no regular file"} where a file of the session goes (links are never followed)`);
  return kind;
}

/** Makes the folders from `root` down to `file`'s, private, none through a link. */
function makePlace(root: string, file: string): void {
  makeFolders(dirname(root), 0o700);
  for (const folder of foldersTo(root, file)) {
    try {
      mkdirSync(folder, { mode: 0o700 });
    } catch (error) {
      if (errnoCode(error) !== "EEXIST") throw error;
    }
    if (kindAt(folder) !== "folder") throw refused(`${folder} became a link or a file while the import ran: stopped`);
  }
}

/** A file being written under its temp name, then renamed into place by `commit`. */
export class StagedFile {
  readonly temp: string;
  readonly #fd: number;
  #open = true;
  bytes = 0;

  constructor(
    readonly root: string,
    readonly path: string,
  ) {
    makePlace(root, path);
    this.temp = tempPathFor(path);
    this.#fd = openSync(this.temp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o600);
  }

  write(bytes: Buffer): void {
    for (let done = 0; done < bytes.length; ) done += writeSync(this.#fd, bytes, done);
    this.bytes += bytes.length;
  }

  /** All written: flushed to the disk and closed. */
  close(): void {
    if (!this.#open) return;
    this.#open = false;
    try {
      fsyncSync(this.#fd);
    } finally {
      closeSync(this.#fd);
    }
  }

  /** Into place, replacing what was checked to be a regular file or nothing. */
  commit(): void {
    this.close();
    checkPlace(this.root, this.path);
    renameSync(this.temp, this.path);
  }

  discard(): void {
    if (this.#open) {
      this.#open = false;
      closeSync(this.#fd);
    }
    rmSync(this.temp, { force: true });
  }
}

/** Replaces a small file of the agent's registry (Gemini's projects.json) whole: temp file, fsync, rename. */
export function replaceSmallFile(path: string, text: string): void {
  makeFolders(dirname(path), 0o700);
  const temp = tempPathFor(path);
  try {
    const fd = openSync(temp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o600);
    try {
      writeFileSync(fd, text);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    if (kindAt(path) === "other" || kindAt(path) === "folder") throw refused(`${path} is no regular file: left as it is`);
    renameSync(temp, path);
  } catch (error) {
    rmSync(temp, { force: true });
    throw error;
  }
}
