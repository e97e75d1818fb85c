import type { Readable } from "node:stream";
import { SessionpinError } from "../errors.js";
import { BACKSLASH, QUOTE, Skipper, StringBytes, WHITESPACE } from "./json-bytes.js";

/**
 * agentapi's state file, `{"version":1,"messages":[{"id","message","role","time"}],…}`, read as
 * it streams: memory stays bounded by one message, whatever the file's size. Parsed whole, a
 * 64 MB file took 448 MB and a 200 MB one 1.26 GB (issue 43). A message's text is held until its role is
 * known (agentapi writes `role` after `message`), at most MAX_MESSAGE_BYTES: agentapi's messages
 * are what it read off the agent's screen (67 × 1190 cells by default), far below that.
 */
export const MAX_MESSAGE_BYTES = 16 * 1024 * 1024;
// Fields other than the text are short (a role, an RFC 3339 time): longer ones are kept cut.
const MAX_FIELD_BYTES = 256;
// Fields sessionpin does not read are passed over with a depth count; agentapi nests 3 deep.
const MAX_SKIP_DEPTH = 10_000;

// Where the reader is: which byte it expects next.
const Mode = {
  BeforeTop: 0, TopKey: 1, TopKeyOrEnd: 2, TopColon: 3, TopValue: 4, TopCommaOrEnd: 5,
  ItemOrEnd: 6, Item: 7, MessageKey: 8, MessageKeyOrEnd: 9, MessageColon: 10, MessageValue: 11, MessageCommaOrEnd: 12, ItemCommaOrEnd: 13,
  AfterTop: 14, String: 15, Skip: 16,
} as const;
type Mode = (typeof Mode)[keyof typeof Mode];

/** Where a string being read goes. */
type Into = "top-key" | "message-key" | "message" | "role" | "time" | "skip";

interface Message {
  text: TextBuilder | undefined;
  role?: string;
  time?: string;
}

/** A message's text as it is read: one buffer, doubled as it fills, at most `max` bytes. */
class TextBuilder {
  #buffer = Buffer.allocUnsafe(4096);
  #length = 0;

  constructor(private readonly max: number, private readonly tooLong: () => never) {}

  append(bytes: Uint8Array): void {
    const length = this.#length + bytes.length;
    if (length > this.max) this.tooLong();
    if (length > this.#buffer.length) {
      const grown = Buffer.allocUnsafe(Math.min(this.max, Math.max(length, this.#buffer.length * 2)));
      this.#buffer.copy(grown, 0, 0, this.#length);
      this.#buffer = grown;
    }
    this.#buffer.set(bytes, this.#length);
    this.#length = length;
  }

  /** The text and a newline, in a buffer of its own. */
  line(): Buffer {
    const line = Buffer.allocUnsafe(this.#length + 1);
    this.#buffer.copy(line, 0, 0, this.#length);
    line[this.#length] = 0x0a;
    return line;
  }
}


/**
 * The state file's agent messages, in order, each as one chunk (its text and a newline) with its
 * time since the first agent message when both have one. A file that is no state file is a usage
 * error, raised where it stops being one: messages before that point have been yielded.
 */
export async function* agentapiMessages(input: Readable, path: string): AsyncIterable<StateChunk> {
  const reader = new StateReader(path);
  let start: number | undefined;
  const chunk = (message: Finished): StateChunk => {
    const at = Date.parse(message.time ?? "");
    start ??= at;
    return { data: message.text, ...(Number.isFinite(at) && Number.isFinite(start) ? { time: (at - start) / 1000 } : {}) };
  };
  for await (const data of input) {
    for (const message of reader.push(data as Buffer)) yield chunk(message);
  }
  reader.end();
}

/** A replay source's chunk (sources.ts): one agent message, and its time when known. */
export interface StateChunk {
  readonly data: Buffer;
  readonly time?: number;
}

interface Finished {
  readonly text: Buffer;
  readonly time: string | undefined;
}

/** A byte-at-a-time state machine over the file: no recursion, no value held but the message being read. */
class StateReader {
  #mode: Mode = Mode.BeforeTop;
  /** Where to go after the string or skipped value being read. */
  #then: Mode = Mode.BeforeTop;
  #into: Into = "skip";
  #offset = 0;
  #bom = 0;
  #sawMessages = false;
  #items = 0;
  #key = "";
  #small: number[] = [];
  #message: Message | undefined;
  #string: StringBytes | undefined;
  #skipper: Skipper | undefined;
  #done: Finished[] = [];
  readonly #failHere = (why: string): never => this.#fail(`${why} at byte ${this.#offset}`);

  constructor(private readonly path: string) {}

  push(data: Buffer): Finished[] {
    this.#done = [];
    for (let i = 0; i < data.length; i++) {
      // Runs of plain bytes in the text, or in a string passed over, are taken at once.
      const text = this.#mode === Mode.String && this.#into === "message" && this.#string?.plain === true;
      if (text || (this.#mode === Mode.Skip && this.#skipper?.plain === true)) {
        let end = i;
        while (end < data.length && data[end] !== QUOTE && data[end] !== BACKSLASH) end++;
        if (text && end > i) this.#text(data.subarray(i, end));
        this.#offset += end - i;
        i = end;
        if (i >= data.length) break;
      }
      this.#byte(data[i] as number);
      this.#offset++;
    }
    return this.#done;
  }

  end(): void {
    if (this.#mode !== Mode.AfterTop) this.#fail(this.#mode === Mode.BeforeTop ? "empty" : "it ends before its last message or field is whole");
  }

  #fail(why: string): never {
    throw new SessionpinError("usage", `sessionpin: ${this.path}: not an agentapi state file (${why})`);
  }

  #unexpected(byte: number, wanted: string): never {
    const shown = byte >= 0x21 && byte < 0x7f ? `"${String.fromCharCode(byte)}"` : `byte 0x${byte.toString(16).padStart(2, "0")}`;
    this.#fail(`${shown} at byte ${this.#offset} where ${wanted} should be`);
  }

  #byte(byte: number): void {
    if (this.#mode === Mode.String) {
      if (this.#string?.byte(byte) === true) this.#endString();
      return;
    }
    if (this.#mode === Mode.Skip) {
      const state = this.#skipper?.byte(byte);
      if (state === "more") return;
      this.#mode = this.#then;
      // A number ends at the byte after it, which belongs to what follows.
      if (state === "after") this.#byte(byte);
      return;
    }
    if (WHITESPACE.has(byte)) return;
    switch (this.#mode) {
      case Mode.BeforeTop:
        // A byte-order mark in front is not content.
        if (this.#offset === this.#bom && byte === [0xef, 0xbb, 0xbf][this.#bom]) {
          this.#bom++;
          return;
        }
        if (byte !== 0x7b) this.#unexpected(byte, "the state's opening {");
        this.#mode = Mode.TopKeyOrEnd;
        return;
      case Mode.TopKeyOrEnd:
      case Mode.TopKey:
        if (byte === 0x7d && this.#mode === Mode.TopKeyOrEnd) return this.#endTop();
        if (byte !== QUOTE) this.#unexpected(byte, "a field name");
        return this.#readString("top-key", Mode.TopColon);
      case Mode.TopColon:
        if (byte !== 0x3a) this.#unexpected(byte, "a colon");
        this.#mode = Mode.TopValue;
        return;
      case Mode.TopValue:
        if (this.#key !== "messages") return this.#skip(byte, Mode.TopCommaOrEnd);
        if (this.#sawMessages) this.#fail("two lists of messages");
        if (byte !== 0x5b) this.#fail("its messages are not a list");
        this.#sawMessages = true;
        this.#mode = Mode.ItemOrEnd;
        return;
      case Mode.TopCommaOrEnd:
        if (byte === 0x2c) this.#mode = Mode.TopKey;
        else if (byte === 0x7d) this.#endTop();
        else this.#unexpected(byte, "a comma or the closing }");
        return;
      case Mode.ItemOrEnd:
      case Mode.Item:
        if (byte === 0x5d && this.#mode === Mode.ItemOrEnd) {
          this.#mode = Mode.TopCommaOrEnd;
          return;
        }
        if (byte !== 0x7b) this.#fail(`message ${this.#items} is not an object`);
        this.#message = { text: undefined };
        this.#mode = Mode.MessageKeyOrEnd;
        return;
      case Mode.MessageKeyOrEnd:
      case Mode.MessageKey:
        if (byte === 0x7d && this.#mode === Mode.MessageKeyOrEnd) return this.#endMessage();
        if (byte !== QUOTE) this.#unexpected(byte, "a field name");
        return this.#readString("message-key", Mode.MessageColon);
      case Mode.MessageColon:
        if (byte !== 0x3a) this.#unexpected(byte, "a colon");
        this.#mode = Mode.MessageValue;
        return;
      case Mode.MessageValue: {
        const key = this.#key;
        if (key !== "message" && key !== "role" && key !== "time") return this.#skip(byte, Mode.MessageCommaOrEnd);
        if (byte !== QUOTE) this.#fail(`message ${this.#items}: its ${key} is not a string`);
        // The last of two "message" fields is the one JSON.parse keeps.
        if (key === "message" && this.#message) this.#message.text = new TextBuilder(MAX_MESSAGE_BYTES, () => this.#fail(`message ${this.#items} is longer than ${MAX_MESSAGE_BYTES / 1024 / 1024} MiB`));
        return this.#readString(key, Mode.MessageCommaOrEnd);
      }
      case Mode.MessageCommaOrEnd:
        if (byte === 0x2c) this.#mode = Mode.MessageKey;
        else if (byte === 0x7d) this.#endMessage();
        else this.#unexpected(byte, "a comma or the closing }");
        return;
      case Mode.ItemCommaOrEnd:
        if (byte === 0x2c) this.#mode = Mode.Item;
        else if (byte === 0x5d) this.#mode = Mode.TopCommaOrEnd;
        else this.#unexpected(byte, "a comma or the closing ]");
        return;
      case Mode.AfterTop:
        this.#unexpected(byte, "nothing more");
    }
  }

  #endTop(): void {
    if (!this.#sawMessages) this.#fail("no messages");
    this.#mode = Mode.AfterTop;
  }

  #endMessage(): void {
    const message = this.#message;
    this.#message = undefined;
    this.#mode = Mode.ItemCommaOrEnd;
    if (message === undefined) return;
    if (message.text === undefined) this.#fail(`message ${this.#items} has no text`);
    if (message.role === undefined) this.#fail(`message ${this.#items} has no role`);
    this.#items++;
    if (message.role !== "agent") return;
    this.#done.push({ text: message.text.line(), time: message.time });
  }

  #readString(into: Into, then: Mode): void {
    this.#into = into;
    this.#then = then;
    this.#mode = Mode.String;
    this.#small = [];
    this.#string = new StringBytes((bytes) => (into === "message" ? this.#text(bytes) : this.#smallBytes(bytes)), this.#failHere);
  }

  #smallBytes(bytes: Uint8Array): void {
    if (this.#small.length < MAX_FIELD_BYTES) this.#small.push(...bytes);
  }

  #text(bytes: Uint8Array): void {
    this.#message?.text?.append(bytes);
  }

  #endString(): void {
    const text = Buffer.from(this.#small).toString("utf8");
    switch (this.#into) {
      case "top-key":
      case "message-key":
        this.#key = text;
        break;
      case "role":
        if (this.#message) this.#message.role = text;
        break;
      case "time":
        if (this.#message) this.#message.time = text;
        break;
      default:
        break;
    }
    this.#string = undefined;
    this.#mode = this.#then;
  }

  /** Starts passing over a value no field of which is read, at its first byte. */
  #skip(byte: number, then: Mode): void {
    this.#then = then;
    this.#mode = Mode.Skip;
    this.#skipper = new Skipper(MAX_SKIP_DEPTH, this.#failHere);
    this.#byte(byte);
  }
}
