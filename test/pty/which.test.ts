import { spawnSync } from "node:child_process";
import { chmodSync, mkdirSync, writeFileSync } from "node:fs";
import { delimiter, join } from "node:path";
import { describe, expect, it } from "vitest";
import { SessionpinError } from "../../src/errors.js";
import { resolveExecutable } from "../../src/pty/which.js";
import { useTempDir } from "../pointer/tempdir.js";

const tmp = useTempDir();

/** A file at `dir/name` (relative to the temp folder) with `text` and `mode`; its path. */
function file(dir: string, name: string, text = "#!/bin/sh\necho hi\n", mode = 0o755): string {
  mkdirSync(join(tmp.path, dir), { recursive: true });
  const path = join(tmp.path, dir, name);
  writeFileSync(path, text);
  chmodSync(path, mode);
  return path;
}

const pathOf = (...dirs: string[]): NodeJS.ProcessEnv => ({ PATH: dirs.join(delimiter) });

/** The error resolveExecutable throws, as the CLI reports it: code, exit code, message. */
function refusal(command: string, env: NodeJS.ProcessEnv, cwd = tmp.path): Pick<SessionpinError, "code" | "exitCode" | "message"> {
  try {
    resolveExecutable(command, env, cwd);
  } catch (error) {
    if (!(error instanceof SessionpinError)) throw error;
    return { code: error.code, exitCode: error.exitCode, message: error.message };
  }
  throw new Error(`${command} was found`);
}

describe("resolveExecutable", () => {
  it("finds a command on PATH as a shell would: the first executable file, past folders and files that cannot run", () => {
    mkdirSync(join(tmp.path, "a", "amp"), { recursive: true });
    file("b", "amp", "#!/bin/sh\n", 0o644);
    const found = file("c", "amp");
    file("d", "amp");
    const env = pathOf(join(tmp.path, "a"), join(tmp.path, "b"), join(tmp.path, "c"), join(tmp.path, "d"));
    expect(resolveExecutable("amp", env, "/")).toBe(found);
  });

  it("reads relative PATH entries, and a command with a slash, from the working folder", () => {
    const found = file("bin", "amp");
    expect(resolveExecutable("amp", pathOf("", "bin"), tmp.path)).toBe(found);
    expect(resolveExecutable("./bin/amp", {}, tmp.path)).toBe(found);
    expect(resolveExecutable(found, {}, "/")).toBe(found);
    // With a slash, PATH is not searched.
    expect(refusal("bin/amp", pathOf(join(tmp.path, "bin")), "/").code).toBe("agent-not-found");
  });

  it("says 127 for a command not found anywhere, and 126 for one found only without execute permission", () => {
    expect(refusal("amp", pathOf(join(tmp.path, "none")))).toEqual({ code: "agent-not-found", exitCode: 127, message: "sessionpin: amp: command not found" });
    expect(refusal("amp", {})).toMatchObject({ exitCode: 127 });
    const plain = file("bin", "amp", "#!/bin/sh\n", 0o644);
    expect(refusal("amp", pathOf(join(tmp.path, "bin")))).toEqual({ code: "agent-not-executable", exitCode: 126, message: `sessionpin: amp: permission denied (${plain} is not executable)` });
  });

  it("says 127 for a script whose interpreter is not there, as a shell does, CR and all", () => {
    const missing = file("bin", "amp", "#!/nonexistent/node --flag\nx\n");
    expect(refusal("amp", pathOf(join(tmp.path, "bin")))).toEqual({
      code: "agent-not-found", exitCode: 127,
      message: `sessionpin: amp: cannot execute: its interpreter /nonexistent/node (${missing}, line 1) is not there`,
    });
    // Saved on Windows: the kernel looks for `/bin/sh\r`.
    const crlf = file("win", "amp", "#!/bin/sh\r\necho hi\r\n");
    expect(refusal("amp", pathOf(join(tmp.path, "win"))).message).toBe(`sessionpin: amp: cannot execute: its interpreter /bin/sh\\r (${crlf}, line 1) is not there`);
    expect(spawnSync(crlf).error).toMatchObject({ code: "ENOENT" });
  });

  it("takes a script whose interpreter is there, blanks after #! allowed, and a binary", () => {
    const spaced = file("bin", "amp", "#! \t/bin/sh -e\necho hi\n");
    expect(resolveExecutable("amp", pathOf(join(tmp.path, "bin")), "/")).toBe(spaced);
    expect(spawnSync(spaced, { encoding: "utf8" }).stdout).toBe("hi\n");
    expect(resolveExecutable("node", { PATH: process.env["PATH"] }, "/")).toMatch(/\/node$/);
  });
});
