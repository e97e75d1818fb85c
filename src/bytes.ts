/**
 * Names that are bytes, kept as bytes in a string. Node decodes the command line and the
 * environment as UTF-8 and turns every byte that is not into U+FFFD, so `--key $'\xff'` and
 * `--key $'\xfe'` arrived as the same string: two chat threads shared one session, and a new
 * message was refused as one the session already had. Here a byte that is no part of valid UTF-8
 * becomes a lone low surrogate U+DC80-U+DCFF (as Python's "surrogateescape"), which no UTF-8 text
 * decodes to: valid UTF-8 reads as before, and every byte string reads as a string of its own.
 * `exactBytes` gives the bytes back, which the hashes of keys and message IDs are taken of.
 */

/** `bytes` as a string: UTF-8 where it is valid, each other byte as U+DC00 + byte. */
export function exactString(bytes: Uint8Array): string {
  let out = "";
  for (let i = 0; i < bytes.length;) {
    const length = validSequence(bytes, i);
    if (length === 0) {
      out += String.fromCharCode(0xdc00 + (bytes[i] as number));
      i++;
    } else {
      out += Buffer.from(bytes.buffer, bytes.byteOffset + i, length).toString("utf8");
      i += length;
    }
  }
  return out;
}

/** The bytes `exactString` read `text` from: UTF-8, but U+DC80-U+DCFF alone as the byte it stands for. */
export function exactBytes(text: string): Uint8Array {
  if (!/[\udc80-\udcff]/.test(text)) return Buffer.from(text, "utf8");
  const parts: Buffer[] = [];
  let from = 0;
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    const afterHigh = i > 0 && text.charCodeAt(i - 1) >= 0xd800 && text.charCodeAt(i - 1) <= 0xdbff;
    if (unit >= 0xdc80 && unit <= 0xdcff && !afterHigh) {
      parts.push(Buffer.from(text.slice(from, i), "utf8"), Buffer.of(unit - 0xdc00));
      from = i + 1;
    }
  }
  parts.push(Buffer.from(text.slice(from), "utf8"));
  return Buffer.concat(parts);
}

/** How many bytes at `at` make one valid UTF-8 character (RFC 3629: no overlong form, no surrogate), 0 when none. */
function validSequence(bytes: Uint8Array, at: number): number {
  const first = bytes[at] as number;
  if (first < 0x80) return 1;
  const cont = (k: number, low = 0x80, high = 0xbf): boolean => {
    const byte = bytes[at + k];
    return byte !== undefined && byte >= low && byte <= high;
  };
  if (first >= 0xc2 && first <= 0xdf) return cont(1) ? 2 : 0;
  if (first === 0xe0) return cont(1, 0xa0) && cont(2) ? 3 : 0;
  if ((first >= 0xe1 && first <= 0xec) || first === 0xee || first === 0xef) return cont(1) && cont(2) ? 3 : 0;
  if (first === 0xed) return cont(1, 0x80, 0x9f) && cont(2) ? 3 : 0;
  if (first === 0xf0) return cont(1, 0x90) && cont(2) && cont(3) ? 4 : 0;
  if (first >= 0xf1 && first <= 0xf3) return cont(1) && cont(2) && cont(3) ? 4 : 0;
  if (first === 0xf4) return cont(1, 0x80, 0x8f) && cont(2) && cont(3) ? 4 : 0;
  return 0;
}

/** A /proc file of NUL-terminated words (cmdline, environ), each as its bytes; a last NUL ends the last word. */
export function nulSeparated(data: Buffer): Buffer[] {
  const words: Buffer[] = [];
  for (let at = 0; at < data.length;) {
    const end = data.indexOf(0, at);
    words.push(data.subarray(at, end < 0 ? data.length : end));
    at = end < 0 ? data.length : end + 1;
  }
  return words;
}
