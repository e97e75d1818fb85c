/**
 * Shims through the built CLI, as a user has them: `sessionpin shim install` writes them, their
 * folder goes first on PATH, and the agents of fixtures/agents (or a tiny one written here) are
 * called by name. What the agent received and what the caller saw decide, not sessionpin's log.
 */
import { spawn, spawnSync } from "node:child_process";
import { chmodSync, cpSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { delimiter, join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { installShims } from "../../src/shim/folder.js";
import { CLI, FAKE_AGENTS, ROOT, Sandbox } from "../helpers/sandbox.js";
import { Cleanup, cwdOf, exitOf, waitUntil } from "../e2e/support.js";
import { call, shimmed, statePointers } from "./support.js";

const cleanup = new Cleanup();
afterEach(() => cleanup.run());

/** A made-up `claude` in its own folder, first after the shims: stdout, stderr and an exit code of its own. */
function tinyClaude(sb: Sandbox, body: string): string {
  const bin = join(sb.dir, "tiny-bin");
  mkdirSync(bin, { recursive: true });
  writeFileSync(join(bin, "claude"), `#!/bin/sh\n${body}\n`);
  chmodSync(join(bin, "claude"), 0o755);
  sb.env["PATH"] = (sb.env["PATH"] ?? "").replace(`${delimiter}${FAKE_AGENTS}`, `${delimiter}${bin}${delimiter}${FAKE_AGENTS}`);
  return join(bin, "claude");
}

describe("an agent called by name through its shim", () => {
  it("pins a one-shot run's session, and the next call continues it with its new message", () => {
    const { sb } = shimmed(["claude"]);
    const first = call(sb, ["claude", "-p", "remember the word banana", "--output-format", "stream-json", "--verbose"]);
    expect(first.status).toBe(0);
    const second = call(sb, ["claude", "-p", "which word?", "--output-format", "stream-json", "--verbose"]);
    expect(second.status).toBe(0);
    const messages = sb.fakeMessages("claude");
    expect(messages.map(([, text]) => text)).toEqual(["remember the word banana", "which word?"]);
    const [session, again] = messages.map(([id]) => id);
    expect(again).toBe(session);
    // The second start resumed the session the first one made, by Claude's own flag.
    expect(sb.fakeStarts("claude")[1]).toContain("--resume");
    const sessions = JSON.parse(call(sb, [process.execPath, CLI, "sessions", "--json"]).stdout) as Array<{ agent: string; id: string; cwd: string }>;
    expect(sessions.map((s) => [s.agent, s.id, s.cwd])).toEqual([["claude", session, cwdOf(sb)]]);
  }, 60_000);

  it("hands a call that opens no conversation straight to the agent: same bytes on stdout and stderr, same exit code, no pointer", () => {
    const { sb } = shimmed(["claude"]);
    const real = tinyClaude(sb, `printf '2.1.330 (Claude Code)\\n'; printf 'a warning\\n' >&2; exit 3`);
    const bare = spawnSync(real, ["--version"], { cwd: sb.dir, env: sb.env, encoding: "utf8", timeout: 10_000 });
    const shim = call(sb, ["claude", "--version"]);
    expect({ stdout: shim.stdout, stderr: shim.stderr, status: shim.status }).toEqual({ stdout: bare.stdout, stderr: bare.stderr, status: 3 });
    expect(shim.stdout).toBe("2.1.330 (Claude Code)\n");
    expect(existsSync(statePointers(sb))).toBe(false);
  }, 30_000);

  it("passes the agent's signal on: killed by SIGTERM, the call ends by SIGTERM", async () => {
    const { sb } = shimmed(["claude"]);
    tinyClaude(sb, `echo started; trap 'exit 143' TERM; sleep 20 & wait`);
    const child = spawn("claude", ["--version"], { cwd: sb.dir, env: sb.env, stdio: ["ignore", "pipe", "pipe"] });
    const exited = new Promise<[number | null, NodeJS.Signals | null]>((resolve) => child.on("exit", (c, s) => resolve([c, s])));
    try {
      let out = "";
      child.stdout.on("data", (chunk: Buffer) => (out += chunk.toString()));
      await waitUntil(() => out.includes("started"), "the agent to start");
      child.kill("SIGTERM");
      expect(await exited).toEqual([143, null]);
    } finally {
      child.kill("SIGKILL");
    }
  }, 30_000);

  it("run straight in a terminal, the agent gets the SIGINT sent to the shim's pid, as agentapi stops what it started", async () => {
    const { sb } = shimmed(["claude"]);
    tinyClaude(sb, `trap 'echo got-int; exit 130' INT; echo started; sleep 20 & wait`);
    // A bad value makes sessionpin step aside: the agent runs straight, under the shim's node.
    const shim = cleanup.driver(sb.direct(["claude", "-p", "hi"], { env: { ...sb.env, SESSIONPIN_KEY: "" } }));
    await shim.waitFor(/started/);
    shim.kill("SIGINT");
    expect(await exitOf(shim)).toEqual({ exitCode: 130, signal: 0 });
    expect(shim.text.match(/got-int/g)).toEqual(["got-int"]);
  }, 30_000);

  it("a bad SESSIONPIN_* value does not stop the agent: one line, then the agent runs straight", () => {
    const { sb } = shimmed(["claude"]);
    const result = call(sb, ["claude", "-p", "hello", "--output-format", "stream-json", "--verbose"], { SESSIONPIN_KEY: "" });
    expect(result.stderr.split("\n")[0]).toBe("sessionpin: SESSIONPIN_KEY is set but empty (an unset variable?): give it a value, or unset it; starting claude without sessionpin");
    expect(result.status).toBe(0);
    expect(sb.fakeMessages("claude").map(([, text]) => text)).toEqual(["hello"]);
    expect(existsSync(statePointers(sb))).toBe(false);
  }, 30_000);

  it("a pointer in use by a live run does not stop the agent: one line naming the holder, then the agent runs straight", async () => {
    const { sb } = shimmed(["claude"]);
    // An interactive Claude through the shim holds this folder's pointer while it runs.
    const live = cleanup.driver(sb.direct(["claude"]));
    await live.waitFor(/new session/);
    const result = call(sb, ["claude", "-p", "hello", "--output-format", "stream-json", "--verbose"]);
    expect(result.stderr.split("\n")[0]).toMatch(/^sessionpin: .+\.json is in use by sessionpin pid \d+ .*; starting claude without sessionpin$/);
    expect(result.status).toBe(0);
    expect(sb.fakeMessages("claude").map(([, text]) => text)).toEqual(["hello"]);
    live.kill("SIGINT");
    await exitOf(live);
  }, 40_000);

  it("on a Node older than sessionpin needs, or with sessionpin's bundle broken, the agent still starts", () => {
    const sb = new Sandbox();
    const shims = join(sb.dir, "shims");
    // A node that says it is 18.19.0, as an nvm default left behind would.
    const preload = join(sb.dir, "node18.cjs");
    writeFileSync(preload, `Object.defineProperty(process.versions, "node", { value: "18.19.0" });\n`);
    const oldNode = join(sb.dir, "node18");
    writeFileSync(oldNode, `#!/bin/sh\nexec ${JSON.stringify(process.execPath)} --require ${JSON.stringify(preload)} "$@"\n`);
    chmodSync(oldNode, 0o755);
    // A copy of the install whose bundle was cut short.
    const broken = join(sb.dir, "broken");
    cpSync(join(ROOT, "dist"), join(broken, "dist"), { recursive: true });
    cpSync(join(ROOT, "package.json"), join(broken, "package.json"));
    writeFileSync(join(broken, "dist", "bin", "cli.js"), readFileSync(join(ROOT, "dist", "bin", "cli.js"), "utf8").slice(0, 5000));
    sb.env["PATH"] = `${shims}${delimiter}${sb.env["PATH"] ?? ""}`;
    for (const [node, main, line] of [
      [oldNode, CLI, "sessionpin: Node 18.19.0 is older than 20.19, which sessionpin needs; starting claude without sessionpin"],
      [process.execPath, join(broken, "dist", "bin", "main.js"), `sessionpin: cannot load ${join(broken, "dist", "bin", "cli.js")} (`],
    ] as const) {
      installShims(shims, [{ name: "claude", dir: shims, node, main, version: "test" }]);
      const result = call(sb, ["claude", "-p", `via ${node}`, "--output-format", "stream-json", "--verbose"]);
      expect(result.stderr.split("\n")[0]?.startsWith(line), result.stderr).toBe(true);
      expect(result.status).toBe(0);
    }
    expect(sb.fakeMessages("claude").map(([, text]) => text)).toEqual([`via ${oldNode}`, `via ${process.execPath}`]);
  }, 40_000);
});
