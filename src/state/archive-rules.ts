/**
 * The carry archive (`sessionpin export` / `import`): a gzipped tar whose first entry is
 * `manifest.json`, then `pointer.json`, then the session's files as `store/<path below the
 * agent's root>`. These are its bounds and its rules for names, shared by the writer and the reader.
 */

/** The format this sessionpin writes and reads; an archive of a higher one is refused, untouched. */
export const CARRY_FORMAT = 1;
/** What `format` says in every manifest, so that another tarball is told apart at once. */
export const CARRY_KIND = "sessionpin-carry";

export const MANIFEST_NAME = "manifest.json";
export const POINTER_NAME = "pointer.json";
export const STORE_PREFIX = "store/";

/** The manifest lists every file with its size and sha256; far below this in any real archive. */
export const MAX_MANIFEST_BYTES = 1 << 20;
/** One file of a session: Claude transcripts with pasted images reach hundreds of MB. */
export const MAX_FILE_BYTES = 1 << 30;
/** All files of an archive together. */
export const MAX_TOTAL_BYTES = 4 * (1 << 30);
export const MAX_ENTRIES = 10_000;
const MAX_PATH = 1024;
const MAX_SEGMENT = 255;
const MAX_DEPTH = 16;

/**
 * Why `export` or `import` did not do what was asked, in one line, and the exit code: 3 for an
 * archive or a place refused (nothing written), 75 for a live run in the way, 1 for the rest.
 */
export class CarryError extends Error {
  constructor(
    readonly exitCode: number,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = "CarryError";
  }
}

/** An archive (or the place it would go) refused before anything was written. */
export const refused = (reason: string): CarryError => new CarryError(3, reason);

/**
 * Why `name` cannot be the name of a file in an archive, or undefined when it can: a relative
 * path of at most 16 folders below the archive's top, with no `.`, `..` or empty part, no
 * backslash, no control character; a name that could leave the folder it is unpacked in, or mean
 * something else on another system, is refused.
 */
export function badName(name: string): string | undefined {
  if (name.length === 0) return "an empty name";
  if (name.length > MAX_PATH) return `a name of ${name.length} characters (at most ${MAX_PATH})`;
  if (name.startsWith("/")) return "an absolute path";
  if (/[\u0000-\u001f\u007f\\]/.test(name)) return "a control character or backslash in its name";
  const parts = name.split("/");
  if (parts.length > MAX_DEPTH) return `${parts.length} folders deep (at most ${MAX_DEPTH})`;
  for (const part of parts) {
    if (part === "..") return "a `..` in its path";
    if (part === "" || part === ".") return "an empty or `.` part in its path";
    if (Buffer.byteLength(part) > MAX_SEGMENT) return `a name part of more than ${MAX_SEGMENT} bytes`;
  }
  return undefined;
}

/** A size in words: `1.4 MB`, `812 bytes`. */
export function sizeText(bytes: number): string {
  if (bytes < 1000) return `${bytes} bytes`;
  const units = ["kB", "MB", "GB", "TB"];
  let value = bytes / 1000;
  let unit = 0;
  // The unit is chosen for the value as shown: 999,999,999 bytes is 1.0 GB, not 1000 MB.
  while (Math.round(value) >= 1000 && unit < units.length - 1) {
    value /= 1000;
    unit++;
  }
  const tenths = value.toFixed(1);
  return `${Number(tenths) < 10 ? tenths : value.toFixed(0)} ${units[unit]}`;
}
