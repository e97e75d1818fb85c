/** Shims as a user has them: written by the built CLI's `sessionpin shim install`, their folder first on PATH. */
import { spawnSync } from "node:child_process";
import { delimiter, join } from "node:path";
import { expect } from "vitest";
import { CLI, Sandbox } from "../helpers/sandbox.js";

/** A sandbox with `names` shimmed by `sessionpin shim install`, the shim folder first on PATH. */
export function shimmed(names: readonly string[], extraEnv: NodeJS.ProcessEnv = {}): { sb: Sandbox; shims: string } {
  const sb = new Sandbox(extraEnv);
  const shims = join(sb.dir, "shims");
  const installed = spawnSync(process.execPath, [CLI, "shim", "install", ...names, "--dir", shims], { env: sb.env, encoding: "utf8", timeout: 15_000 });
  expect(installed.stderr).toBe("");
  expect(installed.status).toBe(0);
  sb.env["PATH"] = `${shims}${delimiter}${sb.env["PATH"] ?? ""}`;
  return { sb, shims };
}

/** The agent by name, as a CI step calls it: pipes, not a terminal. */
export function call(sb: Sandbox, argv: readonly string[], env: NodeJS.ProcessEnv = {}) {
  const [file = "", ...args] = argv;
  const result = spawnSync(file, args, { cwd: sb.dir, env: { ...sb.env, ...env }, encoding: "utf8", timeout: 30_000 });
  if (result.error !== undefined) throw result.error;
  return result;
}

/** Where the sandbox's runs keep their pointers. */
export const statePointers = (sb: Sandbox): string => join(sb.dir, "xdg-state", "sessionpin");
