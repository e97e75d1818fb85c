/**
 * Reading a file beside a pointer that may be anything: no further than its bound, whatever size
 * fstat said, and a lock never through a link nor waiting on a FIFO.
 */
import { execFileSync } from "node:child_process";
import { closeSync, mkdtempSync, openSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { MAX_LOCK_BYTES, readCapped, readLockText } from "../../src/pointer/capped.js";

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "sessionpin-capped-"));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

function capped(bytes: number, max: number, size?: number): number | undefined {
  const path = join(dir, `f${bytes}`);
  writeFileSync(path, Buffer.alloc(bytes, "a"));
  const fd = openSync(path, "r");
  try {
    return readCapped(fd, max, size)?.length;
  } finally {
    closeSync(fd);
  }
}

describe("readCapped", () => {
  it("reads a file whole up to its bound, and nothing of one past it, whatever size it was told", () => {
    for (const size of [undefined, 0, 10, 100_000, 1 << 20]) {
      expect(capped(0, 100_000, size), `size ${size}`).toBe(0);
      expect(capped(100_000, 100_000, size), `size ${size}`).toBe(100_000);
      expect(capped(100_001, 100_000, size), `size ${size}`).toBeUndefined();
    }
  });
});

describe("readLockText", () => {
  it("gives a lock's text, nothing for one gone, and says a file past the bound is too large", () => {
    writeFileSync(join(dir, "a.lock"), '{"pid":1}');
    expect(readLockText(join(dir, "a.lock"))).toBe('{"pid":1}');
    expect(readLockText(join(dir, "gone.lock"))).toBeUndefined();
    writeFileSync(join(dir, "big.lock"), Buffer.alloc(MAX_LOCK_BYTES + 1, " "));
    expect(readLockText(join(dir, "big.lock"))).toBe("too large");
  });

  it("never reads through a link, and does not wait for a FIFO's writer", () => {
    writeFileSync(join(dir, "a.lock"), '{"pid":1}');
    symlinkSync(join(dir, "a.lock"), join(dir, "link.lock"));
    expect(() => readLockText(join(dir, "link.lock"))).toThrow(/ELOOP/);
    execFileSync("mkfifo", [join(dir, "fifo.lock")]);
    expect(readLockText(join(dir, "fifo.lock"))).toBe("");
  });
});
