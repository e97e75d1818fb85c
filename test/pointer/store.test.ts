import { execFileSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { mkdir, readdir, readFile, stat, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { SessionpinError } from "../../src/errors.js";
import { PointerSchema, type Pointer } from "../../src/pointer/schema.js";
import { tempPathFor } from "../../src/pointer/atomic.js";
import { MAX_POINTER_BYTES, readPointer, removeLeftoverTemps, setAside, writePointer } from "../../src/pointer/store.js";
import { ROOT } from "../helpers/sandbox.js";
import { useTempDir } from "./tempdir.js";

const tmp = useTempDir();

const pointer: Pointer = {
  version: 1,
  agent: "codex",
  id: "0199a3b2-7c1d-7e40-9d3f-1a2b3c4d5e6f",
  state: "confirmed",
  cwd: "/work/proj",
  capturedAt: "2026-11-22T21:30:00.000Z",
  confirmedAt: "2026-11-22T21:30:05.000Z",
  source: { rule: "session-configured", line: 3 },
  history: [{ id: "old-id", at: "2026-11-21T10:00:00.000Z", reason: "rejected" }],
};

describe("writePointer / readPointer", () => {
  it("round-trips, 0600 file in a new 0700 folder, no temp files left", async () => {
    const dir = join(tmp.path, "state", "codex");
    const path = join(dir, "p.json");
    await writePointer(path, pointer);
    expect(await readPointer(path)).toEqual({ kind: "ok", pointer });
    expect((await stat(path)).mode & 0o777).toBe(0o600);
    expect((await stat(dir)).mode & 0o777).toBe(0o700);
    expect(await readdir(dir)).toEqual(["p.json"]);
    expect(await readFile(path, "utf8")).toBe(`${JSON.stringify(pointer, null, 2)}\n`);
  });

  it("overwrites with the new content", async () => {
    const path = join(tmp.path, "p.json");
    await writePointer(path, pointer);
    const next: Pointer = { ...pointer, id: "new-id", state: "provisional", history: [] };
    delete next.confirmedAt;
    await writePointer(path, next);
    expect(await readPointer(path)).toEqual({ kind: "ok", pointer: next });
    expect(await readdir(tmp.path)).toEqual(["p.json"]);
  });

  it("refuses an invalid pointer and leaves nothing behind", async () => {
    const path = join(tmp.path, "p.json");
    const bad = { ...pointer, cwd: "relative/dir" };
    await expect(writePointer(path, bad)).rejects.toThrow(SessionpinError);
    await expect(writePointer(path, bad)).rejects.toMatchObject({ code: "pointer-invalid" });
    expect(await readdir(tmp.path)).toEqual([]);
  });

  it("reports a missing file", async () => {
    expect(await readPointer(join(tmp.path, "nope.json"))).toEqual({ kind: "missing" });
  });

  it("reports corrupt JSON", async () => {
    const path = join(tmp.path, "p.json");
    await writeFile(path, '{"version": 1, "agent": ');
    const read = await readPointer(path);
    expect(read.kind).toBe("invalid");
    expect(read.kind === "invalid" && read.reason).toMatch(/^not JSON: /);
  });

  it("names the wrong field", async () => {
    const path = join(tmp.path, "p.json");
    const wrong = { ...pointer, history: "none", source: { rule: "r", line: 0 } };
    await writeFile(path, JSON.stringify(wrong));
    const read = await readPointer(path);
    expect(read.kind).toBe("invalid");
    const reason = read.kind === "invalid" ? read.reason : "";
    expect(reason).toMatch(/field source\.line: .*/);
    expect(reason).toMatch(/field history: .*expected array/);
  });

  it("leaves a newer version alone", async () => {
    const path = join(tmp.path, "p.json");
    const text = JSON.stringify({ version: 2, whatever: true });
    await writeFile(path, text);
    expect(await readPointer(path)).toEqual({ kind: "newer", version: 2 });
    expect(await readFile(path, "utf8")).toBe(text);
  });

  // Torture suite, hostile pointer files: a pointer with version 1.5 or 1e308 was taken for a newer
  // sessionpin's, so every start was refused (exit 3) until someone removed it by hand.
  it("reads a version that is not a whole number as a corrupt pointer, not a newer one", async () => {
    const path = join(tmp.path, "p.json");
    for (const version of [1.5, 1e308, -1, 0]) {
      await writeFile(path, JSON.stringify({ ...pointer, version }));
      const read = await readPointer(path);
      expect(read.kind, String(version)).toBe("invalid");
    }
  });

  it("refuses a symbolic link", async () => {
    const real = join(tmp.path, "real.json");
    await writePointer(real, pointer);
    const link = join(tmp.path, "p.json");
    await symlink(real, link);
    expect(await readPointer(link)).toEqual({ kind: "invalid", reason: "is a symbolic link" });
  });

  it("refuses a FIFO put in its place at once, without waiting for a writer", () => {
    const path = join(tmp.path, "p.json");
    execFileSync("mkfifo", [path]);
    // In a process of its own: a read that blocked would block the test's own thread for good.
    const read = `import { readPointer } from ${JSON.stringify(join(ROOT, "dist/index.js"))}; console.log(JSON.stringify(await readPointer(process.argv[1])));`;
    const printed = execFileSync(process.execPath, ["--input-type=module", "-e", read, path], { encoding: "utf8", timeout: 10_000 });
    expect(JSON.parse(printed)).toEqual({ kind: "invalid", reason: "not a regular file" });
  });

  it("reads a pointer with fields it does not know as the schema would: those fields dropped", async () => {
    const path = join(tmp.path, "p.json");
    const extra = { ...pointer, note: "hand-added", source: { ...pointer.source, by: "hand" } };
    writeFileSync(path, JSON.stringify(extra));
    expect(await readPointer(path)).toEqual({ kind: "ok", pointer: PointerSchema.parse(extra) });
  });

  it("reads no further than a pointer can be: a 1 GiB file named like one is refused by its size, not read", async () => {
    const path = join(tmp.path, "p.json");
    // Sparse: no disk is used for it.
    execFileSync("truncate", ["-s", "1G", path]);
    const before = process.memoryUsage().arrayBuffers;
    expect(await readPointer(path)).toEqual({ kind: "invalid", reason: `${2 ** 30} bytes, more than any pointer (${MAX_POINTER_BYTES})` });
    expect(process.memoryUsage().arrayBuffers - before).toBeLessThan(4 * MAX_POINTER_BYTES);
    // A pointer that fits is read as before, however close to the bound.
    await writePointer(path.replace("p.json", "q.json"), { ...pointer, history: [{ id: "x".repeat(MAX_POINTER_BYTES / 2), at: pointer.capturedAt, reason: "r" }] });
    expect((await readPointer(path.replace("p.json", "q.json"))).kind).toBe("ok");
  });

  it("refuses a folder, and says it is one", async () => {
    const path = join(tmp.path, "p.json");
    await mkdir(path);
    expect(await readPointer(path)).toEqual({ kind: "invalid", reason: "is a folder, not a pointer file", folder: true });
  });
});

describe("setAside", () => {
  const now = new Date("2026-11-22T21:30:00.123Z");

  it("renames under a dated label, keeping the content", async () => {
    const path = join(tmp.path, "abc.json");
    await writeFile(path, "corrupt{");
    const moved = await setAside(path, "corrupt", now);
    expect(moved).toBe(join(tmp.path, "abc.corrupt-20261122T213000Z.json"));
    expect(await readdir(tmp.path)).toEqual(["abc.corrupt-20261122T213000Z.json"]);
    expect(await readFile(moved ?? "", "utf8")).toBe("corrupt{");
  });

  it("adds a counter instead of overwriting", async () => {
    const path = join(tmp.path, "abc.json");
    const names: (string | undefined)[] = [];
    for (const content of ["one", "two", "three"]) {
      await writeFile(path, content);
      names.push(await setAside(path, "rejected", now));
    }
    const stem = join(tmp.path, "abc.rejected-20261122T213000Z");
    expect(names).toEqual([`${stem}.json`, `${stem}-2.json`, `${stem}-3.json`]);
    expect(await readFile(`${stem}.json`, "utf8")).toBe("one");
    expect(await readFile(`${stem}-3.json`, "utf8")).toBe("three");
    expect(await readdir(tmp.path)).toHaveLength(3);
  });

  it("returns undefined when there is no pointer", async () => {
    expect(await setAside(join(tmp.path, "abc.json"), "cleared", now)).toBeUndefined();
    expect(await readdir(tmp.path)).toEqual([]);
  });
});

describe("removeLeftoverTemps", () => {
  const dir = useTempDir();

  it("removes what a dead writer left, never a live writer's file in flight nor the lock's temp files", async () => {
    const pointer = join(dir.path, "pointer.json");
    // A pid above the kernel's pid_max (4194304) names no live process.
    const dead = 2 ** 22 + 4321;
    const deadTemp = tempPathFor(pointer, dead);
    // A second run creating its lock (`.pointer.json.lock.<pid>.<hex>.tmp`) while this run sweeps,
    // and a live writer's pointer temp: both belong to live processes.
    const liveLockTemp = tempPathFor(`${pointer}.lock`, process.pid);
    const liveTemp = tempPathFor(pointer, process.pid);
    const unrelated = join(dir.path, ".pointer.json.notes.tmp");
    for (const file of [deadTemp, liveLockTemp, liveTemp, unrelated]) await writeFile(file, "x");

    expect(removeLeftoverTemps(pointer)).toEqual([deadTemp]);
    expect((await readdir(dir.path)).sort()).toEqual([liveLockTemp, liveTemp, unrelated].map((file) => file.slice(dir.path.length + 1)).sort());
  });
});
