/**
 * The shim scripts themselves, run by each sh this machine has (dash as /bin/sh here, bash as
 * macOS's /bin/sh is), on real files: which executable a shim finds, and that it never finds a
 * shim, however the shim folders sit on PATH. sessionpin is kept out of the way with
 * SESSIONPIN_RUN_PID (a shim under a run goes straight to the agent) or a missing entry, so only
 * the script is tested here; test/shim/exec.test.ts runs shims through sessionpin.
 */
import { spawnSync } from "node:child_process";
import { chmodSync, copyFileSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { installShims } from "../../src/shim/folder.js";
import { resolveExecutable } from "../../src/pty/which.js";

const SHELLS = ["sh", "bash", "dash"].flatMap((shell) => {
  try {
    return [resolveExecutable(shell, process.env, "/")];
  } catch {
    return [];
  }
});

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "sessionpin-shim-script-"));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** A folder of shims for `names`, written as `shim install` writes them, for a sessionpin at `main`. */
function shims(folder: string, names: readonly string[], main = join(dir, "no-sessionpin", "main.js"), node = join(dir, "no-node")): string {
  const path = join(dir, folder);
  const results = installShims(path, names.map((name) => ({ name, dir: path, node, main, version: "0.0.0-test" })));
  expect(results.every((r) => "done" in r)).toBe(true);
  return path;
}

/** A real agent: prints where it is and its arguments, on stdout and stderr, and exits 7. */
function agent(folder: string, name: string): string {
  const path = join(dir, folder);
  mkdirSync(path, { recursive: true });
  writeFileSync(join(path, name), `#!/bin/sh\nprintf 'real %s:' "$0"; for a; do printf ' [%s]' "$a"; done; printf '\\n'; echo "to stderr" >&2; exit 7\n`);
  chmodSync(join(path, name), 0o755);
  return join(path, name);
}

function run(shell: string, script: string, args: readonly string[], path: readonly string[], env: NodeJS.ProcessEnv = {}) {
  const result = spawnSync(shell, [script, ...args], {
    cwd: dir,
    // Nothing else on PATH (no node either): the shims and these agents use only the shell's builtins.
    env: { PATH: path.join(":"), SESSIONPIN_RUN_PID: "1", ...env },
    encoding: "utf8",
    timeout: 10_000,
  });
  if (result.error !== undefined) throw result.error;
  return result;
}

describe.each(SHELLS)("a shim run by %s", (shell) => {
  it("runs the next executable of its name after the shim folder, with the same arguments, streams and exit code", () => {
    const bin = shims("shims", ["claude"]);
    const real = agent("bin", "claude");
    const result = run(shell, join(bin, "claude"), ["-p", "two words", ""], [bin, join(dir, "bin")]);
    expect(result.stdout).toBe(`real ${real}: [-p] [two words] []\n`);
    expect(result.stderr).toBe("to stderr\n");
    expect(result.status).toBe(7);
  });

  it("never runs a shim: its folder twice, through a link to the folder or to the shim, or another shim folder", () => {
    const a = shims("a", ["codex"]);
    const b = shims("b", ["codex"]);
    symlinkSync(a, join(dir, "a-link"));
    mkdirSync(join(dir, "links"));
    symlinkSync(join(b, "codex"), join(dir, "links", "codex"));
    const real = agent("bin", "codex");
    const path = [a, join(dir, "a-link"), b, join(dir, "links"), a, join(dir, "bin")];
    for (const start of [join(a, "codex"), join(b, "codex"), join(dir, "links", "codex")]) {
      expect(run(shell, start, [], path).stdout).toBe(`real ${real}:\n`);
    }
  });

  it("with no real executable after the shims, or only shims in a loop, exits 127 in one line", () => {
    const a = shims("a", ["gemini"]);
    const b = shims("b", ["gemini"]);
    symlinkSync(a, join(b, "loop"));
    const result = run(shell, join(a, "gemini"), ["-p", "hi"], [a, b, join(b, "loop"), a]);
    expect(result.stdout).toBe("");
    expect(result.stderr).toBe(`sessionpin shim: gemini: no gemini on PATH after the shims in ${a}\n`);
    expect(result.status).toBe(127);
  });

  it("skips what is not an executable regular file, takes an empty PATH entry as the current folder, and reads an ELF binary's head", () => {
    const bin = shims("shims", ["true"]);
    mkdirSync(join(dir, "folder", "true"), { recursive: true });
    mkdirSync(join(dir, "plain"));
    writeFileSync(join(dir, "plain", "true"), "#!/bin/sh\necho not executable\n");
    copyFileSync(resolveExecutable("true", process.env, "/"), join(dir, "true"));
    chmodSync(join(dir, "true"), 0o755);
    const result = run(shell, join(bin, "true"), [], [bin, join(dir, "folder"), join(dir, "plain"), ""], { SESSIONPIN_SHIM: "which" });
    expect(result.stdout).toBe(`./true\n`);
    expect(result.status).toBe(0);
  });

  it("SESSIONPIN_SHIM=which names the real executable and runs nothing", () => {
    const bin = shims("shims", ["amp"]);
    const real = agent("bin", "amp");
    const result = run(shell, join(bin, "amp"), ["threads", "new"], [bin, join(dir, "bin")], { SESSIONPIN_SHIM: "which" });
    expect(result.stdout).toBe(`${real}\n`);
    expect(result.stderr).toBe("");
    expect(result.status).toBe(0);
  });

  it("starts the agent straight, with one line on stderr, when sessionpin is gone or there is no node", () => {
    const bin = shims("shims", ["qwen"]);
    const real = agent("bin", "qwen");
    // No SESSIONPIN_RUN_PID: the shim wants sessionpin, and the recorded node and entry are not there.
    const noNode = run(shell, join(bin, "qwen"), ["-p", "hi"], [bin, join(dir, "bin")], { SESSIONPIN_RUN_PID: "" });
    expect(noNode.stdout).toBe(`real ${real}: [-p] [hi]\n`);
    expect(noNode.stderr).toBe("sessionpin shim: cannot run sessionpin (no node on PATH): starting qwen without it\nto stderr\n");
    expect(noNode.status).toBe(7);

    const withNode = shims("with-node", ["qwen"], join(dir, "gone", "main.js"), process.execPath);
    const gone = run(shell, join(withNode, "qwen"), [], [withNode, join(dir, "bin")], { SESSIONPIN_RUN_PID: "" });
    expect(gone.stderr).toBe(`sessionpin shim: cannot run sessionpin (${join(dir, "gone", "main.js")} is gone): starting qwen without it\nto stderr\n`);
    expect(gone.status).toBe(7);
  });

  it("the agentapi shim runs the real agentapi with the shim folder first on PATH again, and the module's task for it alone", () => {
    const bin = shims("shims", ["agentapi", "amp"]);
    mkdirSync(join(dir, "agentapi-bin"));
    writeFileSync(join(dir, "agentapi-bin", "agentapi"), "#!/bin/sh\necho \"PATH=$PATH\"; command -v amp; echo \"task=${SESSIONPIN_PROMPT_FILE-none}\"; exit 3\n");
    chmodSync(join(dir, "agentapi-bin", "agentapi"), 0o755);
    const amp = agent("bin", "amp");
    // As Coder's start scripts do: the agent's own folder first, the shims later.
    const path = [join(dir, "bin"), bin, join(dir, "agentapi-bin")];
    const result = run(shell, join(bin, "agentapi"), ["server", "--", "amp"], path, { SESSIONPIN_AGENTAPI_PROMPT_FILE: "/m/prompt.txt" });
    expect(result.stdout).toBe(`PATH=${bin}:${join(dir, "bin")}:${bin}:${join(dir, "agentapi-bin")}\n${join(bin, "amp")}\ntask=/m/prompt.txt\n`);
    expect(result.status).toBe(3);
    expect(run(shell, join(bin, "agentapi"), [], path).stdout).toMatch(/\ntask=none\n$/);
    // An agent started by hand gets no task: its shim does not hand it on.
    writeFileSync(amp, `#!/bin/sh\necho "task=\${SESSIONPIN_PROMPT_FILE-none}"\n`);
    expect(run(shell, join(bin, "amp"), [], [bin, join(dir, "bin")], { SESSIONPIN_AGENTAPI_PROMPT_FILE: "/m/prompt.txt" }).stdout).toBe("task=none\n");
  });
});

it("has at least sh to test with", () => {
  expect(SHELLS.length).toBeGreaterThan(0);
});
