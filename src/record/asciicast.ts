import { closeSync, fstatSync, lstatSync, openSync, readSync } from "node:fs";
import { StringDecoder } from "node:string_decoder";
import { errnoCode, reasonOf } from "../errors.js";
import type { Logger } from "../log/logger.js";
import type { CastV2Header } from "./cast-header.js";
import { LineFile, notAFile } from "./line-file.js";

/**
 * What `--record` does with a recording that is already there (an agentapi restart runs the same
 * command line again): add to it, replace it, or leave it alone and record nothing, as
 * `asciinema rec --append / --overwrite` and its refusal do.
 */
export const RECORD_MODES = ["append", "overwrite", "refuse"] as const;
export type RecordMode = (typeof RECORD_MODES)[number];

/** The header's version, as the header's one description (cast-header.ts) has it. */
const VERSION: CastV2Header["version"] = 2;

/** What a run puts in the header it writes: the terminal's size, the command and its environment. */
export type CastHeader = Required<Pick<CastV2Header, "width" | "height" | "command" | "env">>;

/**
 * An asciicast v2 recording (docs.asciinema.org/manual/asciicast/v2): a JSON header line, then one
 * `[seconds, "o"|"i"|"r", data]` line per event, each written whole at once (see LineFile), so a
 * run killed at any moment leaves a valid prefix and nothing is held in memory.
 */
export class CastRecorder {
  readonly #started: number;
  // Events must be valid JSON strings: a UTF-8 character split between two reads waits for its rest.
  readonly #decoders = { o: new StringDecoder("utf8"), i: new StringDecoder("utf8") };

  private constructor(
    private readonly file: LineFile,
    private readonly now: () => number,
    /** Typed input is recorded only when asked: it can hold secrets. */
    readonly withInput: boolean,
    /** Seconds already in the recording this run appends to: its events follow on from there. */
    private readonly offset = 0,
  ) {
    this.#started = now();
  }

  /** Opens `path`; undefined (and logged) when it cannot or, by `mode`, must not. */
  static open(
    path: string,
    header: CastHeader,
    options: { readonly log: Logger; readonly withInput: boolean; readonly mode?: RecordMode; readonly now?: () => number },
  ): CastRecorder | undefined {
    const { log, withInput, mode = "append", now = Date.now } = options;
    // Overwritten or not, only a regular file is ever replaced: as root, `--record /dev/null` once
    // replaced /dev/null with a recording, and a FIFO someone read from was taken away.
    const existing = mode === "overwrite" ? overwritable(path) : castEnd(path);
    if (existing.kind !== "none" && mode === "refuse") {
      log.warn(`${path} exists: not recording (--record-mode append adds to it, overwrite replaces it)`);
      return undefined;
    }
    if (existing.kind === "other") {
      log.warn(`${path} ${existing.why}: not recording over it${existing.file && mode !== "overwrite" ? " (--record-mode overwrite replaces it)" : ""}`);
      return undefined;
    }
    const file = existing.kind === "cast"
      ? LineFile.append(path, log, existing.keep, existing.lead)
      : LineFile.open(path, log, { version: VERSION, ...header, timestamp: Math.floor(now() / 1000) } satisfies CastV2Header);
    if (file === undefined) return undefined;
    if (withInput) log.warn(`recording typed input to ${path}: anything typed, secrets included, is in that file`);
    if (existing.kind !== "cast") return new CastRecorder(file, now, withInput);
    const recorder = new CastRecorder(file, now, withInput, existing.seconds);
    // A marker (asciicast v2 "m") where this run begins, and the terminal's size, which may differ.
    file.write([existing.seconds, "m", `sessionpin: ${header.command}`]);
    recorder.resize(header.width, header.height);
    return recorder;
  }

  output(chunk: Buffer): void {
    this.#event("o", chunk);
  }

  input(chunk: Buffer): void {
    if (this.withInput) this.#event("i", chunk);
  }

  /**
   * An asciicast v2 marker (players list them as chapters): what the run knew that the agent
   * never printed, such as the thread Amp's `threads new` made, for replay to read back.
   */
  marker(label: string): void {
    this.file.write([this.#seconds(), "m", label]);
  }

  resize(cols: number, rows: number): void {
    this.file.write([this.#seconds(), "r", `${cols}x${rows}`]);
  }

  close(): void {
    // The start of a character the agent never finished: U+FFFD, as a terminal shows it, not lost.
    for (const kind of ["o", "i"] as const) {
      const rest = this.#decoders[kind].end();
      if (rest !== "") this.file.write([this.#seconds(), kind, rest]);
    }
    this.file.close();
  }

  #event(kind: "o" | "i", chunk: Buffer): void {
    const text = this.#decoders[kind].write(chunk);
    if (text !== "") this.file.write([this.#seconds(), kind, text]);
  }

  #seconds(): number {
    return Math.round((this.offset * 1000) + this.now() - this.#started) / 1000;
  }
}

const PEEK_BYTES = 64 * 1024;
// As long as a command line can be (ARG_MAX is 2 MiB, and each word is quoted into the header).
export const MAX_HEADER_BYTES = 4 * 1024 * 1024;
/**
 * A recording's lines are events: sessionpin writes one per read (about 24 KiB at most), asciinema
 * about as much. A longer line is no event of either; reading on would hold it whole in memory (a
 * line of `/dev/zero` grew until V8's string limit ended the process).
 */
export const MAX_CAST_LINE_BYTES = 16 * 1024 * 1024;

type CastEnd =
  | { readonly kind: "none" }
  /**
   * `why` it is not recorded over, after the path: "cannot be read (permission denied)"; `file`:
   * it is a regular file, which overwrite would replace.
   */
  | { readonly kind: "other"; readonly why: string; readonly file: boolean }
  /** Appended to after its first `keep` bytes, `lead` first: see wholeLines. */
  | { readonly kind: "cast"; readonly seconds: number; readonly keep: number; readonly lead: string };

const NOT_A_CAST: CastEnd = { kind: "other", why: "exists and is not an asciicast v2 recording", file: true };

/** For `overwrite`: nothing there, or a regular file to replace; anything else is left alone. */
function overwritable(path: string): CastEnd {
  try {
    const stat = lstatSync(path);
    return stat.isFile() ? { kind: "none" } : { kind: "other", why: `is ${notAFile(stat)}`, file: false };
  } catch (error) {
    const code = errnoCode(error);
    return code === "ENOENT" || code === "ENOTDIR" ? { kind: "none" } : { kind: "other", why: `cannot be looked at (${reasonOf(error)})`, file: false };
  }
}

/** Whether `path` holds an asciicast v2 recording, and the time of its last event. */
function castEnd(path: string): CastEnd {
  let fd: number;
  try {
    const stat = lstatSync(path);
    if (!stat.isFile()) return { kind: "other", why: `is ${notAFile(stat)}`, file: false };
    fd = openSync(path, "r");
  } catch (error) {
    // A file that cannot be read (not this user's) may be anything, and the recording would be
    // renamed over it: only a path where no file can be is taken for absent.
    const code = errnoCode(error);
    return code === "ENOENT" || code === "ENOTDIR" ? { kind: "none" } : { kind: "other", why: `cannot be read (${reasonOf(error)})`, file: true };
  }
  try {
    const size = fstatSync(fd).size;
    // An empty file (`mktemp --suffix .cast`) holds nothing to keep: recorded into as a new one.
    if (size === 0) return { kind: "none" };
    const header = parsed(firstLineBytes(fd, size).toString("utf8").split("\n", 1)[0] ?? "");
    if (typeof header !== "object" || header === null || (header as { version?: unknown }).version !== VERSION) return NOT_A_CAST;
    const whole = wholeLines(fd, size);
    return { kind: "cast", seconds: lastEventSeconds(fd, whole.keep), ...whole };
  } catch {
    return NOT_A_CAST;
  } finally {
    closeSync(fd);
  }
}

/**
 * A file's start, enough for its first line: a peek (read into `peek`, when given), or as far as
 * an asciicast header can go when the line is longer (it holds the agent's whole command line).
 */
export function firstLineBytes(fd: number, size: number, peek = Buffer.allocUnsafe(Math.min(PEEK_BYTES, size))): Buffer {
  const first = peek.subarray(0, readSync(fd, peek, 0, peek.length, 0));
  if (first.includes(0x0a) || first.length >= size) return first;
  return bytes(fd, 0, Math.min(size, MAX_HEADER_BYTES));
}

/**
 * Where a recording's whole lines end. A run killed mid-write or a full disk can leave a cut
 * line after them: appended to, it would end up mid-file and the recording be invalid, so it is
 * cut off. A file of a header without its "\n" (parsed whole, so it is all the file) keeps it.
 */
function wholeLines(fd: number, size: number): { keep: number; lead: string } {
  for (let end = size; end > 0; end -= PEEK_BYTES) {
    const at = Math.max(0, end - PEEK_BYTES);
    const newline = bytes(fd, at, end - at).lastIndexOf(0x0a);
    if (newline !== -1) return { keep: at + newline + 1, lead: "" };
  }
  return { keep: size, lead: "\n" };
}

/**
 * The time of the last event among the whole lines before `end`, 0 when there is none. Looked for
 * in a peek, then in spans four times as long, as far back as an event line can be long.
 */
function lastEventSeconds(fd: number, end: number): number {
  for (let span = PEEK_BYTES; ; span *= 4) {
    const at = Math.max(0, end - span);
    const lines = bytes(fd, at, end - at).toString("utf8").split("\n");
    // The first line of a span that does not start the file may be the end of a longer one.
    const event = lines.slice(at > 0 ? 1 : 0).reverse().map(parsed).find((line): line is [number, ...unknown[]] => Array.isArray(line) && typeof line[0] === "number");
    if (event !== undefined) return event[0];
    if (at === 0 || span >= MAX_CAST_LINE_BYTES) return 0;
  }
}

function bytes(fd: number, at: number, length: number): Buffer {
  const buffer = Buffer.alloc(length);
  return buffer.subarray(0, readSync(fd, buffer, 0, length, at));
}

function parsed(line: string): unknown {
  try {
    return JSON.parse(line);
  } catch {
    return undefined;
  }
}
