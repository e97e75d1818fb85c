/**
 * What sessionpin says when node-pty cannot load: one line naming what is missing and the fix.
 * The platform cases use the errors @lydell/node-pty really throws, by loading it as if on another
 * CPU: one its optional dependencies name but npm did not install here (arm64), and one it has no
 * package for (ia32).
 */
import { createRequire } from "node:module";
import { describe, expect, it } from "vitest";
import { PTY_PACKAGE, ptyModule, ptyUnavailable } from "../../src/pty/native.js";
import { EXIT, SessionpinError, messageOf } from "../../src/errors.js";

const require = createRequire(import.meta.url);

/** What loading @lydell/node-pty throws when process.arch is `arch`. */
function loadErrorAs(arch: string): unknown {
  const entry = require.resolve(PTY_PACKAGE);
  const real = Object.getOwnPropertyDescriptor(process, "arch");
  if (real === undefined) throw new Error("process.arch has no descriptor");
  Object.defineProperty(process, "arch", { ...real, value: arch });
  try {
    delete require.cache[entry];
    require(PTY_PACKAGE);
    return undefined;
  } catch (error) {
    return error;
  } finally {
    Object.defineProperty(process, "arch", real);
    delete require.cache[entry];
  }
}

function expectOneLine(error: SessionpinError, text: string): void {
  expect(error).toBeInstanceOf(SessionpinError);
  expect(error.code).toBe("pty-unavailable");
  expect(error.exitCode).toBe(EXIT.failure);
  expect(error.message).not.toContain("\n");
  expect(error.message).toBe(`sessionpin: cannot start a PTY: ${text}`);
}

describe("node-pty that cannot load", () => {
  it("loads here, once", () => {
    expect(typeof ptyModule().spawn).toBe("function");
    expect(ptyModule()).toBe(ptyModule());
  });

  it("names the platform package npm left out, and the fix", () => {
    const error = loadErrorAs("arm64");
    expect(messageOf(error)).toContain("could not find the platform-specific package");
    expectOneLine(
      ptyUnavailable(error, "linux", "arm64"),
      "node-pty's prebuilt binary for linux-arm64 (@lydell/node-pty-linux-arm64) is not installed: reinstall sessionpin without --omit=optional or --no-optional, on this machine",
    );
  });

  it("says which platforms have a binary when this one has none", () => {
    const error = loadErrorAs("ia32");
    expect(messageOf(error)).toContain("does not support your platform");
    expectOneLine(ptyUnavailable(error, "linux", "ia32"), "node-pty has no prebuilt binary for linux-ia32: sessionpin runs on Linux (glibc 2.28+) and macOS, x64 or arm64");
  });

  it("says the package itself is missing", () => {
    const error = Object.assign(new Error(`Cannot find module '${PTY_PACKAGE}'\nRequire stack:\n- /opt/sessionpin/dist/bin/chunk.js`), { code: "MODULE_NOT_FOUND" });
    expectOneLine(ptyUnavailable(error, "linux", "x64"), "node-pty (@lydell/node-pty) is not installed: reinstall sessionpin (in a clone: npm ci)");
  });

  it("keeps only the first line of a binary that does not load", () => {
    const error = new Error(
      "Failed to load native module: pty.node, checked: build/Release, build/Debug, prebuilds/linux-x64: Error: Error loading shared library ld-linux-x86-64.so.2: No such file or directory\nRequire stack:\n- /x/lib/utils.js",
    );
    expectOneLine(
      ptyUnavailable(error, "linux", "x64"),
      "node-pty's binary for linux-x64 does not load (Failed to load native module: pty.node, checked: build/Release, build/Debug, prebuilds/linux-x64: Error: Error loading shared library ld-linux-x86-64.so.2: No such file or directory): it needs glibc 2.28+ (not musl/Alpine); reinstall sessionpin on this machine",
    );
  });
});
