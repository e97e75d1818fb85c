import { readFileSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { expect, it } from "vitest";
import { fileLogger } from "../../src/log/logger.js";
import { useTempDir } from "../pointer/tempdir.js";

const tmp = useTempDir();

it("is capped: past its limit the log becomes <log>.1, the one before goes, and a new one starts", () => {
  const path = join(tmp.path, "state", "p.log");
  const log = fileLogger(path, () => new Date("2026-11-29T00:00:00.000Z"), 1000);
  for (let i = 0; i < 100; i++) log.info(`line ${i} ${"x".repeat(40)}`);
  log.close();
  const now = readFileSync(path, "utf8");
  const before = readFileSync(`${path}.1`, "utf8");
  expect(statSync(path).size).toBeLessThan(1100);
  expect(statSync(`${path}.1`).size).toBeLessThan(1100);
  // The newest lines are kept, in order, and the oldest are gone.
  expect(now.trimEnd().split("\n").at(-1)).toContain("line 99 ");
  expect(before.trimEnd().split("\n").at(-1)).toMatch(/line \d+ /);
  expect(before + now).not.toContain("line 0 ");
});

it("rotates a log that is already past its limit when a run opens it, and never writes through a link at <log>.1", () => {
  const path = join(tmp.path, "p.log");
  writeFileSync(path, "y".repeat(2000));
  symlinkSync(join(tmp.path, "victim"), `${path}.1`);
  writeFileSync(join(tmp.path, "victim"), "untouched");
  const log = fileLogger(path, () => new Date("2026-11-29T00:00:00.000Z"), 1000);
  log.info("fresh");
  log.close();
  expect(readFileSync(path, "utf8")).toBe("2026-11-29T00:00:00.000Z info sessionpin[" + process.pid + "] fresh\n");
  expect(readFileSync(`${path}.1`, "utf8")).toBe("y".repeat(2000));
  expect(readFileSync(join(tmp.path, "victim"), "utf8")).toBe("untouched");
});

it("cuts a message longer than 4096 characters, saying how much was left out", () => {
  const path = join(tmp.path, "p.log");
  const log = fileLogger(path, () => new Date("2026-11-29T00:00:00.000Z"));
  log.warn(`captured ${"a".repeat(1 << 20)}`);
  log.close();
  const [line = ""] = readFileSync(path, "utf8").split("\n");
  expect(line.length).toBeLessThan(4200);
  expect(line).toMatch(/… \(1044489 more characters\)$/);
});
