/**
 * A watched source's look is written once, as the reads it needs; the watch runs it at once (before
 * the spawn, after the exit) or off the relay's thread (while the agent runs). Both runs must give
 * the look the same answers, and a look off the thread that stop() overtook must go no further.
 */
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { jsonAt, kindAt, listingOf, lookNow, lookOffThread, spanOf, stampOf, type Look } from "../../src/engine/store-reads.js";

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "sessionpin-reads-"));
  mkdirSync(join(dir, "sub"));
  writeFileSync(join(dir, "a.json"), '{"session":{"id":"x"}}');
  writeFileSync(join(dir, "log"), "one\ntwo\n");
  symlinkSync(join(dir, "log"), join(dir, "link"));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** A look at every kind of read, keeping what each answered. */
function everyRead(answers: unknown[]): () => Look {
  return function* look(): Look {
    const stamp = yield* stampOf(dir);
    answers.push(stamp === undefined ? undefined : "stamped");
    answers.push(yield* listingOf({ dir, depth: 1 }));
    answers.push(yield* kindAt(join(dir, "sub")), yield* kindAt(join(dir, "link")), yield* kindAt(join(dir, "none")));
    const span = yield* spanOf(join(dir, "log"), 4, { maxBytes: 3 });
    answers.push(typeof span === "object" ? [span.bytes.toString(), span.size] : span);
    answers.push(yield* spanOf(join(dir, "link"), 0, { maxBytes: 3 }));
    answers.push(yield* jsonAt(join(dir, "a.json"), { maxBytes: 100 }), yield* jsonAt(join(dir, "a.json"), { maxBytes: 5 }));
  };
}

describe("a look, run at once or off the thread", () => {
  it("gets the same answers either way, through the bounded readers", async () => {
    const now: unknown[] = [];
    lookNow(everyRead(now)());
    const later: unknown[] = [];
    expect(await lookOffThread(everyRead(later)(), () => true)).toBe(true);
    expect(later).toEqual(now);
    expect(now).toEqual([
      "stamped",
      { kind: "listed", entries: expect.arrayContaining(["a.json", "log", "link", "sub"]) as unknown, folders: ["sub"] },
      "folder", "link", undefined,
      ["two", 8],
      // Never through a link, and no JSON file bigger than the bound.
      undefined,
      { session: { id: "x" } }, undefined,
    ]);
  });

  it("off the thread, stops at the first answer after it is no longer live, and goes no further", async () => {
    let live = true;
    const reached: string[] = [];
    function* look(): Look {
      reached.push("first");
      yield* stampOf(dir);
      reached.push("second");
      live = false;
      yield* stampOf(dir);
      reached.push("third");
    }
    expect(await lookOffThread(look(), () => live)).toBe(false);
    expect(reached).toEqual(["first", "second"]);
  });
});
