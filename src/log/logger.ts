import { closeSync, constants, writeSync } from "node:fs";
import { dirname } from "node:path";
import { makeFolders, openPrivate } from "../files.js";

/**
 * Diagnostics go to a file, never to the terminal: under agentapi anything sessionpin printed
 * would become chat text and keep the screen from ever looking idle.
 */
export interface Logger {
  info(message: string): void;
  warn(message: string): void;
  close(): void;
}

/**
 * Appends timestamped lines to `path` (0600, folder 0700). A log that cannot be written is dropped
 * silently, and so is one that is a symbolic link or not a regular file: like the pointer files,
 * the log is never written through a link someone else put there.
 */
export function fileLogger(path: string, now: () => Date = () => new Date()): Logger {
  let fd: number | undefined;
  let broken = false;
  const write = (level: string, message: string): void => {
    if (broken) return;
    try {
      if (fd === undefined) {
        makeFolders(dirname(path), 0o700);
        fd = openLog(path);
      }
      writeSync(fd, `${now().toISOString()} ${level} sessionpin[${process.pid}] ${message}\n`);
    } catch {
      // The agent matters more than our diagnostics: a read-only or full disk must not stop it.
      broken = true;
    }
  };
  return {
    info: (message) => write("info", message),
    warn: (message) => write("warn", message),
    close() {
      if (fd !== undefined) closeSync(fd);
      fd = undefined;
    },
  };
}

function openLog(path: string): number {
  return openPrivate(path, constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT);
}
