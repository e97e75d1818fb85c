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
  | "pty-unavailable";

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
  return (err as NodeJS.ErrnoException | undefined)?.code;
}

/** What a thrown value says, whatever was thrown. */
export function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
