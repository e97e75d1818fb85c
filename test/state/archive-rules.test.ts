import { describe, expect, it } from "vitest";
import { badName, CarryError, refused, sizeText } from "../../src/state/archive-rules.js";

describe("badName", () => {
  it("takes a relative path of plain parts, up to 16 folders and 255 bytes a part", () => {
    for (const name of ["pointer.json", "store/5f0c2a9e.jsonl", "store/a b/ü.jsonl", `${"d/".repeat(15)}f`, "x".repeat(255), "é".repeat(127), "..x/x..", ".hidden"]) {
      expect(badName(name), name).toBeUndefined();
    }
  });

  it("says why it refuses a name that could leave its folder or mean something else elsewhere", () => {
    expect(badName("")).toBe("an empty name");
    expect(badName("/etc/passwd")).toBe("an absolute path");
    expect(badName("store/../../x")).toBe("a `..` in its path");
    expect(badName("..")).toBe("a `..` in its path");
    expect(badName("store//x")).toBe("an empty or `.` part in its path");
    expect(badName("store/./x")).toBe("an empty or `.` part in its path");
    expect(badName("store/")).toBe("an empty or `.` part in its path");
    expect(badName("store\\..\\x")).toBe("a control character or backslash in its name");
    for (const control of ["\n", "\r", "\0", "\x1b", "\x7f"]) expect(badName(`a${control}b`), JSON.stringify(control)).toBe("a control character or backslash in its name");
    expect(badName(`${"d/".repeat(16)}f`)).toBe("17 folders deep (at most 16)");
    expect(badName("x".repeat(256))).toBe("a name part of more than 255 bytes");
    // Bytes, not characters: 128 two-byte characters are 256 bytes.
    expect(badName("é".repeat(128))).toBe("a name part of more than 255 bytes");
    expect(badName(`a/${"x".repeat(1024)}`)).toBe("a name of 1026 characters (at most 1024)");
  });
});

describe("sizeText", () => {
  it("says a size in bytes below 1000, in kB, MB, GB and TB above, one decimal below 10", () => {
    expect([0, 812, 999, 1000, 1449, 9_900, 10_000, 141_915, 1_400_000, 4 * 2 ** 30, 3e12, 5e15].map(sizeText)).toEqual([
      "0 bytes", "812 bytes", "999 bytes", "1.0 kB", "1.4 kB", "9.9 kB", "10 kB", "142 kB", "1.4 MB", "4.3 GB", "3.0 TB", "5000 TB",
    ]);
  });

  it("chooses the unit for the value as it is shown: no `10.0 kB`, no `1000 MB`", () => {
    expect([9_999, 999_499, 999_500, 999_999_999, 9_960_000].map(sizeText)).toEqual(["10 kB", "999 kB", "1.0 MB", "1.0 GB", "10 MB"]);
  });
});

describe("refused", () => {
  it("is a CarryError with exit code 3, its reason the message", () => {
    const error = refused("its manifest is not JSON");
    expect(error).toBeInstanceOf(CarryError);
    expect(error).toBeInstanceOf(Error);
    expect(error.exitCode).toBe(3);
    expect(error.message).toBe("its manifest is not JSON");
    expect(error.name).toBe("CarryError");
  });
});
