import { execFileSync } from "node:child_process";
import { mkdtempSync, mkdirSync, symlinkSync, writeFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { loadUserPlugins } from "../../../src/agents/user/load.js";
import { ACME_PLUGIN as base } from "./acme.js";

describe("loadUserPlugins", () => {
  let dir = "";
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it("loads --plugin files and the XDG plugin folder, and reports bad files by file, field and reason", async () => {
    dir = mkdtempSync(join(tmpdir(), "sessionpin-plugins-"));
    const folder = join(dir, "config", "sessionpin", "plugins");
    mkdirSync(folder, { recursive: true });
    // Saved with a byte-order mark, as some editors do.
    writeFileSync(join(folder, "good.json"), `\uFEFF${JSON.stringify({ ...base, name: "good", names: ["good"] })}`);
    writeFileSync(join(folder, "bad.json"), JSON.stringify({ ...base, name: "Bad Name", extra: 1 }));
    writeFileSync(join(folder, "notjson.json"), "{ nope");
    writeFileSync(join(folder, "ignored.txt"), "not a plugin");
    writeFileSync(join(dir, "explicit.json"), JSON.stringify(base));
    const loaded = await loadUserPlugins(["explicit.json", "missing.json"], { XDG_CONFIG_HOME: join(dir, "config") }, dir, dir);
    expect(loaded.plugins.map((p) => [p.plugin.name, p.file])).toEqual([
      ["acme", join(dir, "explicit.json")],
      ["good", join(folder, "good.json")],
    ]);
    expect(loaded.problems).toEqual([
      `plugin ${join(dir, "missing.json")}: no such file or folder`,
      expect.stringMatching(new RegExp(`^plugin ${join(folder, "bad.json")}: field name: lowercase`)),
      expect.stringMatching(new RegExp(`^plugin ${join(folder, "bad.json")}: field \\(top level\\): .*extra`)),
      expect.stringMatching(new RegExp(`^plugin ${join(folder, "notjson.json")}: not JSON: `)),
    ]);
  });

  // Torture suite, hostile user plugins: a FIFO in the plugin folder hung the start before the
  // agent ran, and a link to /dev/zero was read until memory ran out (8 GB).
  it("skips a FIFO, a link to /dev/zero and an oversized file in the plugin folder, at once and in bounded memory", async () => {
    dir = mkdtempSync(join(tmpdir(), "sessionpin-plugins-"));
    const folder = join(dir, "config", "sessionpin", "plugins");
    mkdirSync(folder, { recursive: true });
    execFileSync("mkfifo", [join(folder, "fifo.json")]);
    symlinkSync("/dev/zero", join(folder, "zero.json"));
    writeFileSync(join(folder, "huge.json"), Buffer.alloc(2 << 20, " "));
    // Saved with a byte-order mark, as some editors do.
    writeFileSync(join(folder, "good.json"), `\uFEFF${JSON.stringify({ ...base, name: "good", names: ["good"] })}`);
    const started = Date.now();
    const loaded = await loadUserPlugins([], { XDG_CONFIG_HOME: join(dir, "config") }, dir, dir);
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(loaded.plugins.map((p) => p.plugin.name)).toEqual(["good"]);
    expect(loaded.problems).toEqual([
      `plugin ${join(folder, "fifo.json")}: not a regular file`,
      `plugin ${join(folder, "huge.json")}: 2097152 bytes, more than a plugin's 1048576`,
      `plugin ${join(folder, "zero.json")}: not a regular file`,
    ]);
  });

});
