import { assembleByteScan } from "./module.js";
import { INPUT_BYTES, NEEDLE_BYTES, NEEDLES_AT, SHAPE_AT, SLOT_FIELDS, SLOTS, SLOTS_AT } from "./layout.js";

/**
 * The skim's questions of a read's bytes, asked in WebAssembly (module.ts): the shape of a run of
 * whole lines (shape.ts), and how often a few needles occur in it (tally.ts), without a string
 * made of the bytes. Searches of a latin1 string stop at every place of the first character they
 * look for, and the JavaScript around a Buffer's `indexOf` cost as much as the skim's other
 * questions together.
 */

/** Whole lines, searched in their bytes for a few needles at once (ByteScan.tally). */
export interface LinesBytes {
  /** Whether one byte (a latin1 character) is anywhere in the lines. */
  includes(byte: string): boolean;
  /**
   * For each needle, the places its first `counted` bytes start at in the lines, or -1 when the
   * rest of it does not follow one of them. Valid until the next call.
   */
  tally(needles: readonly Needle[]): ArrayLike<number>;
}

/** A latin1 string looked for: the places of its first `counted` bytes, each followed by the rest or not. */
export interface Needle {
  readonly bytes: string;
  readonly counted: number;
}

// The project's lib (ES2023, no DOM) has no WebAssembly types; Node has the API.
interface Wasm {
  Module: new (bytes: Uint8Array) => object;
  Instance: new (module: object) => { readonly exports: Record<string, unknown> };
}
const wasm = (globalThis as unknown as { WebAssembly: Wasm }).WebAssembly;
let compiled: object | undefined;

/** The most bytes one call looks at. */
export const BYTE_SCAN_BYTES = INPUT_BYTES;

type ScanFunction = (from: number, end: number, out: number) => number;

/** One scanner per reader: it owns a small WebAssembly memory the bytes are looked at in. */
export class ByteScan {
  readonly #shape: ScanFunction;
  /** The tally for k slots at k - 1. */
  readonly #tallies: ScanFunction[];
  readonly #find: ScanFunction;
  readonly #needleMemory: Buffer;
  /** Where each needle `tally` was given is in the memory, and where the next one goes. */
  #needles = new Map<string, number>();
  #needlesEnd = NEEDLES_AT;
  /** How often the needles' room was emptied: a slot placed before the last time is stale. */
  #emptied = 0;
  readonly #slots: Int32Array;
  /** Which needle each used slot holds. */
  readonly #slotNeedle = new Int32Array(SLOTS);
  #tallied = new Int32Array(SLOTS);
  /**
   * The needles the slots hold, all of them, placed by the last call: any other call places its
   * own (and only such a call empties the room they are written in).
   */
  #slotsFor: readonly Needle[] | undefined;
  /** The span `lines` answers for (its one object is handed out again by each call). */
  #linesFrom = 0;
  #linesTo = 0;
  readonly #lines: LinesBytes = {
    includes: (byte) => this.includes(byte, this.#linesFrom, this.#linesTo),
    tally: (needles) => this.tally(needles, this.#linesFrom, this.#linesTo),
  };
  readonly #memory: Uint8Array;
  /** Where `shape` leaves its count of line breaks. */
  readonly #shaped: Int32Array;
  /**
   * Read into this to have the bytes looked at where they lie; any other chunk is copied in.
   * `shape` overwrites the 64 bytes after its chunk here.
   */
  readonly input: Buffer;

  constructor() {
    compiled ??= new wasm.Module(assembleByteScan());
    const { exports } = new wasm.Instance(compiled);
    const memory = exports["memory"] as { readonly buffer: ArrayBuffer };
    this.#shape = exports["shape"] as ScanFunction;
    this.#find = exports["find"] as ScanFunction;
    this.#tallies = Array.from({ length: SLOTS }, (_, s) => exports[`tally${s + 1}`] as ScanFunction);
    this.#needleMemory = Buffer.from(memory.buffer, NEEDLES_AT, NEEDLE_BYTES);
    this.#slots = new Int32Array(memory.buffer, SLOTS_AT, SLOTS * SLOT_FIELDS);
    this.#memory = new Uint8Array(memory.buffer);
    this.#shaped = new Int32Array(memory.buffer, SHAPE_AT, 1);
    this.input = Buffer.from(memory.buffer, 0, INPUT_BYTES);
  }

  /**
   * Looks at the lines of `chunk` (at most BYTE_SCAN_BYTES) from `from` on, where a line starts,
   * and returns the offset just after the last LF (`from` when there is none): what a run of
   * whole lines is told from by the skim (blocks.ts), without a string made of each line.
   * `breaks` then says how many line breaks those lines hold.
   */
  shape(chunk: Uint8Array, from: number, end = chunk.length): number {
    if (end > INPUT_BYTES) throw new RangeError(`ByteScan takes at most ${INPUT_BYTES} bytes at a time, got ${end}`);
    // Bytes read into `input` are where they are looked at already.
    if (chunk.buffer !== this.#memory.buffer || chunk.byteOffset !== 0) this.#memory.set(end === chunk.length ? chunk : chunk.subarray(0, end));
    return this.#shape(from, end, SHAPE_AT);
  }

  /**
   * The line breaks of the whole lines `shape` looked at last, counted as LineSplitter counts
   * them; undefined when a line there must go through the splitter (shape.ts says which).
   */
  get breaks(): number | undefined {
    const breaks = this.#shaped[0] ?? -1;
    return breaks < 0 ? undefined : breaks;
  }

  /**
   * For each needle, in bytes [from, to) of the chunk last scanned: the places its first `counted`
   * bytes start at, or -1 when the rest of it does not follow one of them. Up to SLOTS needles
   * are looked for in one pass. This scanner's own array, its first `needles.length` entries;
   * valid until the next call. The same array asked again must hold the same needles.
   */
  tally(needles: readonly Needle[], from: number, to: number): Int32Array {
    // The skim asks the same needles of every read while a pin holds: their slots are still set.
    if (needles === this.#slotsFor) {
      this.#tallySlots(needles.length, from, to);
      return this.#tallied;
    }
    this.#slotsFor = undefined;
    if (this.#tallied.length < needles.length) this.#tallied = new Int32Array(needles.length);
    const tallied = this.#tallied;
    const pass = (used: number): void => {
      this.#place(needles, used);
      this.#tallySlots(used, from, to);
    };
    let used = 0;
    let slotted = 0;
    for (let index = 0; index < needles.length; index++) {
      const needle = needles[index] as Needle;
      if (needle.counted < 1 || needle.counted > needle.bytes.length) throw new RangeError(`a needle counts 1 to ${needle.bytes.length} of its bytes, not ${needle.counted}`);
      if (needle.counted < 2 || needle.bytes.length > NEEDLE_BYTES / SLOTS) {
        tallied[index] = this.#tallyInBuffer(needle, from, to);
        continue;
      }
      this.#slotNeedle[used++] = index;
      slotted++;
      if (used === SLOTS) {
        pass(used);
        used = 0;
      }
    }
    if (used > 0) pass(used);
    // One pass took them all: the slots stay set for the next call with the same needles.
    if (slotted === needles.length && slotted <= SLOTS) this.#slotsFor = needles;
    return tallied;
  }

  /**
   * Whether `byte` (one latin1 character) is anywhere in bytes [from, to) of the chunk last
   * scanned. In WebAssembly: Buffer's `indexOf` is a `memchr`, but its way there from JavaScript
   * cost as much as a skim's other questions together.
   */
  includes(byte: string, from: number, to: number): boolean {
    if (byte.length !== 1) throw new RangeError(`includes looks for one byte, not ${JSON.stringify(byte)}`);
    return this.#find(from, to, byte.charCodeAt(0)) !== -1;
  }

  /** Bytes [from, to) of the chunk last scanned, searched as above: valid until the next call. */
  lines(from: number, to: number): LinesBytes {
    this.#linesFrom = from;
    this.#linesTo = to;
    return this.#lines;
  }

  /** One pass for the needles the first `used` slots hold. */
  #tallySlots(used: number, from: number, to: number): void {
    const slots = this.#slots;
    for (let s = 0; s < used; s++) {
      const at = s * SLOT_FIELDS;
      slots[at + 3] = 0;
      slots[at + 4] = 0;
    }
    (this.#tallies[used - 1] as ScanFunction)(from, to, used);
    for (let s = 0; s < used; s++) {
      const at = s * SLOT_FIELDS;
      this.#tallied[this.#slotNeedle[s] ?? 0] = (slots[at + 4] ?? 0) > 0 ? -1 : slots[at + 3] ?? 0;
    }
  }

  /** Writes the needles of the first `used` slots into them. */
  #place(needles: readonly Needle[], used: number): void {
    const slots = this.#slots;
    // Each needle at most a SLOTS-th of the room: one emptying leaves room for all of them.
    for (let emptied = -1; emptied !== this.#emptied;) {
      emptied = this.#emptied;
      for (let s = 0; s < used; s++) {
        const needle = needles[this.#slotNeedle[s] ?? 0] as Needle;
        const at = s * SLOT_FIELDS;
        slots[at] = this.#placed(needle.bytes);
        slots[at + 1] = needle.counted;
        slots[at + 2] = needle.bytes.length;
      }
    }
  }

  /** The needle's place in the memory, where it was written the first time it was asked for. */
  #placed(needle: string): number {
    const known = this.#needles.get(needle);
    if (known !== undefined) return known;
    if (this.#needlesEnd + needle.length > NEEDLES_AT + NEEDLE_BYTES) {
      this.#needles.clear();
      this.#needlesEnd = NEEDLES_AT;
      this.#emptied++;
    }
    const at = this.#needlesEnd;
    this.#needleMemory.write(needle, at - NEEDLES_AT, "latin1");
    this.#needles.set(needle, at);
    this.#needlesEnd += needle.length;
    return at;
  }

  /** The same, for a needle the slots do not take (one byte counted, or longer than a slot's room). */
  #tallyInBuffer({ bytes, counted }: Needle, from: number, to: number): number {
    const span = this.input.subarray(0, to);
    const head = bytes.slice(0, counted);
    let places = 0;
    for (let at = span.indexOf(head, from, "latin1"); at !== -1; at = span.indexOf(head, at + 1, "latin1")) {
      places++;
      if (counted < bytes.length && (at + bytes.length > to || span.toString("latin1", at, at + bytes.length) !== bytes)) return -1;
    }
    return places;
  }
}
