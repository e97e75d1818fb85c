import { execFileSync } from "node:child_process";
import { chmodSync, mkdirSync, readdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { SessionpinError } from "../../src/errors.js";
import { defaultShimDir, describeShims, installShims, isShim, removeShims, shimNames } from "../../src/shim/folder.js";
import { useTempDir } from "../pointer/tempdir.js";

const tmp = useTempDir();

const target = (dir: string, name: string, main = join(tmp.path, "sessionpin", "main.js")) => ({ name, dir, node: process.execPath, main, version: "0.0.0-test" });

describe("defaultShimDir", () => {
  it("is under XDG_DATA_HOME when it is absolute, else under ~/.local/share", () => {
    expect(defaultShimDir({ XDG_DATA_HOME: "/data" }, "/home/u")).toBe("/data/sessionpin/shims");
    expect(defaultShimDir({ XDG_DATA_HOME: "relative/data" }, "/home/u")).toBe("/home/u/.local/share/sessionpin/shims");
    expect(defaultShimDir({}, "/home/u")).toBe("/home/u/.local/share/sessionpin/shims");
  });

  it("asks for a home or XDG_DATA_HOME when there is neither", () => {
    expect(() => defaultShimDir({}, undefined)).toThrow(SessionpinError);
    expect(() => defaultShimDir({}, undefined)).toThrow(/set HOME or XDG_DATA_HOME \(or --dir\)$/);
  });
});

describe("installShims and removeShims", () => {
  it("writes each shim executable whatever the umask, replaces its own, and leaves another file of that name as it is", () => {
    const dir = join(tmp.path, "shims");
    const before = process.umask(0o077);
    let first;
    try {
      first = installShims(dir, [target(dir, "amp"), target(dir, "agentapi")]);
    } finally {
      process.umask(before);
    }
    expect(first).toEqual([{ name: "amp", done: "written" }, { name: "agentapi", done: "written" }]);
    expect(statSync(join(dir, "amp")).mode & 0o777).toBe(0o755);
    writeFileSync(join(dir, "claude"), "#!/bin/sh\necho mine\n");
    expect(installShims(dir, [target(dir, "amp"), target(dir, "claude")])).toEqual([
      { name: "amp", done: "replaced" },
      { name: "claude", problem: `${join(dir, "claude")} is there and is not a sessionpin shim: left as it is` },
    ]);
    expect(readFileSync(join(dir, "claude"), "utf8")).toBe("#!/bin/sh\necho mine\n");
    expect(readdirSync(dir).sort()).toEqual(["agentapi", "amp", "claude"]);
    expect(removeShims(dir, ["amp", "claude", "codex"])).toEqual([
      { name: "amp", done: "removed" },
      { name: "claude", problem: `${join(dir, "claude")} is not a sessionpin shim: left as it is` },
      { name: "codex", done: "absent" },
    ]);
    expect(readdirSync(dir).sort()).toEqual(["agentapi", "claude"]);
  });

  it("says in one line why the folder cannot be made", () => {
    writeFileSync(join(tmp.path, "a-file"), "");
    const dir = join(tmp.path, "a-file", "shims");
    expect(() => installShims(dir, [target(dir, "amp")])).toThrow(`sessionpin: cannot write shims to ${dir}: ${join(tmp.path, "a-file")} is not a folder`);
  });
});

describe("isShim and shimNames", () => {
  it("take only regular files marked on their second line, never through a link, a FIFO without hanging", () => {
    const dir = join(tmp.path, "shims");
    installShims(dir, [target(dir, "amp"), target(dir, "codex")]);
    expect(isShim(join(dir, "amp"))).toBe(true);
    symlinkSync(join(dir, "amp"), join(dir, "linked"));
    writeFileSync(join(dir, "first-line"), "# sessionpin-shim\n#!/bin/sh\n");
    writeFileSync(join(dir, "lookalike"), "#!/bin/sh\n# sessionpin-shimmy\n");
    writeFileSync(join(dir, ".hidden"), readFileSync(join(dir, "amp")));
    execFileSync("mkfifo", [join(dir, "fifo")]);
    mkdirSync(join(dir, "folder"));
    for (const name of ["linked", "first-line", "lookalike", "fifo", "folder", "missing"]) expect(isShim(join(dir, name)), name).toBe(false);
    expect(shimNames(dir)).toEqual(["amp", "codex"]);
    expect(shimNames(join(tmp.path, "none"))).toEqual([]);
  });
});

describe("describeShims", () => {
  it("asks each shim what it runs on the PATH given, and says whether the sessionpin it was written for is there", () => {
    const dir = join(tmp.path, "shims");
    const main = join(tmp.path, "it's here", "main.js");
    mkdirSync(join(tmp.path, "it's here"));
    writeFileSync(main, "");
    installShims(dir, [target(dir, "amp", main), target(dir, "codex", join(tmp.path, "gone", "main.js"))]);
    const bin = join(tmp.path, "bin");
    mkdirSync(bin);
    writeFileSync(join(bin, "amp"), "#!/bin/sh\n");
    chmodSync(join(bin, "amp"), 0o755);
    expect(describeShims(dir, { PATH: `${dir}:${bin}:/usr/bin:/bin` })).toEqual([
      { name: "amp", path: join(dir, "amp"), real: join(bin, "amp"), main, mainThere: true },
      { name: "codex", path: join(dir, "codex"), real: null, main: join(tmp.path, "gone", "main.js"), mainThere: false },
    ]);
  });
});
