/**
 * What the install tests share: a temp folder with a PATH of its own holding node, npm and a few
 * basic tools (linked one by one) and no compiler, so an install that tried to build anything would
 * fail; and runs in it, each bounded in time.
 */
import { spawnSync, type SpawnSyncReturns } from "node:child_process";
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { resolveExecutable } from "../../src/pty/which.js";
import { ROOT } from "../helpers/sandbox.js";

const TOOLS = ["sh", "bash", "env", "cat", "ls", "mkdir", "rm", "cp", "mv", "chmod", "ln", "tar", "gzip", "uname", "sed", "grep", "head", "tail", "true"];
export const COMPILERS = ["make", "cc", "gcc", "c++", "g++", "clang", "python", "python3", "node-gyp"];

export class InstallSandbox {
  readonly dir = realpathSync(mkdtempSync(join(tmpdir(), "sessionpin-install-")));
  /** The only folder on PATH. */
  readonly path = join(this.dir, "path");

  constructor() {
    mkdirSync(this.path);
    symlinkSync(process.execPath, join(this.path, "node"));
    const npm = process.env["npm_execpath"]?.endsWith("npm-cli.js") ? process.env["npm_execpath"] : resolveExecutable("npm", process.env, ROOT);
    symlinkSync(npm, join(this.path, "npm"));
    for (const tool of TOOLS) {
      try {
        symlinkSync(resolveExecutable(tool, process.env, ROOT), join(this.path, tool));
      } catch {
        // Not on this machine: npm and the demo do without it.
      }
    }
  }

  /** Runs `file` with the compiler-free PATH. */
  run(file: string, args: readonly string[], options: { cwd?: string; env?: NodeJS.ProcessEnv; timeoutMs: number }): SpawnSyncReturns<string> {
    const result = spawnSync(file, args, { cwd: options.cwd ?? this.dir, env: { ...options.env, PATH: this.path }, encoding: "utf8", timeout: options.timeoutMs, killSignal: "SIGKILL" });
    if (result.error !== undefined) throw result.error;
    return result;
  }

  /** npm with the user's npm config and cache, but none of the npm_* variables `npm test` set for itself. */
  npmEnv(): NodeJS.ProcessEnv {
    const kept = new Set(["npm_config_cache", "npm_config_userconfig", "npm_config_globalconfig", "npm_config_registry"]);
    return {
      ...Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith("npm_") || kept.has(name))),
      npm_config_logs_dir: join(this.dir, "npm-logs"),
      npm_config_update_notifier: "false",
    };
  }

  remove(): void {
    rmSync(this.dir, { recursive: true, force: true });
  }
}
