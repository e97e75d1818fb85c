import { spawn } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { constants } from "node:os";
import { join } from "node:path";
import { readPointer } from "../../../src/pointer/store.js";
import { CLI, ROOT, Sandbox } from "../../helpers/sandbox.js";
import { exitOf, sleep, waitUntil } from "../../e2e/support.js";
import { check, pick, type Context, type Family } from "../harness.js";

/**
 * Family 4: kills. SIGKILL at random moments while the flapper agent changes its ID every few
 * milliseconds (pointer rewrites, the lock, the recording and the trace all under way), and
 * SIGTERM, SIGHUP or SIGINT to sessionpin in a terminal. Afterwards the pointer is valid and
 * never older than the last ID the log says landed, the recording and trace are valid prefixes,
 * the agent's process group is gone, a signal N ends in exit 128+N, and the terminal's modes are
 * what they were before.
 */
export const kills: Family = {
  name: "4 kills",
  budgetMs: { quick: 8_000, full: 240_000 },
  async run(context, attempt) {
    const sb = new Sandbox({ FLAPPER_STATE: "" });
    const env = { ...sb.env, FLAPPER_STATE: join(sb.dir, "flapper.state") };
    const state = { landed: 0 };
    try {
      const total = context.count(6, 120);
      for (let i = 0; i < total && context.timeLeft(); i++) {
        if (i % 5 === 4) {
          const signal = pick(context.random, ["SIGTERM", "SIGHUP", "SIGINT"] as const);
          await attempt(`${signal} to sessionpin (#${i})`, () => signalled(sb, env, signal, state, context));
        } else if (i % 5 === 2) {
          await attempt(`SIGKILL, the agent ignoring SIGHUP (#${i})`, () => hangupIgnored(sb, context));
        } else {
          await attempt(`SIGKILL (#${i})`, () => killed(sb, env, state, context));
        }
      }
    } finally {
      sb.cleanup();
    }
  },
};

const FLAPPER = join(ROOT, "fixtures/plugins/flapper.json");
// --pty: the agent in a terminal of its own, whose hangup ends it, also when sessionpin has none.
const args = (sb: Sandbox): string[] => ["run", "--pty", "--pointer", sb.pointer, "--plugin", FLAPPER, "--record", join(sb.dir, "run.cast"), "--trace", join(sb.dir, "trace.jsonl"), "--", "flapper"];
const readLog = (sb: Sandbox): string => (existsSync(sb.log) ? readFileSync(sb.log, "utf8") : "");

async function killed(sb: Sandbox, env: NodeJS.ProcessEnv, state: { landed: number }, context: Context): Promise<void> {
  const logBefore = readLog(sb).length;
  const child = spawn(process.execPath, [CLI, ...args(sb)], { cwd: sb.dir, env, stdio: "ignore" });
  const exited = new Promise((resolve) => child.on("exit", resolve));
  try {
    if (context.random() < 0.25) await sleep(context.random() * 300);
    else await waitUntil(() => readLog(sb).slice(logBefore).includes(" → ") || undefined, "a landed pointer write").then(() => sleep(context.random() * 150));
  } finally {
    child.kill("SIGKILL");
    await exited;
  }
  await after(sb, readLog(sb).slice(logBefore), state);
}

async function signalled(sb: Sandbox, env: NodeJS.ProcessEnv, signal: "SIGTERM" | "SIGHUP" | "SIGINT", state: { landed: number }, context: Context): Promise<void> {
  const logBefore = readLog(sb).length;
  // A shell in the terminal prints its modes before and after, as a user's shell would see them.
  const script = `stty -g; "$0" "$@"; echo "exit=$?"; stty -g`;
  const driver = sb.direct(["sh", "-c", script, process.execPath, CLI, ...args(sb)], { env });
  try {
    await waitUntil(() => readLog(sb).slice(logBefore).includes(" → ") || undefined, "a landed pointer write");
    await sleep(context.random() * 200);
    const sessionpin = childrenOf(driver.pid).find((pid) => readFileSync(`/proc/${pid}/cmdline`, "utf8").includes(CLI));
    check(sessionpin !== undefined, "sessionpin not found under the shell");
    process.kill(sessionpin, signal);
    await exitOf(driver, 15_000);
  } catch (error) {
    throw new Error(`${error instanceof Error ? error.message : String(error)}; terminal: ${JSON.stringify(driver.text.slice(-400))}; log: ${JSON.stringify(readLog(sb).slice(logBefore).slice(-600))}`);
  } finally {
    for (const pid of [driver.pid, ...childrenOf(driver.pid)]) killGroup(pid);
  }
  const text = driver.output.toString("utf8");
  const modes = [...text.matchAll(/^([0-9a-f]+(?::[0-9a-f]+){10,})\r?$/gm)].map((m) => m[1]);
  const code = /exit=(\d+)/.exec(text)?.[1];
  check(code === String(128 + constants.signals[signal]), `exit ${code} after ${signal}, expected ${128 + constants.signals[signal]}`);
  check(modes.length === 2 && modes[0] === modes[1], `terminal modes before/after differ: ${JSON.stringify(modes)}`);
  await after(sb, readLog(sb).slice(logBefore), state);
}

/**
 * sessionpin SIGKILLed while its agent ignores SIGHUP but reads its terminal, as an interactive
 * agent does: the terminal's end (EOF) ends it, though the hangup does not. (An agent that ignores
 * SIGHUP and never reads its terminal outlives sessionpin's SIGKILL: the limit the README states.)
 */
async function hangupIgnored(sb: Sandbox, context: Context): Promise<void> {
  const pointer = join(sb.dir, "hup", "pointer.json");
  const log = join(sb.dir, "hup", "pointer.log");
  const child = spawn(process.execPath, [CLI, "run", "--pty", "--pointer", pointer, "--agent", "claude", "--", "hangup-ignorer"], { cwd: sb.dir, env: sb.env, stdio: "ignore" });
  const exited = new Promise((resolve) => child.on("exit", resolve));
  let agent: number | undefined;
  try {
    agent = await waitUntil(() => Number(/started pid (\d+)/.exec(existsSync(log) ? readFileSync(log, "utf8") : "")?.[1]) || undefined, "the agent to start");
    await sleep(100 + context.random() * 300);
  } finally {
    child.kill("SIGKILL");
    await exited;
  }
  const pid = agent;
  try {
    await waitUntil(() => !groupRunning(pid) || undefined, "the agent's process group to go", 3_000);
  } catch {
    killGroup(pid);
    throw new Error(`the agent that ignores SIGHUP outlived sessionpin's SIGKILL (pid ${pid})`);
  }
}

/** The checks after every kill: pointer, recording, trace, and no agent left running. */
async function after(sb: Sandbox, log: string, state: { landed: number }): Promise<void> {
  const agents = [...log.matchAll(/started pid (\d+)/g)].map((m) => Number(m[1]));
  try {
    // The agent's group goes with its terminal: a moment for the hangup to land.
    await waitUntil(() => agents.every((pid) => !groupAlive(pid)) || undefined, "the agent's process group to go", 3_000);
  } catch {
    for (const pid of agents) killGroup(pid);
    throw new Error(`the agent's process group outlived sessionpin (pids ${agents.join(", ")})`);
  }
  check(!/running unpinned/.test(log), "a run went unpinned after the kill before it");
  const ids = [...log.matchAll(/\b(F-\d+)\b[^\n]* → /g)].map((m) => Number(m[1]?.slice(2)));
  state.landed = Math.max(state.landed, ...ids);
  const read = await readPointer(sb.pointer);
  if (state.landed === 0) {
    check(read.kind === "missing" || read.kind === "ok", `pointer ${read.kind}`);
  } else {
    check(read.kind === "ok", `pointer ${JSON.stringify(read).slice(0, 300)}`);
    check(Number(read.pointer.id.slice(2)) >= state.landed, `the pointer went back: ${read.pointer.id} < F-${state.landed}`);
  }
  const cast = join(sb.dir, "run.cast");
  if (existsSync(cast)) {
    const [header, ...events] = readFileSync(cast, "utf8").split("\n").filter(Boolean);
    check((JSON.parse(header ?? "{}") as { version?: number }).version === 2, "cast header");
    for (const event of events) {
      const parsed = JSON.parse(event) as unknown;
      check(Array.isArray(parsed) && parsed.length === 3, `cast event ${event.slice(0, 100)}`);
    }
  }
  const trace = join(sb.dir, "trace.jsonl");
  if (existsSync(trace)) for (const line of readFileSync(trace, "utf8").split("\n").filter(Boolean)) JSON.parse(line);
}

function childrenOf(pid: number): number[] {
  try {
    return readFileSync(`/proc/${pid}/task/${pid}/children`, "utf8").trim().split(/\s+/).filter(Boolean).map(Number);
  } catch {
    return [];
  }
}

/** Whether a process of group `pgid` still runs: a zombie waiting for its reaper does not. */
function groupRunning(pgid: number): boolean {
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, "utf8");
      const [state, , group] = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      if (Number(group) === pgid && state !== "Z") return true;
    } catch {
      // gone meanwhile
    }
  }
  return false;
}

function groupAlive(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch {
    return false;
  }
}

function killGroup(pgid: number): void {
  try {
    process.kill(-pgid, "SIGKILL");
  } catch {
    // gone
  }
}
