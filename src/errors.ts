import { lstatSync } from "node:fs";
import { dirname } from "node:path";

/**
 * The one error class that reaches a user. `exitCode` is what the CLI exits with; the message
 * names the option or file, the value and what was allowed.
 */
export const EXIT = {
  ok: 0,
  failure: 1,
  usage: 2,
  /** The pointer file cannot be used as asked (another agent's or folder's, or a newer format): untouched. */
  refused: 3,
  /** A one-shot run whose message the session already had, with nothing else to deliver: not started. */
  repeat: 4,
  /** A warm one-shot run whose session is gone or was refused, under `--on-lost fail`: no new one started. */
  lost: 5,
  /** Another live `sessionpin run` holds the pointer's lock (sysexits EX_TEMPFAIL: try later). */
  locked: 75,
  notExecutable: 126,
  notFound: 127,
} as const;

export type ErrorCode =
  | "usage"
  | "prompt-file"
  | "unknown-agent"
  | "agent-not-found"
  | "agent-not-executable"
  | "pointer-locked"
  | "pointer-invalid"
  | "pointer-refused"
  | "pty-unavailable"
  | "shim-folder";

const exitFor: Record<ErrorCode, number> = {
  usage: EXIT.usage,
  "prompt-file": EXIT.usage,
  "unknown-agent": EXIT.usage,
  "agent-not-found": EXIT.notFound,
  "agent-not-executable": EXIT.notExecutable,
  "pointer-locked": EXIT.locked,
  "pointer-invalid": EXIT.failure,
  "pointer-refused": EXIT.refused,
  "pty-unavailable": EXIT.failure,
  "shim-folder": EXIT.failure,
};

export class SessionpinError extends Error {
  readonly exitCode: number;
  constructor(
    readonly code: ErrorCode,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = "SessionpinError";
    this.exitCode = exitFor[code];
  }
}

/** The errno code of a failed system call (ENOENT, EPERM…), if it has one. */
export function errnoCode(err: unknown): string | undefined {
  // A SessionpinError's code ("pointer-invalid") is sessionpin's own, never an errno.
  if (err instanceof SessionpinError) return undefined;
  const code = (err as NodeJS.ErrnoException | undefined)?.code;
  return typeof code === "string" ? code : undefined;
}

// The errno codes sessionpin's file work meets, in words. libuv's own words are used for the rest
// ("EXDEV: cross-device link not permitted, link …"); its "illegal operation on a directory" and
// "too many symbolic links encountered" say less than these: sessionpin opens files O_NOFOLLOW.
const ERRNO_WORDS: Readonly<Record<string, string>> = {
  ENOENT: "no such file or folder",
  EACCES: "permission denied",
  EPERM: "operation not permitted",
  EISDIR: "is a folder",
  ENOTDIR: "a part of the path is not a folder",
  EEXIST: "already exists",
  ELOOP: "is a symbolic link (not followed)",
  ENOSPC: "no space left on the device",
  EDQUOT: "disk quota exceeded",
  EROFS: "read-only file system",
  EMFILE: "too many open files",
  ENAMETOOLONG: "name too long",
  ETXTBSY: "text file busy",
  EIO: "input/output error",
};

/**
 * Why something failed, in words, for a message that already says what failed and where:
 * "permission denied", "/x/a-file is not a folder". A SessionpinError gives its own message.
 */
export function reasonOf(err: unknown): string {
  const code = errnoCode(err);
  if (code === undefined) return messageOf(err).replace(/^sessionpin: /, "");
  const e = err as NodeJS.ErrnoException;
  // mkdir says EEXIST or ENOTDIR for a file where a folder should be, depending on the depth.
  if ((code === "ENOTDIR" || (code === "EEXIST" && e.syscall === "mkdir")) && e.path !== undefined) {
    const blocker = fileInTheWay(e.path);
    if (blocker !== undefined) return `${blocker} is not a folder`;
  }
  return ERRNO_WORDS[code] ?? /^[A-Z0-9]+: ([^,]+)/.exec(e.message)?.[1] ?? code;
}

/** The nearest existing ancestor of `path` (or `path` itself) that is not a folder. */
function fileInTheWay(path: string): string | undefined {
  for (let at = path; dirname(at) !== at; at = dirname(at)) {
    try {
      return lstatSync(at).isDirectory() ? undefined : at;
    } catch {
      // Missing, or below the file in the way: look one level up.
    }
  }
  return undefined;
}

/** What a thrown value says, whatever was thrown. */
export function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
