import { md5 } from "@noble/hashes/legacy.js";
import { sha256 } from "@noble/hashes/sha2.js";
import { bytesToHex, utf8ToBytes } from "@noble/hashes/utils.js";
import { exactBytes } from "./bytes.js";

/**
 * The hashes and names sessionpin makes before an agent starts (the pointer path's and the driver
 * lock's hashes, temp file names), without node:crypto: importing it loads 20 of Node's internal
 * modules, ~3 ms of every agent's start. @noble/hashes is audited, has no dependencies, and gives
 * the same digests (pointer paths made by earlier versions stay where they were).
 */

/**
 * The SHA-256 of `text`'s UTF-8 bytes, as lowercase hex; a key's or message ID's bytes that were no
 * UTF-8 are hashed as the bytes they were (src/bytes.ts), so two such keys never share a hash.
 */
export function sha256Hex(text: string): string {
  return bytesToHex(sha256(exactBytes(text)));
}

/** What sha256Hex writes: a message's fingerprint in a pointer, a file's in an archive's manifest. */
export const SHA256_HEX = /^[0-9a-f]{64}$/;

/** The MD5 of `text`'s UTF-8 bytes, as lowercase hex: only to find a folder another program named so. */
export function md5Hex(text: string): string {
  return bytesToHex(md5(utf8ToBytes(text)));
}

/**
 * 12 hex digits that make a temp file's name unlikely to be taken. Not secret: the file is
 * created exclusively ("wx"), in a folder only its owner can write.
 */
export function uniqueHex(): string {
  return Math.floor(Math.random() * 2 ** 48).toString(16).padStart(12, "0");
}

/** A random (version 4) UUID, from Web Crypto: loaded only when one is asked for (a new Claude session). */
export function randomUuid(): string {
  return globalThis.crypto.randomUUID();
}
