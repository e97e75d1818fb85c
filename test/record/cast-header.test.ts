import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { CastRecorder } from "../../src/record/asciicast.js";
import { CastV2Header } from "../../src/record/cast-header.js";
import { memoryLog } from "../helpers/webhook-receiver.js";
import { useTempDir } from "../pointer/tempdir.js";

const tmp = useTempDir();

describe("the asciicast v2 header, described once", () => {
  it("is what `--record` writes: every field it writes is described, none dropped or changed by a read", () => {
    const path = join(tmp.path, "run.cast");
    const header = { width: 67, height: 1190, command: "amp --mode smart", env: { TERM: "vt100", SHELL: "/bin/sh" } };
    CastRecorder.open(path, header, { log: memoryLog(), withInput: false, now: () => 1_764_000_000_123 })?.close();
    const written = JSON.parse(readFileSync(path, "utf8").split("\n", 1)[0] ?? "") as unknown;
    expect(written).toEqual({ version: 2, ...header, timestamp: 1_764_000_000 });
    expect(CastV2Header.parse(written)).toEqual(written);
  });

  it("takes another recorder's header with only what v2 requires, and sizes that are whole and positive only", () => {
    expect(CastV2Header.safeParse({ version: 2, width: 80, height: 24 }).success).toBe(true);
    for (const bad of [{ width: 0 }, { height: -1 }, { width: 80.5 }, { version: 3 }, { version: "2" }, { command: 7 }]) {
      expect(CastV2Header.safeParse({ version: 2, width: 80, height: 24, ...bad }).success, JSON.stringify(bad)).toBe(false);
    }
  });

  it("drops a timestamp or an environment of odd values instead of refusing the recording", () => {
    const read = CastV2Header.parse({ version: 2, width: 80, height: 24, timestamp: "yesterday", env: { SHELL: null }, command: "amp" });
    expect(read).toEqual({ version: 2, width: 80, height: 24, command: "amp" });
  });
});
