/**
 * The Coder module (registry/sessionpin/modules/sessionpin) end to end, through real PTYs: its own
 * install script installs sessionpin from the offline tarball (scripts/pack-offline.mjs, packed from
 * this checkout's dist/) with an empty npm cache and npm --offline, and writes the shims; then a
 * start script shaped like sourcegraph-amp 3.0.0's (fixtures/amp-module-start.sh) runs twice with
 * coder_env's PATH: ~/.bashrc read, Amp's folders put first, `amp --version`, then
 * `agentapi server … -- amp --mode smart` through the fake agentapi. The fake Amp's own records
 * decide what happened (threads made, messages received), not sessionpin's log.
 */
import { spawnSync } from "node:child_process";
import { existsSync, lstatSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, statSync, symlinkSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { PtyDriver } from "../../src/pty/driver.js";
import { ROOT, type Sandbox } from "../helpers/sandbox.js";
import { Cleanup, exitOf, sleep, waitUntil, WAIT_MS } from "../e2e/support.js";
import { Workspace, type AmpPlace } from "./workspace.js";

const cleanup = new Cleanup();
afterEach(() => cleanup.run());

const PROMPT = "Fix the failing build, then run the tests.";
// Longer than sessionpin's default --prompt-quiet (1.5 s): a prompt typed again would have arrived.
const NO_PROMPT_WAIT_MS = 2_500;
// The version line 0.0.1790142911-g7618fb prints (checked against the real CLI, see src/demo/fake-amp.ts).
const AMP_VERSION = /^0\.0\.1790142911-g7618fb \(released 2026-09-23T05:55:11\.000Z, \d+(s|m|h|d|mo|y) ago\)\n$/;
const TEST_MS = 120_000;

let packDir: string;
let tarball: string;

beforeAll(() => {
  packDir = mkdtempSync(join(tmpdir(), "sessionpin-module-pack-"));
  const packed = spawnSync(process.execPath, [join(ROOT, "scripts/pack-offline.mjs"), "--out", packDir, "--json"], { cwd: ROOT, encoding: "utf8", timeout: 200_000, killSignal: "SIGKILL" });
  expect(packed.status, packed.stderr).toBe(0);
  tarball = (JSON.parse(packed.stdout) as { filename: string }).filename;
}, 240_000);
afterAll(() => rmSync(packDir, { recursive: true, force: true }));

const workspace = (place: AmpPlace = "installer"): Workspace => new Workspace(cleanup.sandbox(), place);
const started = (ws: Workspace, o: { prompt: boolean; task?: string }): PtyDriver => cleanup.driver(ws.start(o));

/** The fake Amp's records: the argv of each start, and [thread, text] of each message. */
const starts = (sb: Sandbox): string[][] => sb.events().filter((e) => e.event === "start").map((e) => e.argv);
const messages = (sb: Sandbox): Array<[unknown, unknown]> => sb.events().filter((e) => e.event === "message").map((e) => [e["thread"], e["text"]]);
/** The pid of the Amp that opened `thread` most recently. */
function ampPid(sb: Sandbox, thread: string): number {
  const pid = sb.events().filter((e) => e.event === "start" && e.argv.at(-1) === thread).at(-1)?.pid;
  // Never 0 or less: process.kill would signal a whole process group, the test runner's own.
  if (pid === undefined || pid <= 0) throw new Error(`no Amp opened ${thread}`);
  return pid;
}

async function endWithCtrlC(driver: PtyDriver): Promise<void> {
  driver.write("\x03");
  expect((await exitOf(driver)).exitCode).toBe(0);
}

/** The one Amp pointer there is, once it holds a thread. */
async function pinned(ws: Workspace): Promise<{ id: string; pointer: Record<string, unknown> }> {
  const [only] = await waitUntil(() => {
    const all = ws.ampPointers();
    return all.length > 0 && /^T-[0-9a-f-]{36}$/.test(String(all[0]?.pointer["id"])) && all;
  }, "Amp's pointer");
  expect(ws.ampPointers()).toHaveLength(1);
  return { id: String(only?.pointer["id"]), pointer: only?.pointer ?? {} };
}

describe.each<AmpPlace>(["installer", "system"])("the Amp module's start script, the shims first on PATH, amp in its %s folder", (place) => {
  it("cold: pins the thread and types the prompt once; warm: resumes it; `amp --version` is the real one's and pins nothing", async () => {
    const ws = workspace(place);
    const { sb } = ws;

    const install = ws.install("script", { source: tarball, offline: true, prompt: PROMPT });
    expect(install.status, install.stdout + install.stderr).toBe(0);
    expect(install.stdout).toMatch(/installing from .*sessionpin-[\d.]+-offline\.tgz sha256:[0-9a-f]{64} \(offline\)/);
    expect(install.stdout).toContain(`shims in ${ws.shimDir}: amp agentapi`);
    expect(readFileSync(join(ws.moduleDir, "prompt.txt"), "utf8")).toBe(PROMPT);
    expect(statSync(join(ws.moduleDir, "prompt.txt")).mode & 0o777).toBe(0o600);

    // `amp --version` through the shim, and the bare fake: the same bytes, and nothing pinned.
    const bare = spawnSync(ws.amp, ["--version"], { cwd: ws.home, env: ws.env(true), encoding: "utf8", timeout: WAIT_MS });
    expect(bare.stdout, `${String(bare.status)} ${bare.stderr}`).toMatch(AMP_VERSION);
    const viaShim = spawnSync(join(ws.shimDir, "amp"), ["--version"], { cwd: ws.home, env: { ...ws.env(true), PATH: `${ws.env(true)["PATH"] ?? ""}:${join(ws.home, ".local/bin")}` }, encoding: "utf8", timeout: WAIT_MS });
    expect([viaShim.status, viaShim.stdout, viaShim.stderr]).toEqual([0, bare.stdout, ""]);
    // Both reached the fake Amp as `--version` and nothing else; sessionpin wrote nothing.
    expect(starts(sb)).toEqual([["--version"], ["--version"]]);
    expect(existsSync(ws.stateDir)).toBe(false);

    // Cold.
    let driver = started(ws, { prompt: true });
    await driver.waitFor(/Amp: noted \(1 messages in this thread\)/, WAIT_MS);
    expect(driver.text).toContain(`AMP version: ${bare.stdout.trim()}`);
    // agentapi's command line is the module's own: amp by name, nothing of sessionpin's.
    expect(ws.agentapiRuns().map((run) => run.argv)).toEqual([["server", "--type", "amp", "--term-width=67", "--term-height=1190", "--", "amp", "--mode", "smart"]]);
    const { id, pointer } = await pinned(ws);
    // The pointer is the project's: `amp --version`, run from the home folder before the script's cd, pinned nothing there.
    expect(pointer["cwd"]).toBe(realpathSync(ws.project));
    await sleep(1_000);
    expect(starts(sb).slice(2)).toEqual([["--version"], ["--mode", "smart", "threads", "new"], ["--mode", "smart", "threads", "continue", id]]);
    expect(messages(sb)).toEqual([[id, PROMPT]]);
    await endWithCtrlC(driver);

    // Warm: the same script, the same workspace.
    driver = started(ws, { prompt: true });
    await driver.waitFor(/continued, 1 messages/, WAIT_MS);
    expect(driver.text).toContain(`AMP version: ${bare.stdout.trim()}`);
    await sleep(NO_PROMPT_WAIT_MS);
    expect(starts(sb).slice(5)).toEqual([["--version"], ["--mode", "smart", "threads", "continue", id]]);
    expect(messages(sb)).toEqual([[id, PROMPT]]);
    expect(ws.ampPointers().map((p) => p.pointer["id"])).toEqual([id]);
    await endWithCtrlC(driver);
  }, TEST_MS);
});

// The real Amp CLI, where `npm run test:interop` installed it: the fake's version line must be its line.
const REAL_AMP = join(ROOT, "interop/node_modules/.bin/amp");
it.skipIf(!existsSync(REAL_AMP))("the fake Amp's `--version` prints what the real Amp 0.0.1790142911 prints", () => {
  const home = mkdtempSync(join(tmpdir(), "sessionpin-amp-version-"));
  try {
    const real = spawnSync(REAL_AMP, ["--version"], { env: { HOME: home, PATH: "/usr/bin:/bin" }, encoding: "utf8", timeout: 30_000 });
    const fake = spawnSync(process.execPath, [join(ROOT, "dist/demo/fake-amp.js"), "--version"], { env: { HOME: home, PATH: "/usr/bin:/bin" }, encoding: "utf8", timeout: WAIT_MS });
    expect(real.stdout).toMatch(AMP_VERSION);
    expect([fake.status, fake.stdout, fake.stderr]).toEqual([real.status, real.stdout, real.stderr]);
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
}, 60_000);

describe("the Amp module's own task prompt, piped (`bash -c \"echo … | amp\" --mode smart`)", () => {
  it("reaches the new thread once; the warm start resumes the thread and drops it", async () => {
    const ws = workspace();
    const { sb } = ws;
    const task = "Fix the failing build.";
    const sent = `Report your progress with the coder_report_task tool as you go. The task: ${task}`;
    expect(ws.install("script", { source: tarball }).status).toBe(0);

    let driver = started(ws, { prompt: false, task });
    await driver.waitFor(/Amp: noted \(1 messages in this thread\)/, WAIT_MS);
    const { id } = await pinned(ws);
    await sleep(1_000);
    // sourcegraph-amp 3.0.0 hands `--mode smart` to bash, not to amp: the fake Amp never sees it.
    expect(starts(sb)).toEqual([["--version"], ["threads", "new"], ["threads", "continue", id]]);
    expect(messages(sb)).toEqual([[id, sent]]);
    // Amp reads the pipe, not the terminal: it is stopped as the workspace stops it, by a signal.
    process.kill(ampPid(sb, id), "SIGTERM");
    await exitOf(driver);

    driver = started(ws, { prompt: false, task });
    await driver.waitFor(/continued, 1 messages/, WAIT_MS);
    await sleep(NO_PROMPT_WAIT_MS);
    expect(starts(sb).slice(3)).toEqual([["--version"], ["threads", "continue", id]]);
    expect(messages(sb)).toEqual([[id, sent]]);
    process.kill(ampPid(sb, id), "SIGTERM");
    await exitOf(driver);
  }, TEST_MS);
});

describe("the module's install script", () => {
  it("run by the coder_script and the agent module's hook at once: one installs, the other waits for it; the next start installs nothing", async () => {
    const ws = workspace();
    const inputs = { source: tarball, offline: true, agents: ["amp", "claude"] };
    const [script, hook] = await Promise.all([ws.installAsync("script", inputs), sleep(300).then(() => ws.installAsync("post_install", inputs))]);
    expect([script.status, hook.status]).toEqual([0, 0]);
    expect(script.output).toContain("installing from");
    expect(hook.output).toContain("another install is running");
    expect(hook.output).toContain("already installed");
    for (const output of [script.output, hook.output]) expect(output).toContain(`shims in ${ws.shimDir}: amp claude agentapi`);

    const again = ws.install("script", inputs);
    expect(again.status).toBe(0);
    expect(again.stdout).toContain("already installed");
    expect(again.stdout).not.toContain("installing from");
    expect(readFileSync(join(ws.moduleDir, "logs/install.log"), "utf8").match(/installing from/g)).toHaveLength(1);

    // An update from a source that is gone: said, and the earlier install and its shims stay.
    const update = ws.install("script", { ...inputs, source: "/nowhere/sessionpin-0.2.0-offline.tgz" });
    expect(update.status).toBe(1);
    expect(update.stderr).toContain("the sessionpin installed before (");
    expect(update.stderr).toContain(") stays in use");
    expect(existsSync(join(ws.shimDir, "amp")) && existsSync(join(ws.moduleDir, "npm/bin/sessionpin"))).toBe(true);
  }, TEST_MS);

  it("with a source it cannot reach: says why, fails the coder_script but not the hook, writes no shim; Amp starts as it would without the module", async () => {
    const ws = workspace();
    const { sb } = ws;
    const url = `http://127.0.0.1:${await closedPort()}/sessionpin-0.1.0-offline.tgz`;
    const script = ws.install("script", { source: url });
    expect(script.status).toBe(1);
    expect(script.stderr).toMatch(new RegExp(`cannot download ${url.replaceAll(".", "\\.")}: \\S`));
    expect(script.stderr).toContain("the agents start without sessionpin");
    const hook = ws.install("post_install", { source: url });
    expect(hook.status).toBe(0);
    expect(hook.stderr).toContain(`cannot download ${url}`);
    // A lock left by a workspace stopped mid-install (its pid gone) is taken over, not waited for.
    mkdirSync(ws.moduleDir, { recursive: true });
    symlinkSync("999999999 12345", join(ws.moduleDir, "install.lock"));
    const missing = ws.install("script", { source: "/nowhere/sessionpin-0.1.0-offline.tgz" });
    expect(missing.stdout).toContain("taking over a lock left by an install that is gone");
    expect(missing.stderr).toContain("/nowhere/sessionpin-0.1.0-offline.tgz: no such file in this workspace");
    expect(() => lstatSync(join(ws.moduleDir, "install.lock"))).toThrow();
    // A plain spec with npm offline and an empty cache: npm's own reason.
    expect(ws.install("script", { source: "sessionpin@0.1.0", offline: true }).stderr).toMatch(/npm could not install sessionpin from sessionpin@0\.1\.0: .*ENOTCACHED/);
    expect(ws.install("script", { source: tarball }, { ...ws.env(false), PATH: basicTools(sb) }).stderr).toContain("sessionpin needs Node.js 20.19+ and npm on PATH, and this workspace has no node");
    expect(existsSync(ws.shimDir)).toBe(false);

    const driver = started(ws, { prompt: false });
    await driver.waitFor(/new thread/, WAIT_MS);
    expect(ws.agentapiRuns().map((run) => run.command)).toEqual([["amp", "--mode", "smart"]]);
    expect(starts(sb)).toEqual([["--version"], ["--mode", "smart"]]);
    expect(existsSync(ws.stateDir)).toBe(false);
    await endWithCtrlC(driver);
  }, TEST_MS);

  it("with sessionpin gone after the shims were written: the shim says so and runs Amp straight", async () => {
    const ws = workspace("system");
    const { sb } = ws;
    expect(ws.install("script", { source: tarball }).status).toBe(0);
    rmSync(join(ws.moduleDir, "npm"), { recursive: true });

    const driver = started(ws, { prompt: false });
    await driver.waitFor(/new thread/, WAIT_MS);
    expect(driver.text).toMatch(/sessionpin shim: cannot run sessionpin \(\S+ is gone\): starting amp without it/);
    expect(starts(sb)).toEqual([["--version"], ["--mode", "smart"]]);
    expect(existsSync(ws.stateDir)).toBe(false);
    await endWithCtrlC(driver);
  }, TEST_MS);
});

/** A port nothing listens on: one the system just handed out and took back. */
function closedPort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer().listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() => resolve(typeof address === "object" && address !== null ? address.port : 9));
    });
  });
}

/** A PATH of the few tools the script needs before it looks for Node, and no node or npm. */
function basicTools(sb: Sandbox): string {
  const dir = join(sb.dir, "basic-bin");
  mkdirSync(dir);
  for (const tool of ["bash", "base64", "mkdir", "tee", "date", "cat", "rm", "mv", "cut", "sleep"]) {
    const found = spawnSync("sh", ["-c", `command -v ${tool}`], { encoding: "utf8" }).stdout.trim();
    if (found !== "") symlinkSync(found, join(dir, tool));
  }
  return dir;
}
