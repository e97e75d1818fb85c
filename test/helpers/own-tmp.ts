import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach } from "vitest";

/**
 * Gives each test that asks a temp folder of its own as TMPDIR, so what the code under test leaves
 * there can be counted; TMPDIR is put back and the folders removed after each test.
 */
export function ownTmpPerTest(label: string): () => string {
  const saved = process.env["TMPDIR"];
  const made: string[] = [];
  afterEach(() => {
    if (saved === undefined) delete process.env["TMPDIR"];
    else process.env["TMPDIR"] = saved;
    for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
  });
  return () => {
    const dir = mkdtempSync(join(tmpdir(), `${label}-`));
    made.push(dir);
    process.env["TMPDIR"] = dir;
    return dir;
  };
}
