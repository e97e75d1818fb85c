import { describe, expect, it } from "vitest";
import type { Pinned } from "../../../src/engine/tracker.js";
import { canSkip, type Block } from "../../../src/fast/replay/block.js";
import { PinCheck } from "../../../src/fast/replay/clues.js";

/**
 * Whether the reader may pass over a block a worker found, given the pin it holds by then. The
 * files the answers matter on are in equivalence.test.ts ("a thread whose bytes look confirmed…").
 */
const A = "T-0a1b2c3d-0000-4000-8000-00000000000a";
const B = "T-0a1b2c3d-0000-4000-8000-00000000000b";
const pin = (id: string, state: Pinned["state"]): Pinned => ({ id, state, rule: "test" });
const block = (skip?: Block["skip"]): Block => ({ start: 0, before: 0, ...(skip === undefined ? {} : { skip }) });

describe("canSkip", () => {
  it("passes over only what no line of the block could change", () => {
    const check = new PinCheck();
    const cases: Array<[string, Block, Pinned | undefined, boolean]> = [
      ["lines to read", block(), pin(A, "confirmed"), false],
      ["lines naming no ID", block({ mayConfirm: false }), undefined, true],
      ["lines naming A, nothing pinned", block({ value: A, mayConfirm: false }), undefined, false],
      ["lines naming A, B pinned", block({ value: A, mayConfirm: false }), pin(B, "confirmed"), false],
      ["lines naming A, A confirmed", block({ value: A, mayConfirm: true }), pin(A, "confirmed"), true],
      ["lines naming A, none confirming, A provisional", block({ value: A, mayConfirm: false }), pin(A, "provisional"), true],
      // A worker took a look-alike line for A's confirmation and stopped asking the lines after it:
      // one of them may be the line that confirms A.
      ["lines naming A, some maybe confirming, A provisional", block({ value: A, mayConfirm: true }), pin(A, "provisional"), false],
    ];
    for (const [name, given, pinned, skip] of cases) expect(canSkip(given, pinned, check), name).toBe(skip);
  });
});
