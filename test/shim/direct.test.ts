/**
 * runDirect ends the process it runs in, so it runs in a child node here, from the build (as the
 * shims run it): what that child's caller sees is what a shim's caller sees.
 */
import { spawn, spawnSync } from "node:child_process";
import { once } from "node:events";
import { chmodSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ROOT } from "../helpers/sandbox.js";
import { useTempDir } from "../pointer/tempdir.js";

const tmp = useTempDir();
const DIRECT = join(ROOT, "dist/shim/direct.js");

/** `node -e` running `file args` through runDirect. */
function directArgv(file: string, args: readonly string[]): string[] {
  const code = `import(${JSON.stringify(DIRECT)}).then((m) => m.runDirect(${JSON.stringify(file)}, ${JSON.stringify(args)}));`;
  return ["-e", code];
}

function script(name: string, body: string, mode = 0o755): string {
  const path = join(tmp.path, name);
  writeFileSync(path, `#!/bin/sh\n${body}\n`);
  chmodSync(path, mode);
  return path;
}

describe("runDirect", () => {
  it("gives the child this process's stdin, stdout and stderr, and ends with its exit code", () => {
    const agent = script("agent", `printf 'args:%s|%s\\n' "$1" "$2"; cat; printf 'warned\\n' >&2; exit 7`);
    const result = spawnSync(process.execPath, directArgv(agent, ["a b", "--x"]), { input: "typed\x00bytes\n", encoding: "latin1", timeout: 20_000 });
    expect(result.stdout).toBe("args:a b|--x\ntyped\x00bytes\n");
    expect(result.stderr).toBe("warned\n");
    expect(result.status).toBe(7);
  });

  it("ends by the signal that ended the child", () => {
    const agent = script("agent", "kill -TERM $$");
    const result = spawnSync(process.execPath, directArgv(agent, []), { encoding: "utf8", timeout: 20_000 });
    expect({ status: result.status, signal: result.signal, stderr: result.stderr }).toEqual({ status: null, signal: "SIGTERM", stderr: "" });
  });

  it("passes a signal sent to it on to the child, and ends as the child then ends", async () => {
    const agent = script("agent", `trap 'echo got-usr1; exit 40' USR1; echo ready; while :; do sleep 0.05; done`);
    const child = spawn(process.execPath, directArgv(agent, []), { stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    child.stdout.on("data", (chunk: Buffer) => void (out += chunk.toString()));
    try {
      for (let i = 0; i < 400 && !out.includes("ready"); i++) await new Promise((resolve) => setTimeout(resolve, 25));
      expect(out).toBe("ready\n");
      const exited = once(child, "exit");
      child.kill("SIGUSR1");
      const late = new Promise((resolve) => setTimeout(() => resolve("still running after 10 s"), 10_000).unref());
      expect(await Promise.race([exited, late])).toEqual([40, null]);
      expect(out).toBe("ready\ngot-usr1\n");
    } finally {
      child.kill("SIGKILL");
    }
  }, 30_000);

  it("says why a file did not run, with a shell's exit code: 127 when missing, 126 when not executable", () => {
    const missing = spawnSync(process.execPath, directArgv(join(tmp.path, "nowhere"), []), { encoding: "utf8", timeout: 20_000 });
    expect(missing.status).toBe(127);
    expect(missing.stderr).toMatch(new RegExp(`^sessionpin: ${join(tmp.path, "nowhere")}: spawn .* ENOENT\\n$`));
    const plain = script("plain", "exit 0", 0o644);
    const refused = spawnSync(process.execPath, directArgv(plain, []), { encoding: "utf8", timeout: 20_000 });
    expect(refused.status).toBe(126);
    expect(refused.stderr).toMatch(new RegExp(`^sessionpin: ${plain}: spawn .*EACCES\\n$`));
  });
});
