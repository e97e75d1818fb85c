import { mkdirSync, openSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { errnoCode, EXIT, messageOf, reasonOf, SessionpinError } from "../src/errors.js";
import { useTempDir } from "./pointer/tempdir.js";

const tmp = useTempDir();

/** What `action` threw. */
function thrown(action: () => unknown): unknown {
  try {
    action();
  } catch (error) {
    return error;
  }
  throw new Error("nothing was thrown");
}

describe("SessionpinError", () => {
  it("exits with the code its kind has", () => {
    expect(new SessionpinError("agent-not-found", "x").exitCode).toBe(EXIT.notFound);
    expect(new SessionpinError("agent-not-executable", "x").exitCode).toBe(126);
    expect(new SessionpinError("pointer-locked", "x").exitCode).toBe(75);
    expect(new SessionpinError("pointer-refused", "x").exitCode).toBe(3);
    expect(new SessionpinError("usage", "x").exitCode).toBe(2);
    const cause = new Error("underneath");
    const error = new SessionpinError("pointer-invalid", "sessionpin: bad", { cause });
    expect([error.exitCode, error.name, error.message, error.cause]).toEqual([1, "SessionpinError", "sessionpin: bad", cause]);
  });
});

describe("errnoCode", () => {
  it("is the system call's code, never sessionpin's own", () => {
    expect(errnoCode(thrown(() => openSync(join(tmp.path, "missing"), "r")))).toBe("ENOENT");
    expect(errnoCode(new SessionpinError("pointer-invalid", "x"))).toBeUndefined();
    expect(errnoCode(new Error("plain"))).toBeUndefined();
    expect(errnoCode({ code: 42 })).toBeUndefined();
    expect(errnoCode(undefined)).toBeUndefined();
  });
});

describe("reasonOf", () => {
  it("says a failed call's reason in words", () => {
    expect(reasonOf(thrown(() => openSync(join(tmp.path, "missing"), "r")))).toBe("no such file or folder");
    expect(reasonOf(thrown(() => mkdirSync(tmp.path)))).toBe("already exists");
    // A code it has no words for: libuv's own, without the path.
    expect(reasonOf(Object.assign(new Error("EXDEV: cross-device link not permitted, link 'a' -> 'b'"), { code: "EXDEV" }))).toBe("cross-device link not permitted");
    expect(reasonOf(Object.assign(new Error("odd"), { code: "EWHAT" }))).toBe("EWHAT");
  });

  it("names the file in the way where a folder should be, however deep below it the call failed", () => {
    writeFileSync(join(tmp.path, "a-file"), "");
    const blocker = join(tmp.path, "a-file");
    expect(reasonOf(thrown(() => mkdirSync(join(blocker, "x"))))).toBe(`${blocker} is not a folder`);
    expect(reasonOf(thrown(() => mkdirSync(join(blocker, "x", "y"), { recursive: true })))).toBe(`${blocker} is not a folder`);
    expect(reasonOf(thrown(() => openSync(join(blocker, "p.json"), "w")))).toBe(`${blocker} is not a folder`);
  });

  it("gives sessionpin's own message without its `sessionpin: `, and any other thrown value as text", () => {
    expect(reasonOf(new SessionpinError("usage", "sessionpin: --wait-lock takes a duration"))).toBe("--wait-lock takes a duration");
    expect(reasonOf("a string")).toBe("a string");
    expect(messageOf(new TypeError("t"))).toBe("t");
    expect(messageOf(42)).toBe("42");
  });
});
