import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { CLI, Sandbox } from "../../helpers/sandbox.js";
import { cwdOf, sleep, waitUntil } from "../../e2e/support.js";
import { alive, check, pick, type Family } from "../harness.js";

/**
 * Family 3: races. 2, 5 and 10 runs started at the same instant on one pointer, or on one Amp
 * thread through as many pointers; a holder SIGKILLed and a new run started at once; runs that
 * wait (`--wait-lock`) take turns. Never two drivers: the losers exit 75 at once, or wait.
 */
export const races: Family = {
  name: "3 races",
  budgetMs: { quick: 10_000, full: 150_000 },
  async run(context, attempt) {
    const rounds = context.count(1, 8);
    for (let round = 0; round < rounds && context.timeLeft(); round++) {
      for (const n of context.mode === "quick" ? [3] : [2, 5, 10]) {
        const shape = pick(context.random, ["one pointer", "one thread, many pointers"] as const);
        await attempt(`${n} runs at once on ${shape} (round ${round})`, () => atOnce(n, shape));
      }
      await attempt(`a holder SIGKILLed, a new run at once (round ${round})`, () => killedHolder(context.random() * 300));
      await attempt(`${context.count(2, 4)} runs waiting their turn (round ${round})`, () => takingTurns(context.count(2, 4)));
    }
  },
};

interface Run {
  readonly child: ChildProcess;
  code?: number | null;
  readonly exited: Promise<number | null>;
}

function start(sb: Sandbox, pointer: string, extra: readonly string[] = []): Run {
  // --pty: with no terminal of its own a run puts the agent on pipes, and fake Amp, its stdin at
  // an end, would exit at once; in a PTY it waits for input, as a driven agent does.
  const child = spawn(process.execPath, [CLI, "run", "--pty", "--pointer", pointer, ...extra, "--", "amp"], { cwd: sb.dir, env: sb.env, stdio: "ignore" });
  const run: Run = { child, exited: new Promise((resolve) => child.on("exit", (code, signal) => resolve(code ?? 128 + signalNumber(signal)))) };
  void run.exited.then((code) => (run.code = code));
  return run;
}

const signalNumber = (signal: NodeJS.Signals | null): number => (signal === "SIGKILL" ? 9 : signal === "SIGTERM" ? 15 : 0);

/** Fake Amp's interactive runs (not `threads new`) still alive. */
function drivingAgents(sb: Sandbox): number[] {
  const exited = new Set(sb.events().filter((e) => e.event === "exit").map((e) => e.pid));
  return sb.events()
    .filter((e) => e.event === "start" && e.argv[0] === "threads" && e.argv[1] === "continue" && !exited.has(e.pid) && alive(e.pid))
    .map((e) => e.pid);
}

async function endAll(runs: readonly Run[]): Promise<void> {
  for (const run of runs) if (run.code === undefined) run.child.kill("SIGTERM");
  await Promise.race([Promise.all(runs.map((r) => r.exited)), sleep(5_000)]);
  for (const run of runs) if (run.code === undefined) run.child.kill("SIGKILL");
  await Promise.all(runs.map((r) => r.exited));
}

function parentOf(pid: number): number {
  const match = /^PPid:\s+(\d+)/m.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
  check(match !== null, `no parent for ${pid}`);
  return Number(match[1]);
}

function newThread(sb: Sandbox): string {
  const out = spawnSync("amp", ["threads", "new"], { env: sb.env, encoding: "utf8" }).stdout;
  const id = /T-[0-9a-f-]{36}/.exec(out)?.[0];
  check(id !== undefined, `fake amp threads new printed ${out}`);
  return id;
}

function writePointer(sb: Sandbox, path: string, id: string): void {
  mkdirSync(join(path, ".."), { recursive: true, mode: 0o700 });
  const now = new Date().toISOString();
  writeFileSync(path, JSON.stringify({ version: 1, agent: "amp", id, state: "confirmed", cwd: cwdOf(sb), capturedAt: now, confirmedAt: now, source: { rule: "threads-new" }, history: [] }), { mode: 0o600 });
}

async function atOnce(n: number, shape: "one pointer" | "one thread, many pointers"): Promise<void> {
  const sb = new Sandbox();
  const runs: Run[] = [];
  try {
    let pointers = Array.from({ length: n }, () => sb.pointer);
    if (shape !== "one pointer") {
      const id = newThread(sb);
      pointers = pointers.map((_, i) => join(sb.dir, `state-${i}`, "pointer.json"));
      for (const path of pointers) writePointer(sb, path, id);
    }
    for (const path of pointers) runs.push(start(sb, path));
    // The losers give up at once; give them time to start on a busy machine.
    await waitUntil(() => runs.filter((r) => r.code !== undefined).length >= n - 1 || undefined, `${n - 1} runs refused`, 20_000);
    await sleep(300);
    const codes = runs.map((r) => r.code);
    check(codes.filter((c) => c === 75).length === n - 1, `exit codes ${JSON.stringify(codes)}: expected ${n - 1} × 75`);
    const driving = await waitUntil(() => (drivingAgents(sb).length >= 1 ? drivingAgents(sb) : undefined), "the winner's agent", 15_000);
    check(driving.length === 1, `${driving.length} agents driven at once`);
  } finally {
    await endAll(runs);
    sb.cleanup();
  }
}

async function killedHolder(delayMs: number): Promise<void> {
  const sb = new Sandbox();
  const runs: Run[] = [];
  try {
    const first = start(sb, sb.pointer);
    runs.push(first);
    await waitUntil(() => drivingAgents(sb).length === 1 || undefined, "the first run's agent", 15_000);
    await sleep(delayMs);
    first.child.kill("SIGKILL");
    const second = start(sb, sb.pointer);
    runs.push(second);
    await first.exited;
    // The dead holder's lock is taken over: the second run drives, it does not exit 75.
    await waitUntil(() => second.code !== undefined || drivingAgents(sb).some((pid) => !sb.events().some((e) => e.pid === pid && e.event === "start" && runs.length < 2)) || undefined, "the second run", 15_000);
    await sleep(1_500);
    check(second.code === undefined, `the new run exited ${second.code} after the holder was SIGKILLed`);
    await waitUntil(() => drivingAgents(sb).length <= 1 || undefined, "the killed run's agent to go", 10_000);
  } finally {
    await endAll(runs);
    sb.cleanup();
  }
}

async function takingTurns(n: number): Promise<void> {
  const sb = new Sandbox();
  const runs: Run[] = [];
  try {
    for (let i = 0; i < n; i++) runs.push(start(sb, sb.pointer, ["--wait-lock", "60"]));
    const ended = new Set<number>();
    const current = (): number[] => drivingAgents(sb).filter((pid) => !ended.has(pid));
    for (let turn = 0; turn < n; turn++) {
      const driving = await waitUntil(() => (current().length >= 1 ? current() : undefined), `turn ${turn}'s agent`, 20_000);
      await sleep(200);
      check(drivingAgents(sb).length === 1, `${drivingAgents(sb).length} agents driven at once`);
      const pid = driving[0] ?? 0;
      ended.add(pid);
      // SIGTERM to the run that drives it (its parent), which forwards it, as agentapi's stop does.
      process.kill(parentOf(pid), "SIGTERM");
      await waitUntil(() => runs.filter((r) => r.code !== undefined).length >= turn + 1 || undefined, `turn ${turn} to end`, 15_000);
    }
    const codes = await Promise.all(runs.map((r) => r.exited));
    check(codes.every((c) => c === 143), `exit codes ${JSON.stringify(codes)}: every run should have driven and passed on its agent's 143`);
  } finally {
    await endAll(runs);
    sb.cleanup();
  }
}
