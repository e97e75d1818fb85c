import { closeSync, constants, fstatSync, renameSync, writeSync } from "node:fs";
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
export function fileLogger(path: string, now: () => Date = () => new Date(), limit = LOG_LIMIT): Logger {
  let fd: number | undefined;
  let size = 0;
  let broken = false;
  const write = (level: string, message: string): void => {
    if (broken) return;
    try {
      if (fd === undefined) {
        makeFolders(dirname(path), 0o700);
        fd = openLog(path);
        size = fstatSync(fd).size;
      }
      // Capped: past the limit the log becomes `<log>.1` (the one before it goes) and a new one
      // starts, so a pointer kept for months keeps at most two limits of log beside it.
      if (size >= limit) {
        closeSync(fd);
        fd = undefined;
        rotate(path);
        fd = openLog(path);
        size = 0;
      }
      size += writeSync(fd, `${now().toISOString()} ${level} sessionpin[${process.pid}] ${bounded(message)}\n`);
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

/** What one log line says at most: a value an agent printed (a line, a refused ID) can be megabytes. */
const MESSAGE_LIMIT = 4096;

function bounded(message: string): string {
  return message.length <= MESSAGE_LIMIT ? message : `${message.slice(0, MESSAGE_LIMIT)}… (${message.length - MESSAGE_LIMIT} more characters)`;
}

/** A log past this many bytes is rotated (fileLogger). */
export const LOG_LIMIT = 1024 * 1024;

/** `<log>` becomes `<log>.1`, replacing the older one; a link or other file there is not followed. */
function rotate(path: string): void {
  renameSync(path, `${path}.1`);
}

function openLog(path: string): number {
  return openPrivate(path, constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT);
}
