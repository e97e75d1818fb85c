/**
 * The one naming rule of the temp files written beside a file before they are renamed or linked
 * into place: a sweep finds its own file's leftovers and their writer's pid, and nothing else.
 */
import { basename, dirname, join } from "node:path";
import { describe, expect, it } from "vitest";
import { tempPathFor, tempWriter } from "../../src/pointer/atomic.js";

const POINTER = "/state/sessionpin/claude/0a1b2c3d4e5f6071.json";

describe("tempPathFor and tempWriter", () => {
  it("names a temp file beside its file, hidden, unique, with its writer's pid", () => {
    const [one, two] = [tempPathFor(POINTER, 4242), tempPathFor(POINTER, 4242)];
    expect(dirname(one)).toBe(dirname(POINTER));
    expect(basename(one)).toMatch(/^\.0a1b2c3d4e5f6071\.json\.4242\.[0-9a-f]+\.tmp$/);
    expect(one).not.toBe(two);
    expect(tempWriter(POINTER, basename(one))).toBe(4242);
    expect(tempWriter(POINTER, basename(tempPathFor(POINTER)))).toBe(process.pid);
  });

  it("takes no other file's temp files, nor anything else, for its file's", () => {
    const lock = `${POINTER}.lock`;
    // The lock's temp files start with the pointer's name: its sweep must leave them.
    expect(tempWriter(POINTER, basename(tempPathFor(lock, 4242)))).toBeUndefined();
    expect(tempWriter(lock, basename(tempPathFor(lock, 4242)))).toBe(4242);
    for (const name of ["0a1b2c3d4e5f6071.json", ".0a1b2c3d4e5f6071.json.4242.tmp", ".0a1b2c3d4e5f6071.json.x.ab.tmp", ".0a1b2c3d4e5f6071.json.4242.AB.tmp", ".0a1b2c3d4e5f6071.json.4242.ab.tmp~"]) {
      expect(tempWriter(POINTER, name), name).toBeUndefined();
    }
    expect(tempWriter(join(dirname(POINTER), "other.json"), basename(tempPathFor(POINTER, 1)))).toBeUndefined();
  });
});
