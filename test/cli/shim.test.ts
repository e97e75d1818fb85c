/**
 * `sessionpin shim install|remove|list|env` through the built CLI, in a sandbox: what it writes,
 * lists and removes, and the one line it says when it refuses.
 */
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { CLI, FAKE_AGENTS, Sandbox } from "../helpers/sandbox.js";
import { call, shimmed, statePointers } from "../shim/support.js";

describe("sessionpin shim install|remove|list|env", () => {
  it("writes, lists and removes shims, and leaves a file that is not a shim as it is", () => {
    const { sb, shims } = shimmed(["cursor", "agentapi"]);
    const list = JSON.parse(call(sb, [process.execPath, CLI, "shim", "list", "--json", "--dir", shims]).stdout) as { shims: Array<{ name: string; real: string | null }> };
    expect(list.shims.map((s) => [s.name, s.real])).toEqual([["agent", null], ["agentapi", null], ["cursor-agent", join(FAKE_AGENTS, "cursor-agent")]]);
    writeFileSync(join(shims, "claude"), "#!/bin/sh\necho mine\n");
    const over = call(sb, [process.execPath, CLI, "shim", "install", "claude", "--dir", shims]);
    expect(over.stderr).toBe(`sessionpin: ${join(shims, "claude")} is there and is not a sessionpin shim: left as it is\n`);
    expect(over.status).toBe(1);
    expect(readFileSync(join(shims, "claude"), "utf8")).toBe("#!/bin/sh\necho mine\n");
    const removed = call(sb, [process.execPath, CLI, "shim", "remove", "--dir", shims]);
    expect(removed.stdout).toBe(["agent", "agentapi", "cursor-agent"].map((name) => `removed ${shims}/${name}\n`).join(""));
    expect(existsSync(join(shims, "claude"))).toBe(true);
  }, 30_000);

  it("refuses an unknown agent (exit 2) and a folder it cannot write (exit 1), each in one line", () => {
    const sb = new Sandbox();
    const unknown = call(sb, [process.execPath, CLI, "shim", "install", "nosuchagent", "--dir", join(sb.dir, "s")]);
    expect(unknown.stderr).toMatch(/^sessionpin shim: "nosuchagent": no such agent \(known: .*amp.*agentapi\)\n$/);
    expect(unknown.status).toBe(2);
    writeFileSync(join(sb.dir, "a-file"), "");
    const blocked = call(sb, [process.execPath, CLI, "shim", "install", "amp", "--dir", join(sb.dir, "a-file", "shims")]);
    expect(blocked.stderr).toBe(`sessionpin: cannot write shims to ${join(sb.dir, "a-file", "shims")}: ${join(sb.dir, "a-file")} is not a folder\n`);
    expect(blocked.status).toBe(1);
    expect(existsSync(statePointers(sb))).toBe(false);
  });

  it("env prints the line that puts the folder first on PATH, for sh to eval", () => {
    const sb = new Sandbox({ SESSIONPIN_SHIM_DIR: "/opt/it's/shims" });
    const printed = call(sb, [process.execPath, CLI, "shim", "env"]).stdout;
    const evaluated = spawnSync("sh", ["-c", `${printed}printf '%s' "$PATH"`], { env: { PATH: "/usr/bin:/bin" }, encoding: "utf8" });
    expect(evaluated.stdout).toBe("/opt/it's/shims:/usr/bin:/bin");
  });
});
