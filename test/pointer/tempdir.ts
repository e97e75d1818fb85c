import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach } from "vitest";

/** A fresh temp folder per test, removed afterwards; read `.path` inside a test. */
export function useTempDir(): { path: string } {
  const dir = { path: "" };
  beforeEach(async () => {
    dir.path = await mkdtemp(join(tmpdir(), "sessionpin-pointer-"));
  });
  afterEach(async () => {
    await rm(dir.path, { recursive: true, force: true });
  });
  return dir;
}
