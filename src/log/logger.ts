import { closeSync, mkdirSync, openSync, writeSync } from "node:fs";
import { dirname } from "node:path";

/**
 * Diagnostics go to a file, never to the terminal: under agentapi anything sessionpin printed
 * would become chat text and keep the screen from ever looking idle.
 */
export interface Logger {
  info(message: string): void;
  warn(message: string): void;
  close(): void;
}

/** Appends timestamped lines to `path` (0600, folder 0700). A log that cannot be written is dropped silently. */
export function fileLogger(path: string, now: () => Date = () => new Date()): Logger {
  let fd: number | undefined;
  let broken = false;
  const write = (level: string, message: string): void => {
    if (broken) return;
    try {
      if (fd === undefined) {
        mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
        fd = openSync(path, "a", 0o600);
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
