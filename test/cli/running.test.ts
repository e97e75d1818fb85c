/**
 * The pointer `plan`, `doctor` and `pointer show` mean when none is named (pointerHere), and the
 * sessionpin runs found among the processes (runningRuns), in a temp HOME of real files: with
 * agentapi stopped (no running run, no AGENTAPI_STATE_FILE), the pointer `run` kept beside
 * agentapi's state in a Coder module folder is found when this terminal's own default is not there.
 */
import { spawn } from "node:child_process";
import { chmodSync, mkdirSync, mkdtempSync, realpathSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { pointerHere, runningRuns } from "../../src/cli/running.js";
import { listProcesses, type ProcessInfo } from "../../src/doctor/agentapi.js";
import { resolvePointerPath } from "../../src/pointer/path.js";
import { keepInModule } from "../pointer/module-home.js";
import { useTempDir } from "../pointer/tempdir.js";

const tmp = useTempDir();
const CWD = "/home/coder/project";
const none = (): readonly ProcessInfo[] => [];

function terminal(): { home: string; env: NodeJS.ProcessEnv } {
  const home = join(tmp.path, "home");
  return { home, env: { HOME: home, XDG_STATE_HOME: join(tmp.path, "state") } };
}

const here = (env: NodeJS.ProcessEnv, agent: string, key?: string, explicit?: string, processes = none) =>
  pointerHere({ explicit, agent, env, cwd: CWD, key }, processes);

describe("pointerHere with agentapi stopped", () => {
  it("takes the module folder's pointer when the default is not there, and says which and why", async () => {
    const { home, env } = terminal();
    const kept = await keepInModule(home, ".coder-modules/coder/claude-code", { agent: "claude", cwd: CWD });
    const found = await here(env, "claude");
    const own = resolvePointerPath({ env, agent: "claude", cwd: CWD, home });
    expect(found).toEqual({
      pointer: kept,
      kept: { pointer: kept, matches: 1 },
      why: `no pointer at the default place (${own}): using claude's for ${CWD} kept in a Coder module folder: ${kept}`,
    });
  });

  it("takes the legacy .<agent>-module folder's too, and a keyed one for its key only", async () => {
    const { home, env } = terminal();
    const amp = await keepInModule(home, ".amp-module", { agent: "amp", cwd: CWD, id: "T-019c479a-39cc-72af-a2d1-65a965c076ec" });
    const keyed = await keepInModule(home, ".coder-modules/coder-labs/codex", { agent: "codex", cwd: CWD, key: "thread-1" });
    expect((await here(env, "amp")).pointer).toBe(amp);
    expect((await here(env, "codex", "thread-1")).pointer).toBe(keyed);
    expect(await here(env, "codex")).toEqual({ pointer: resolvePointerPath({ env, agent: "codex", cwd: CWD, home }) });
    expect((await here(env, "codex", "thread-2")).kept).toBeUndefined();
  });

  it("leaves another folder's pointer alone", async () => {
    const { home, env } = terminal();
    await keepInModule(home, ".claude-module", { agent: "claude", cwd: "/home/coder/other" });
    expect(await here(env, "claude")).toEqual({ pointer: resolvePointerPath({ env, agent: "claude", cwd: CWD, home }) });
  });

  it("takes the most recently written of several, and says how many there were", async () => {
    const { home, env } = terminal();
    await keepInModule(home, ".claude-module", { agent: "claude", cwd: CWD, writtenAt: 1_700_000_000 });
    const newer = await keepInModule(home, ".coder-modules/coder/claude-code", { agent: "claude", cwd: CWD, writtenAt: 1_800_000_000 });
    const found = await here(env, "claude");
    expect(found).toMatchObject({ pointer: newer, kept: { matches: 2 } });
    expect(found.why).toContain("kept in a Coder module folder, the newest of 2: ");
  });

  it("keeps the default when it is there, even unreadable, and says nothing", async () => {
    const { home, env } = terminal();
    await keepInModule(home, ".coder-modules/coder/claude-code", { agent: "claude", cwd: CWD });
    const own = resolvePointerPath({ env, agent: "claude", cwd: CWD, home });
    mkdirSync(join(own, ".."), { recursive: true });
    writeFileSync(own, "not json");
    expect(await here(env, "claude")).toEqual({ pointer: own });
  });

  it("never replaces a named pointer, SESSIONPIN_POINTER's, or the one beside AGENTAPI_STATE_FILE", async () => {
    const { home, env } = terminal();
    await keepInModule(home, ".coder-modules/coder/claude-code", { agent: "claude", cwd: CWD });
    const named = join(tmp.path, "named.json");
    expect(await here(env, "claude", undefined, named)).toEqual({ pointer: named });
    expect(await here({ ...env, SESSIONPIN_POINTER: named }, "claude")).toEqual({ pointer: named });
    const state = join(tmp.path, "elsewhere", "agentapi-state.json");
    expect(await here({ ...env, AGENTAPI_STATE_FILE: state }, "claude")).toEqual({ pointer: join(tmp.path, "elsewhere", "sessionpin-claude.json") });
  });

  it("puts a running run's pointer first", async () => {
    const { home, env } = terminal();
    // A process in its own folder stands for the run: its argv and environment are given here,
    // its folder is read from /proc as for any run.
    const folder = realpathSync(mkdtempSync(join(tmp.path, "work-")));
    const child = spawn("sleep", ["30"], { cwd: folder, stdio: "ignore" });
    try {
      await keepInModule(home, ".coder-modules/coder/claude-code", { agent: "claude", cwd: folder });
      const state = join(tmp.path, "live", "agentapi-state.json");
      const run: ProcessInfo = { pid: child.pid as number, argv: ["node", "/usr/bin/sessionpin", "run", "--", "claude"], env: { ...env, AGENTAPI_STATE_FILE: state } };
      const found = await pointerHere({ explicit: undefined, agent: "claude", env, cwd: folder, key: undefined }, () => [run]);
      expect(found).toMatchObject({ pointer: join(tmp.path, "live", "sessionpin-claude.json"), from: { pid: child.pid, cwd: folder } });
      expect(found.why).toBe(`using the pointer of the running sessionpin run (pid ${child.pid}, in ${folder}): ${found.pointer}`);
    } finally {
      child.kill();
    }
  });
});

describe("runningRuns", () => {
  it("reads a shim's `shim exec NAME REAL args…` as `run -- REAL args…`, its options from its environment", () => {
    const env = { HOME: "/home/u", XDG_STATE_HOME: "/state", SESSIONPIN_KEY: "pr-7" };
    const processes: ProcessInfo[] = [
      { pid: 11, argv: ["/usr/bin/node", "/opt/sp/dist/bin/main.js", "shim", "exec", "claude", "/usr/local/bin/claude", "-p", "hi"], env },
      { pid: 12, argv: ["node", "/opt/sp/dist/bin/main.js", "run", "--key", "x", "--", "codex", "exec", "hi"], env: { HOME: "/home/u", XDG_STATE_HOME: "/state" } },
      // A shim exec with its real executable missing, and a program that only mentions the words.
      { pid: 13, argv: ["/usr/bin/node", "/opt/sp/dist/bin/main.js", "shim", "exec", "claude"], env },
      { pid: 14, argv: ["grep", "shim", "exec", "claude", "/x/claude"], env },
    ];
    const runs = runningRuns(processes, () => CWD, () => true);
    expect(runs.map((run) => [run.pid, run.agent, run.key, run.pointer])).toEqual([
      [11, "claude", "pr-7", resolvePointerPath({ env, agent: "claude", cwd: CWD, home: "/home/u", key: "pr-7" })],
      [12, "codex", "x", resolvePointerPath({ env: { XDG_STATE_HOME: "/state" }, agent: "codex", cwd: CWD, home: "/home/u", key: "x" })],
    ]);
  });

  // Root reads every process's environment: only its own processes may name its pointer.
  it.runIf(process.getuid?.() === 0)("takes only this user's runs: another user's script named sessionpin names no pointer of root's", async () => {
    const dir = mkdtempSync(join(tmp.path, "impostor-"));
    const script = join(dir, "sessionpin");
    writeFileSync(script, "#!/bin/sh\nsleep 30\n", { mode: 0o755 });
    chmodSync(tmp.path, 0o755);
    chmodSync(dir, 0o755);
    const args = ["run", "--pointer", "/etc/passwd", "--", "amp"];
    const theirs = spawn("setpriv", ["--reuid=65534", "--regid=65534", "--clear-groups", script, ...args], { cwd: dir, stdio: "ignore" });
    const ours = spawn(script, args, { cwd: dir, stdio: "ignore" });
    try {
      // setpriv execs the script once it has dropped to the other user; until then setpriv itself,
      // still root, shows the script and `run` in its argv: wait until both run the script.
      const both = async (): Promise<readonly ProcessInfo[]> => {
        for (let i = 0; i < 100; i++) {
          const found = listProcesses().filter((p) => p.pid === theirs.pid || p.pid === ours.pid);
          if (found.length === 2 && found.every((p) => p.argv.includes("run") && !p.argv.includes("setpriv"))) return found;
          await new Promise((resolve) => setTimeout(resolve, 20));
        }
        throw new Error("the two scripts did not start");
      };
      const runs = runningRuns(await both());
      expect(runs.map((run) => [run.pid, run.pointer])).toEqual([[ours.pid, "/etc/passwd"]]);
    } finally {
      theirs.kill("SIGKILL");
      ours.kill("SIGKILL");
    }
  });
});
