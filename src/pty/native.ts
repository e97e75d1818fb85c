import { createRequire } from "node:module";
import type * as NodePty from "@lydell/node-pty";
import { SessionpinError, messageOf } from "../errors.js";

/**
 * node-pty, loaded on first use: as `@lydell/node-pty`, the same code with one prebuilt binary
 * package per platform (`@lydell/node-pty-linux-x64`, …), so installing needs no compiler and no
 * install script. Loaded with require, not import: spawnAgent is synchronous, and commands that
 * never start a PTY (plan, replay, pointer, the library's replay) work without it.
 */
export type PtyModule = typeof NodePty;

export const PTY_PACKAGE = "@lydell/node-pty";

let loaded: PtyModule | undefined;

/** node-pty, or a SessionpinError whose one line says what is missing and how to fix it. */
export function ptyModule(): PtyModule {
  if (loaded !== undefined) return loaded;
  try {
    loaded = createRequire(import.meta.url)(PTY_PACKAGE) as PtyModule;
  } catch (error) {
    throw ptyUnavailable(error);
  }
  return loaded;
}

/**
 * Why node-pty did not load, as one line with the fix. The causes, by what @lydell/node-pty throws:
 * the package itself missing; its platform package missing (`--omit=optional`, or a node_modules
 * copied from another OS); no platform package for this OS/CPU at all; a binary that does not load
 * (musl, a glibc older than 2.28, a binary for another machine).
 */
export function ptyUnavailable(error: unknown, platform: string = process.platform, arch: string = process.arch): SessionpinError {
  const target = `${platform}-${arch}`;
  const binary = `${PTY_PACKAGE}-${target}`;
  const message = messageOf(error);
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  let line: string;
  if (code === "MODULE_NOT_FOUND" && message.includes(`'${PTY_PACKAGE}'`)) {
    line = `node-pty (${PTY_PACKAGE}) is not installed: reinstall sessionpin (in a clone: npm ci)`;
  } else if (message.includes("could not find the platform-specific package") || message.includes("could not find the binary package")) {
    line = `node-pty's prebuilt binary for ${target} (${binary}) is not installed: reinstall sessionpin without --omit=optional or --no-optional, on this machine`;
  } else if (message.includes("does not support your platform") || message.includes("might not be supported")) {
    line = `node-pty has no prebuilt binary for ${target}: sessionpin runs on Linux (glibc 2.28+) and macOS, x64 or arm64`;
  } else {
    const first = message.split("\n", 1)[0] ?? "";
    line = `node-pty's binary for ${target} does not load (${first}): it needs glibc 2.28+ (not musl/Alpine); reinstall sessionpin on this machine`;
  }
  return new SessionpinError("pty-unavailable", `sessionpin: cannot start a PTY: ${line}`, { cause: error });
}
