import { spawn } from "node:child_process";
import { once } from "node:events";
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { agentapiServers, agentOfSessionpin, listProcesses, runsSessionpin } from "../../src/doctor/agentapi.js";

let dir = "";
afterEach(() => {
  if (dir !== "") rmSync(dir, { recursive: true, force: true });
  dir = "";
});

/** A folder laid out as /proc is: `<pid>/cmdline` and `<pid>/environ`, NUL-separated; undefined leaves the file out. */
function procOf(processes: Record<string, { cmdline?: string; environ?: string }>): string {
  dir = mkdtempSync(join(tmpdir(), "sessionpin-proc-"));
  for (const [name, files] of Object.entries(processes)) {
    mkdirSync(join(dir, name));
    if (files.cmdline !== undefined) writeFileSync(join(dir, name, "cmdline"), files.cmdline);
    if (files.environ !== undefined) writeFileSync(join(dir, name, "environ"), files.environ);
  }
  return dir;
}

describe("listProcesses", () => {
  it("reads each process's argv and environment, NUL-separated as the kernel writes them", () => {
    const proc = procOf({
      "41": { cmdline: "agentapi\0server\0--type\0amp\0\0", environ: "HOME=/home/u\0AGENTAPI_TYPE=amp\0EQ=a=b\0BARE\0" },
      // Another user's: its environ cannot be read.
      "42": { cmdline: "/usr/bin/sleep\x0030\0" },
      // A kernel thread: an empty cmdline, no argv.
      "2": { cmdline: "", environ: "" },
      // Not a process.
      "self-ish": { cmdline: "x\0" },
      // Gone between the listing and the read.
      "43": {},
    });
    expect(listProcesses(proc).sort((a, b) => a.pid - b.pid)).toEqual([
      { pid: 41, argv: ["agentapi", "server", "--type", "amp", ""], env: { HOME: "/home/u", AGENTAPI_TYPE: "amp", EQ: "a=b", BARE: "" } },
      { pid: 42, argv: ["/usr/bin/sleep", "30"] },
    ]);
  });

  it("is empty where there is no /proc to read", () => {
    expect(listProcesses(join(tmpdir(), "sessionpin-no-such-proc"))).toEqual([]);
  });

  it.runIf(existsSync("/proc/self/cmdline"))("finds a process running here, with its argv and environment", async () => {
    const child = spawn("sleep", ["30"], { env: { PATH: process.env["PATH"], SESSIONPIN_PROC_MARK: "x y=z" }, stdio: "ignore" });
    try {
      await once(child, "spawn");
      const found = listProcesses().find((p) => p.pid === child.pid);
      expect(found?.argv).toEqual(["sleep", "30"]);
      expect(found?.env?.["SESSIONPIN_PROC_MARK"]).toBe("x y=z");
    } finally {
      child.kill("SIGKILL");
    }
  });
});

describe("agentapiServers", () => {
  it("reads --type, -t, -tX, --type=X and AGENTAPI_TYPE, and finds agentapi behind an interpreter", () => {
    const servers = agentapiServers([
      { pid: 1, argv: ["/usr/local/bin/agentapi", "server", "--type", "amp", "--term-width", "67", "--", "sessionpin", "run", "--", "amp"] },
      { pid: 2, argv: ["agentapi", "server", "-t", "goose", "--", "sessionpin", "run", "--", "goose"] },
      { pid: 3, argv: ["agentapi", "server", "-tclaude", "sessionpin", "run", "--", "claude"] },
      { pid: 4, argv: ["agentapi", "server", "-I", "--type fake", "--", "sessionpin"], env: { AGENTAPI_TYPE: "codex" } },
      { pid: 5, argv: ["/bin/sh", "./agentapi", "server", "--", "claude"] },
      { pid: 6, argv: ["agentapi", "attach"] },
      { pid: 7, argv: ["node", "server.js"] },
    ]);
    expect(servers).toEqual([
      { pid: 1, type: "amp", typeFrom: "flag", command: ["sessionpin", "run", "--", "amp"] },
      { pid: 2, type: "goose", typeFrom: "flag", command: ["sessionpin", "run", "--", "goose"] },
      { pid: 3, type: "claude", typeFrom: "flag", command: ["sessionpin", "run", "--", "claude"] },
      { pid: 4, type: "codex", typeFrom: "env", command: ["sessionpin"] },
      { pid: 5, type: undefined, typeFrom: undefined, command: ["claude"] },
    ]);
  });


  it("reads agentapi's value flags as taking the next word, so a value is never taken for the command", () => {
    const [server] = agentapiServers([{ pid: 1, argv: ["agentapi", "server", "--port", "3284", "-W", "67", "--print-openapi", "sessionpin", "run", "--", "amp"] }]);
    expect(server).toEqual({ pid: 1, type: undefined, typeFrom: undefined, command: ["sessionpin", "run", "--", "amp"] });
    // An empty AGENTAPI_TYPE names no type.
    expect(agentapiServers([{ pid: 2, argv: ["agentapi", "server"], env: { AGENTAPI_TYPE: "" } }])).toEqual([{ pid: 2, type: undefined, typeFrom: undefined, command: [] }]);
  });
});

describe("what agentapi starts", () => {
  it("runs sessionpin when its first word is sessionpin, by any path, or npx's first package is", () => {
    expect(runsSessionpin(["sessionpin", "run", "--", "amp"])).toBe(true);
    expect(runsSessionpin(["/usr/local/bin/sessionpin", "run"])).toBe(true);
    expect(runsSessionpin(["npx", "-y", "sessionpin", "run", "--", "claude"])).toBe(true);
    expect(runsSessionpin(["npx", "-y", "other", "sessionpin"])).toBe(false);
    expect(runsSessionpin(["node", "sessionpin"])).toBe(false);
    expect(runsSessionpin(["amp"])).toBe(false);
    expect(runsSessionpin([])).toBe(false);
  });

  it("names the agent after sessionpin's `--`, and none without one", () => {
    expect(agentOfSessionpin(["sessionpin", "run", "--key", "k", "--", "claude", "--", "x"])).toBe("claude");
    expect(agentOfSessionpin(["sessionpin", "run", "claude"])).toBeUndefined();
    expect(agentOfSessionpin(["sessionpin", "run", "--"])).toBeUndefined();
  });
});
