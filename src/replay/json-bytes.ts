/**
 * The two pieces of a JSON reader that takes its input a byte at a time and holds none of it:
 * a string's content decoded as it arrives, and a value passed over by counting its brackets.
 * agentapi-state.ts reads agentapi's state file with them. Neither recurses nor keeps more than a
 * few bytes of state, whatever the size or the depth of what it reads.
 */

export const QUOTE = 0x22;
export const BACKSLASH = 0x5c;
export const WHITESPACE: ReadonlySet<number> = new Set([0x20, 0x09, 0x0a, 0x0d]);
const ESCAPED: Readonly<Record<number, number>> = { 0x22: 0x22, 0x5c: 0x5c, 0x2f: 0x2f, 0x62: 0x08, 0x66: 0x0c, 0x6e: 0x0a, 0x72: 0x0d, 0x74: 0x09 };
const REPLACEMENT = Buffer.from("\uFFFD", "utf8");

/** Says what is wrong at a byte, and never returns (the reader's usage error). */
export type Fail = (why: string) => never;

/**
 * One JSON string's content, after its opening quote, as UTF-8 bytes: escapes resolved, a
 * surrogate pair from two \u escapes made one character, a lone half U+FFFD (as capture writes
 * the lone half JSON.parse would give).
 */
export class StringBytes {
  #escape = false;
  #hex: number[] | undefined;
  #high: number | undefined;

  constructor(
    private readonly out: (bytes: Uint8Array) => void,
    private readonly fail: Fail,
  ) {}

  /** Whether the next bytes up to a quote or backslash are the text as they are (handed to `out` at once). */
  get plain(): boolean {
    return !this.#escape && this.#hex === undefined && this.#high === undefined;
  }

  /** Takes one byte; true when it was the closing quote. */
  byte(byte: number): boolean {
    if (this.#hex !== undefined) {
      const digit = parseInt(String.fromCharCode(byte), 16);
      if (Number.isNaN(digit)) this.fail("a bad \\u escape");
      this.#hex.push(digit);
      if (this.#hex.length === 4) {
        const unit = this.#hex.reduce((sum, d) => sum * 16 + d, 0);
        this.#hex = undefined;
        this.#unit(unit);
      }
      return false;
    }
    if (this.#escape) {
      this.#escape = false;
      if (byte === 0x75) {
        this.#hex = [];
        return false;
      }
      const plain = ESCAPED[byte];
      if (plain === undefined) this.fail("a bad escape");
      this.#emit(Buffer.of(plain));
      return false;
    }
    if (byte === BACKSLASH) {
      this.#escape = true;
      return false;
    }
    if (byte === QUOTE) {
      this.#flushHigh();
      return true;
    }
    this.#emit(Buffer.of(byte));
    return false;
  }

  #unit(unit: number): void {
    const high = this.#high;
    this.#high = undefined;
    if (high !== undefined && unit >= 0xdc00 && unit <= 0xdfff) return this.out(Buffer.from(String.fromCharCode(high, unit), "utf8"));
    if (high !== undefined) this.out(REPLACEMENT);
    if (unit >= 0xd800 && unit <= 0xdbff) this.#high = unit;
    else this.out(unit >= 0xdc00 && unit <= 0xdfff ? REPLACEMENT : Buffer.from(String.fromCharCode(unit), "utf8"));
  }

  #emit(bytes: Uint8Array): void {
    this.#flushHigh();
    this.out(bytes);
  }

  #flushHigh(): void {
    if (this.#high === undefined) return;
    this.#high = undefined;
    this.out(REPLACEMENT);
  }
}

/**
 * A value no field of which is read, passed over from its first byte: strings, numbers, true,
 * false, null and containers, by a depth count (at most `maxDepth`) instead of a recursion.
 */
export class Skipper {
  #depth = 0;
  #string = false;
  #escape = false;
  #scalar = false;

  constructor(
    private readonly maxDepth: number,
    private readonly fail: Fail,
  ) {}

  /** Inside a string, past any escape: bytes up to a quote or backslash change nothing. */
  get plain(): boolean {
    return this.#string && !this.#escape;
  }

  /**
   * Takes one byte: "more" while the value goes on, "done" when the byte ended it, "after" when
   * the value had ended before this byte (a number ends at what follows it), which belongs to
   * what comes next.
   */
  byte(byte: number): "more" | "done" | "after" {
    if (this.#string) {
      if (this.#escape) this.#escape = false;
      else if (byte === BACKSLASH) this.#escape = true;
      else if (byte === QUOTE) {
        this.#string = false;
        if (this.#depth === 0) return "done";
      }
      return "more";
    }
    if (this.#scalar) {
      if (isScalarByte(byte)) return "more";
      this.#scalar = false;
      if (this.#depth === 0) return "after";
    }
    if (byte === QUOTE) this.#string = true;
    else if (byte === 0x7b || byte === 0x5b) {
      if (++this.#depth > this.maxDepth) this.fail(`a field nested more than ${this.maxDepth} deep`);
    } else if (byte === 0x7d || byte === 0x5d) {
      if (this.#depth === 0) this.fail("a closing bracket where a value should be");
      if (--this.#depth === 0) return "done";
    } else if (isScalarByte(byte)) {
      this.#scalar = true;
    } else if (!WHITESPACE.has(byte) && !(this.#depth > 0 && (byte === 0x2c || byte === 0x3a))) {
      this.fail("a byte where a value should be");
    }
    return "more";
  }

  /** At the end of the input: whether the value was whole (a number may end there). */
  get whole(): boolean {
    return this.#depth === 0 && !this.#string;
  }
}

// Numbers, true, false, null: passed over, not checked letter by letter.
function isScalarByte(byte: number): boolean {
  return (byte >= 0x30 && byte <= 0x39) || (byte >= 0x61 && byte <= 0x7a) || byte === 0x2d || byte === 0x2b || byte === 0x2e || byte === 0x45;
}
