import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, expect, it } from "vitest";
import { fileLogger } from "../../src/log/logger.js";
import { HISTORY_LIMIT, PointerPin } from "../../src/run/pin.js";
import type { Pinned } from "../../src/engine/tracker.js";

let dir = "";
afterEach(() => rmSync(dir, { recursive: true, force: true }));

it("keeps only the newest earlier IDs, and writes the latest state once the burst is over", async () => {
  dir = mkdtempSync(join(tmpdir(), "sessionpin-pin-"));
  const path = join(dir, "pointer.json");
  const pin = new PointerPin(path, { agent: "flapper", cwd: dir }, fileLogger(join(dir, "log")));
  const pinned = (n: number): Pinned => ({ id: `F-${n}`, state: "confirmed", rule: "result", line: n });
  pin.apply({ kind: "captured", pinned: pinned(0) });
  for (let n = 1; n <= 200; n++) pin.apply({ kind: "changed", pinned: pinned(n), previous: pinned(n - 1) });
  await pin.settled();
  const written = JSON.parse(readFileSync(path, "utf8")) as { id: string; history: Array<{ id: string }> };
  expect(written.id).toBe("F-200");
  expect(written.history).toHaveLength(HISTORY_LIMIT);
  expect(written.history.at(0)?.id).toBe(`F-${200 - HISTORY_LIMIT}`);
  expect(written.history.at(-1)?.id).toBe("F-199");
  // Writes never overlap and never queue up: far fewer than the 201 events reached the disk.
  const landed = readFileSync(join(dir, "log"), "utf8").split("\n").filter((line) => line.includes(" → ")).length;
  expect(landed).toBeGreaterThan(0);
  expect(landed).toBeLessThan(201);
});
