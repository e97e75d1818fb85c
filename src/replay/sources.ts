import { closeSync, createReadStream, openSync, statSync } from "node:fs";
import { PassThrough, type Readable } from "node:stream";
import { reasonOf, SessionpinError } from "../errors.js";
import { firstLineBytes, MAX_CAST_LINE_BYTES, MAX_HEADER_BYTES } from "../record/asciicast.js";
import { agentapiMessages } from "./agentapi-state.js";

export const FORMATS = ["cast", "raw", "jsonl", "agentapi-state"] as const;
export type Format = (typeof FORMATS)[number];

/** A piece of recorded agent output, with its time in the recording (seconds) when known. */
export interface Chunk {
  /** A Buffer is only valid until the next chunk is asked for: copy it to keep it. */
  readonly data: Buffer | string;
  readonly time?: number;
  /** An asciicast marker's label (`"m"` events), with no data: see CastRecorder.marker. */
  readonly marker?: string;
  /** Something about the recording itself that `explain` shows: an event passed over, a time unread. */
  readonly note?: string;
}

export interface Source {
  readonly format: Format;
  /** From an asciicast header: the terminal width and the recorded command. */
  readonly width?: number;
  readonly command?: string;
  readonly chunks: AsyncIterable<Chunk>;
  /**
   * A regular file of terminal bytes or JSON lines (its size is `size`), for a reader that reads
   * it by itself instead of through `chunks`; `reached` sets what `bytesRead` reports.
   */
  readonly file?: { readonly path: string; reached(offset: number): void };
  /** Input size when known (a file), and bytes read so far, for a progress bar. */
  readonly size?: number;
  bytesRead(): number;
}

/** Opens a recording (`-` is stdin), detecting its format unless `format` says it. */
export async function openSource(path: string, format: Format | "auto"): Promise<Source> {
  const size = path === "-" ? undefined : fileSize(path);
  if (size !== undefined) {
    const file = fileBytes(path, size, format);
    if (file !== undefined) return file;
  }
  const stream: Readable = path === "-" ? process.stdin : createReadStream(path);
  let read = 0;
  const counted = new PassThrough();
  stream.on("data", (chunk: Buffer) => void (read += chunk.length));
  stream.on("error", (error) => counted.destroy(error));
  stream.pipe(counted);
  // Detection needs the first line whole, and whether anything follows it: a slow pipe may hand
  // over a header in pieces. A format given is not waited for.
  const first = await firstBytes(counted, path, format === "auto" ? detectable() : () => true);
  const detected = format === "auto" ? detect(first) : format;
  const rest = rejoin(first, counted);
  const base = { format: detected, ...(size !== undefined ? { size } : {}), bytesRead: () => read };
  switch (detected) {
    case "cast":
      return castSource(rest, base, path);
    case "agentapi-state":
      return { ...base, chunks: agentapiMessages(rest, path) };
    case "raw":
    case "jsonl":
      // JSON lines go through the same pipeline as terminal bytes: lines that are objects are parsed.
      return { ...base, chunks: bytes(rest) };
  }
}

/**
 * asciicast starts with its header object, its keys in any order (`jq -S` sorts them): v2 with
 * `width`, v3 with `term`. agentapi's state is one object alone in its file, whose `messages`
 * each have a `message` text; pi's `agent_end` line has `messages` too, of another shape. A
 * byte-order mark in front is not content.
 */
function detect(first: Buffer): Format {
  const text = first.toString("utf8").replace(BOM, "");
  const end = text.indexOf("\n");
  const header = end < 0 ? undefined : parseJson(text.slice(0, end));
  if (typeof header === "object" && header !== null && !Array.isArray(header)) {
    const { version, width, term, messages } = header as { version?: unknown; width?: unknown; term?: unknown; messages?: unknown };
    if ((version === 2 && typeof width === "number") || (version === 3 && typeof term === "object")) return "cast";
    const alone = !/\S/.test(text.slice(end));
    const said = (m: unknown): boolean => typeof (m as { message?: unknown } | null)?.message === "string";
    return alone && Array.isArray(messages) && messages.every(said) ? "agentapi-state" : "jsonl";
  }
  // The first line is no whole object (a pretty-printed state file, or longer than this look).
  const head = text.slice(0, 4096).trimStart();
  // `jq .` or `json.tool` of a state file: "{" alone on the first line, "messages" below it.
  if (/^\{[ \t\r]*\n/.test(head) && /"messages"\s*:\s*\[/.test(head)) return "agentapi-state";
  if (head.startsWith("{") && /^\{[^\n]*"messages"\s*:\s*\[/.test(head) && !/\}\s*\n\s*\{/.test(head)) return "agentapi-state";
  if (head.startsWith("{")) return "jsonl";
  return "raw";
}

export { MAX_CAST_LINE_BYTES };

const BOM = /^\uFEFF/;
// How much of a regular file's head detection looks at, when its first line is no longer.
const HEAD_BYTES = 64 * 1024;

async function castSource(input: Readable, base: Omit<Source, "chunks">, path: string): Promise<Source> {
  const { CastHeader, CastEvent, UntimedEvent } = await import("./source-schemas.js");
  const lines = castLines(input, path)[Symbol.asyncIterator]();
  const headerLine = await lines.next();
  const header = CastHeader.safeParse(parseJson(headerLine.done ? "" : headerLine.value.replace(BOM, "")));
  if (!header.success) throw new SessionpinError("usage", `sessionpin: ${path}: not an asciicast v2 or v3 recording (bad header)`);
  const v3 = header.data.version === 3;
  async function* events(): AsyncIterable<Chunk> {
    let time = 0;
    // The header was line 1.
    for (let next = await lines.next(), n = 2; !next.done; next = await lines.next(), n++) {
      // v3's comment lines start with "#"; JSON never does.
      const json = parseJson(next.value);
      const event = CastEvent.safeParse(json);
      if (event.success && Number.isFinite(event.data[0])) {
        time = v3 ? time + event.data[0] : event.data[0];
        if (event.data[1] === "o") yield { data: event.data[2], time };
        if (event.data[1] === "m") yield { data: "", time, marker: event.data[2] };
        continue;
      }
      // An event whose time is no number of seconds (1e400 parses as Infinity) still holds the
      // output: replayed without a time, and said, never dropped without a word.
      const untimed = UntimedEvent.safeParse(json);
      if (untimed.success) {
        const [, kind, data] = untimed.data;
        const note = `line ${n}: time ${timeAsWritten(next.value)} is no number of seconds: ${kind === "o" || kind === "m" ? "replayed without a time" : "passed over"}`;
        if (kind === "o") yield { data, note };
        else if (kind === "m") yield { data: "", marker: data, note };
        else yield { data: "", note };
        continue;
      }
      // A run killed mid-write leaves a cut last line: the valid prefix is the recording.
      if (next.value.trim() !== "" && !next.value.startsWith("#")) yield { data: "", note: `line ${n} is no asciicast event: passed over` };
    }
  }
  const width = header.data.version === 3 ? header.data.term.cols : header.data.width;
  return { ...base, width, ...(header.data.command ? { command: header.data.command } : {}), chunks: events() };
}

/** The lines of a recording, CRLF or LF, each at most MAX_CAST_LINE_BYTES (a usage error past it). */
async function* castLines(input: Readable, path: string): AsyncIterable<string> {
  let parts: Buffer[] = [];
  let held = 0;
  let n = 0;
  const tooLong = (): SessionpinError => new SessionpinError("usage", `sessionpin: ${path}: line ${n + 1} is longer than ${MAX_CAST_LINE_BYTES / 1024 / 1024} MiB: no asciicast event is`);
  for await (const chunk of input) {
    let data = chunk as Buffer;
    for (let at = data.indexOf(0x0a); at >= 0; at = data.indexOf(0x0a)) {
      if (held + at > MAX_CAST_LINE_BYTES) throw tooLong();
      n++;
      const line = Buffer.concat([...parts, data.subarray(0, at)]).toString("utf8");
      parts = [];
      held = 0;
      yield line.endsWith("\r") ? line.slice(0, -1) : line;
      data = data.subarray(at + 1);
    }
    held += data.length;
    if (held > MAX_CAST_LINE_BYTES) throw tooLong();
    if (data.length > 0) parts.push(data);
  }
  if (held > 0) yield Buffer.concat(parts).toString("utf8");
}

async function* bytes(input: Readable): AsyncIterable<Chunk> {
  for await (const data of input) yield { data: data as Buffer };
}

/** The stream's first chunks, gathered until `enough` (told each chunk and the bytes so far) says so or it ends. */
async function firstBytes(stream: PassThrough, path: string, enough: (chunk: Buffer, total: number) => boolean): Promise<Buffer> {
  const parts: Buffer[] = [];
  let total = 0;
  return new Promise((resolve, reject) => {
    const done = (): void => {
      stream.off("readable", onReadable);
      stream.off("end", done);
      stream.off("error", onError);
      resolve(Buffer.concat(parts));
    };
    const onReadable = (): void => {
      for (let chunk = stream.read() as Buffer | null; chunk !== null; chunk = stream.read() as Buffer | null) {
        parts.push(chunk);
        total += chunk.length;
        if (enough(chunk, total)) return done();
      }
    };
    const onError = (error: NodeJS.ErrnoException): void =>
      reject(new SessionpinError("usage", `sessionpin: cannot read ${path}: ${reasonOf(error)}`, { cause: error }));
    stream.on("readable", onReadable);
    stream.on("end", done);
    stream.on("error", onError);
  });
}

/**
 * Whether the bytes so far are enough for detect(): the first line whole and something after it
 * (an agentapi state file is one object alone), or as much as an asciicast header can be.
 */
function detectable(): (chunk: Buffer, total: number) => boolean {
  let lineEnded = false;
  return (chunk, total) => {
    if (total >= MAX_HEADER_BYTES) return true;
    let from = 0;
    if (!lineEnded) {
      const end = chunk.indexOf(0x0a);
      if (end < 0) return false;
      lineEnded = true;
      from = end + 1;
    }
    return /\S/.test(chunk.toString("latin1", from));
  };
}

function rejoin(first: Buffer, rest: PassThrough): Readable {
  const joined = new PassThrough();
  joined.write(first);
  rest.on("error", (error) => joined.destroy(error));
  rest.pipe(joined);
  return joined;
}

/** An event line's time as its file writes it (`1e400`), cut short. */
function timeAsWritten(line: string): string {
  const start = line.indexOf("[") + 1;
  const end = line.indexOf(",", start);
  return line.slice(start, end < 0 ? start + 20 : Math.min(end, start + 20)).trim();
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** A regular file's size; undefined for anything else (a FIFO, a missing file: read as a stream). */
function fileSize(path: string): number | undefined {
  try {
    const stat = statSync(path);
    return stat.isFile() ? stat.size : undefined;
  } catch {
    return undefined;
  }
}

/**
 * A regular file of terminal bytes or JSON lines: its format detected from its head, its bytes
 * streamed only when `chunks` is read (a reader of `file` may read it instead). Other formats (and
 * files that cannot be opened, for the stream's error message) are left to the stream path.
 */
function fileBytes(path: string, size: number, format: Format | "auto"): Source | undefined {
  let detected: Format;
  try {
    const fd = openSync(path, "r");
    try {
      detected = format === "auto" ? detect(firstLineBytes(fd, size, Buffer.allocUnsafe(HEAD_BYTES))) : format;
    } finally {
      closeSync(fd);
    }
  } catch {
    return undefined;
  }
  if (detected !== "raw" && detected !== "jsonl") return undefined;
  let read = 0;
  async function* chunks(): AsyncIterable<Chunk> {
    for await (const data of createReadStream(path)) {
      read += (data as Buffer).length;
      yield { data: data as Buffer };
    }
  }
  return { format: detected, size, bytesRead: () => read, chunks: chunks(), file: { path, reached: (offset) => void (read = offset) } };
}
