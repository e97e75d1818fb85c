import { closeSync, constants, mkdirSync, openSync, writeSync } from "node:fs";
import { dirname } from "node:path";
import type { Logger } from "../log/logger.js";

/**
 * An append-only file of JSON lines written for people debugging a run (recordings, traces):
 * created 0600 in a 0700 folder, never through a symlink, each line one synchronous write so a
 * killed run leaves whole lines. A failed write (disk full) closes it and is logged; the agent
 * never notices.
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

  static open(path: string, log: Logger): LineFile | undefined {
    try {
      mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
      const fd = openSync(path, constants.O_WRONLY | constants.O_CREAT | constants.O_TRUNC | constants.O_NOFOLLOW, 0o600);
      return new LineFile(fd, path, log);
    } catch (error) {
      log.warn(`cannot write ${path}: ${String(error)}`);
      return undefined;
    }
  }

  write(value: unknown): void {
    if (this.#fd === undefined) return;
    try {
      writeSync(this.#fd, `${JSON.stringify(value)}\n`);
    } catch (error) {
      this.log.warn(`writing ${this.path} stopped: ${String(error)}`);
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
