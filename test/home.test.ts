import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { userInfo } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { homeOf, requireHome, storeHome } from "../src/home.js";
import { SessionpinError } from "../src/errors.js";
import { ROOT } from "./helpers/sandbox.js";

describe("homeOf", () => {
  it("is HOME when it is an absolute path, else the passwd entry's home", () => {
    expect(homeOf({ HOME: "/home/coder" })).toBe("/home/coder");
    const own = userInfo().homedir;
    for (const env of [{}, { HOME: "" }, { HOME: "relative/home" }, { HOME: "~" }]) expect(homeOf(env), JSON.stringify(env)).toBe(own);
  });
});

describe("storeHome", () => {
  it("is the home when there is one", () => {
    expect(storeHome({ HOME: "/home/coder" })).toBe("/home/coder");
  });

  // `docker run --user 54321`: a uid without a passwd entry, and a HOME that is no absolute path.
  it.runIf(process.getuid?.() === 0 && existsSync("/usr/bin/setpriv"))("is a folder that is not there for a uid passwd does not know, so no agent store is found anywhere else", () => {
    const script = `const h = await import(${JSON.stringify(join(ROOT, "dist/home.js"))}); console.log(JSON.stringify([h.homeOf(process.env) ?? null, h.storeHome(process.env)]));`;
    const result = spawnSync("/usr/bin/setpriv", ["--reuid=54321", "--regid=54321", "--clear-groups", process.execPath, "--input-type=module", "-e", script], { env: { HOME: "relative" }, encoding: "utf8", timeout: 15_000 });
    expect(result.stderr).toBe("");
    expect(JSON.parse(result.stdout)).toEqual([null, "/nonexistent"]);
  });
});

describe("requireHome", () => {
  it("passes a home on, and says in one line what to set when there is none", () => {
    expect(requireHome("/home/coder", "--pointer")).toBe("/home/coder");
    const error = (() => {
      try {
        requireHome(undefined, "--state-dir");
      } catch (e) {
        return e;
      }
      return undefined;
    })();
    expect(error).toBeInstanceOf(SessionpinError);
    expect((error as SessionpinError).exitCode).toBe(2);
    expect((error as SessionpinError).message).toMatch(/^sessionpin: no home folder \(HOME is not an absolute path and user \d+ has none in passwd\): set HOME or --state-dir$/);
  });
});
