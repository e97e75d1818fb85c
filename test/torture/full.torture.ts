import { execFileSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { cpus, loadavg } from "node:os";
import { join } from "node:path";
import { expect, it } from "vitest";
import { ROOT } from "../helpers/sandbox.js";
import { runFamily, table, type Row } from "./harness.js";
import { families } from "./families/index.js";

/**
 * `npm run torture`: every attack family at its full count, one after another (they share two
 * cores with nothing else of ours). Prints "attack | tried | held | failed" and writes it, with
 * the first failures of each family, to test/torture/results.json. TORTURE_SEED picks the seed
 * (default 20), TORTURE_ONLY a comma-separated list of family numbers.
 */
const seed = Number(process.env["TORTURE_SEED"] ?? 20);
const only = process.env["TORTURE_ONLY"]?.split(",").map((s) => s.trim());
const chosen = families.filter((f) => only === undefined || only.includes(f.name.split(" ")[0] ?? ""));

it("holds against every attack family at full count", async () => {
  const rows: Row[] = [];
  for (const family of chosen) {
    const row = await runFamily(family, "full", seed);
    rows.push(row);
    console.log(`${row.attack}: tried ${row.tried}, held ${row.held}, failed ${row.failed} (${row.seconds.toFixed(1)} s)`);
    for (const failure of row.failures.slice(0, 5)) console.log(`  ${failure.slice(0, 400)}`);
  }
  const printed = table(rows);
  console.log(`\n${printed}\n`);
  const git = (...args: string[]): string | undefined => {
    try {
      return execFileSync("git", args, { cwd: ROOT, encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] }).trim();
    } catch {
      return undefined;
    }
  };
  const results = {
    date: new Date().toISOString(),
    commit: git("rev-parse", "--short", "HEAD"),
    seed,
    machine: { cpus: cpus().length, load: loadavg()[0], node: process.version },
    table: printed,
    rows: rows.map((r) => ({ ...r, failures: r.failures.slice(0, 20).map((f) => f.slice(0, 1000)) })),
  };
  if (only === undefined) writeFileSync(join(ROOT, "test/torture/results.json"), `${JSON.stringify(results, null, 2)}\n`);
  expect(rows.flatMap((r) => r.failures)).toEqual([]);
});
