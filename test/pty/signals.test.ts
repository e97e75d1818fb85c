import { spawn, spawnSync } from "node:child_process";
import { once } from "node:events";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { signalGroup } from "../../src/pty/signals.js";
import { ROOT } from "../helpers/sandbox.js";

/** Whether the process runs still: not gone, and no zombie waiting to be reaped (`ps` says Z). */
function running(pid: number): boolean {
  const state = spawnSync("ps", ["-o", "stat=", "-p", String(pid)], { encoding: "utf8" }).stdout.trim();
  return state !== "" && !state.startsWith("Z");
}

async function ended(pid: number): Promise<boolean> {
  for (let i = 0; i < 200 && running(pid); i++) await new Promise((resolve) => setTimeout(resolve, 10));
  return !running(pid);
}

describe("signalGroup", () => {
  it("reaches the agent and everything it started, as a terminal's signal would", async () => {
    // A session leader, as node-pty makes the agent, with two children of its own.
    const leader = spawn("sh", ["-c", "sleep 30 & echo $!; sleep 30 & echo $!; wait"], { detached: true, stdio: ["ignore", "pipe", "ignore"] });
    let out = "";
    leader.stdout.on("data", (chunk: Buffer) => void (out += chunk.toString()));
    for (let i = 0; i < 200 && out.split("\n").length < 3; i++) await new Promise((resolve) => setTimeout(resolve, 10));
    const sleepers = out.trim().split("\n").map(Number);
    expect(sleepers).toHaveLength(2);
    expect(sleepers.every(running)).toBe(true);
    try {
      const exited = once(leader, "exit");
      signalGroup(leader.pid as number, "SIGTERM");
      expect(await exited).toEqual([null, "SIGTERM"]);
      for (const pid of sleepers) expect(await ended(pid), `sleep ${pid}`).toBe(true);
    } finally {
      for (const pid of sleepers) if (running(pid)) process.kill(pid, "SIGKILL");
    }
  });

  it("signals the pid itself when it leads no group, and never this process's own group", async () => {
    // Not detached: the child is in the test's own process group, which must not be signalled.
    const child = spawn("sleep", ["30"], { stdio: "ignore" });
    await once(child, "spawn");
    const exited = once(child, "exit");
    signalGroup(child.pid as number, "SIGTERM");
    expect(await exited).toEqual([null, "SIGTERM"]);
  });

  it("does nothing for a process that has already exited", async () => {
    const child = spawn("true", { stdio: "ignore" });
    await once(child, "exit");
    expect(() => signalGroup(child.pid as number, "SIGTERM")).not.toThrow();
  });
});

describe("SignalRelay", () => {
  // In a process of its own, from the build: the signals are sent to that process, not to the test runner.
  const script = `
    import { SignalRelay } from ${JSON.stringify(join(ROOT, "dist/pty/signals.js"))};
    const before = process.listenerCount("SIGTERM");
    const relay = new SignalRelay();
    const got = [];
    const send = async (signal) => {
      const seen = got.length;
      process.kill(process.pid, signal);
      for (let i = 0; i < 200 && got.length === seen && relay.stopRequested !== signal; i++) await new Promise((r) => setTimeout(r, 5));
    };
    relay.attach((signal) => got.push(signal));
    await send("SIGUSR2");
    const afterUsr2 = relay.stopRequested ?? null;
    await send("SIGHUP");
    relay.detach();
    await send("SIGTERM");
    relay.dispose();
    console.log(JSON.stringify({ got, afterUsr2, stop: relay.stopRequested, listeners: process.listenerCount("SIGTERM") - before }));
    // Disposed: the next SIGTERM ends this process, as it would without sessionpin.
    process.kill(process.pid, "SIGTERM");
    await new Promise((r) => setTimeout(r, 5_000));
    console.log("still here");
  `;

  it("passes each signal to the agent attached, keeps the last request to stop, and lets go when disposed", () => {
    const result = spawnSync(process.execPath, ["--input-type=module", "-e", script], { encoding: "utf8", timeout: 20_000 });
    expect(result.stderr).toBe("");
    const [line, ...rest] = result.stdout.trim().split("\n");
    expect(JSON.parse(line ?? "")).toEqual({ got: ["SIGUSR2", "SIGHUP"], afterUsr2: null, stop: "SIGTERM", listeners: 0 });
    expect(rest).toEqual([]);
    expect(result.signal).toBe("SIGTERM");
  });
});
