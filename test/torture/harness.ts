import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { seeded } from "../helpers/random.js";
import { CLI } from "../helpers/sandbox.js";

/** Quick: the counts `npm test` runs; full: `npm run torture`. */
export type Mode = "quick" | "full";

/** What one family gets: its own seeded randomness, its own scratch folder, its own time budget. */
export interface Context {
  readonly mode: Mode;
  readonly seed: number;
  readonly random: () => number;
  readonly scratch: string;
  /** Counts per mode: `count(3, 40)` is 3 in quick mode, 40 in full. */
  count(quick: number, full: number): number;
  /** Whether the family's time budget still allows another attempt. */
  timeLeft(): boolean;
}

/** One attack family: one row of the table. */
export interface Family {
  readonly name: string;
  /** Wall-clock budget per mode, ms: the family stops starting attempts when it runs out. */
  readonly budgetMs: { readonly quick: number; readonly full: number };
  run(context: Context, attempt: Attempt): Promise<void>;
}

/** Runs one attempt: it held when `body` returns, failed when it throws (the message is kept). */
export type Attempt = (label: string, body: () => Promise<void>) => Promise<void>;

export interface Row {
  readonly attack: string;
  readonly tried: number;
  readonly held: number;
  readonly failed: number;
  readonly seconds: number;
  /** The first failures, each with its label, for the report. */
  readonly failures: string[];
}

/** Runs a family with its seed and budget; never throws (an error outside an attempt is a failure). */
export async function runFamily(family: Family, mode: Mode, seed: number): Promise<Row> {
  const started = Date.now();
  const scratch = mkdtempSync(join(tmpdir(), `sessionpin-torture-${family.name.replace(/\W+/g, "-")}-`));
  const budget = family.budgetMs[mode];
  let tried = 0;
  let held = 0;
  const failures: string[] = [];
  const context: Context = {
    mode,
    seed,
    random: seeded(seed),
    scratch,
    count: (quick, full) => (mode === "quick" ? quick : full),
    timeLeft: () => Date.now() - started < budget,
  };
  const attempt: Attempt = async (label, body) => {
    tried++;
    try {
      await body();
      held++;
    } catch (error) {
      failures.push(`${label}: ${error instanceof Error ? error.message : String(error)}`);
    }
  };
  try {
    await family.run(context, attempt);
  } catch (error) {
    tried++;
    failures.push(`(family) ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
  return { attack: family.name, tried, held, failed: failures.length, seconds: (Date.now() - started) / 1000, failures };
}

/** The table `npm run torture` prints: attack | tried | held | failed. */
export function table(rows: readonly Row[]): string {
  const head = ["attack", "tried", "held", "failed", "seconds"];
  const body = rows.map((r) => [r.attack, String(r.tried), String(r.held), String(r.failed), r.seconds.toFixed(1)]);
  const widths = head.map((h, i) => Math.max(h.length, ...body.map((cells) => (cells[i] ?? "").length)));
  const line = (cells: readonly string[]): string => `| ${cells.map((c, i) => (i === 0 ? c.padEnd(widths[i] ?? 0) : c.padStart(widths[i] ?? 0))).join(" | ")} |`;
  return [line(head), `|${widths.map((w, i) => (i === 0 ? "-".repeat(w + 2) : `${"-".repeat(w + 1)}:`)).join("|")}|`, ...body.map(line)].join("\n");
}

/** Throws with `message` unless `condition` holds: the families' one assertion. */
export function check(condition: unknown, message: string): asserts condition {
  if (!condition) throw new Error(message);
}

export interface Finished {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly stdout: string;
  readonly stderr: string;
  readonly ms: number;
  /** Peak resident set, KiB: from the process itself at exit, or /proc just before a deadline kill. */
  readonly peakKiB: number | undefined;
  /** It was still running at the deadline and was killed. */
  readonly timedOut: boolean;
}

const PEAK = join(import.meta.dirname, "peak-rss.mjs");

/**
 * `sessionpin <args>` with pipes, killed at `deadlineMs`. The child reports its own peak RSS at
 * exit (a preloaded module), so a bound on memory can be checked without a wrapper program.
 */
export function sessionpin(args: readonly string[], options: { cwd: string; env?: NodeJS.ProcessEnv; deadlineMs: number; stdin?: string }): Promise<Finished> {
  const peakFile = join(options.cwd, `.peak-${process.hrtime.bigint()}`);
  const started = Date.now();
  const child = spawn(process.execPath, ["--import", PEAK, CLI, ...args], {
    cwd: options.cwd,
    env: { ...(options.env ?? process.env), TORTURE_PEAK_FILE: peakFile },
    stdio: ["pipe", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout.setEncoding("utf8").on("data", (s: string) => (stdout = (stdout + s).slice(-65536)));
  child.stderr.setEncoding("utf8").on("data", (s: string) => (stderr = (stderr + s).slice(-65536)));
  child.stdin.on("error", () => undefined);
  child.stdin.end(options.stdin ?? "");
  let timedOut = false;
  let peakAtDeadline: number | undefined;
  const timer = setTimeout(() => {
    timedOut = true;
    peakAtDeadline = procPeak(child.pid);
    child.kill("SIGKILL");
  }, options.deadlineMs);
  return new Promise((resolve) => {
    child.on("close", (code, signal) => {
      clearTimeout(timer);
      let peakKiB = peakAtDeadline;
      try {
        peakKiB ??= Number(readFileSync(peakFile, "utf8"));
        rmSync(peakFile, { force: true });
      } catch {
        // killed before it could say
      }
      resolve({ code, signal, stdout, stderr, ms: Date.now() - started, peakKiB, timedOut });
    });
  });
}

function procPeak(pid: number | undefined): number | undefined {
  try {
    const match = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
    return match ? Number(match[1]) : undefined;
  } catch {
    return undefined;
  }
}

/** A stack frame as Node prints one: what a user must never see. */
export const STACK = /^\s+at .+[(:]\d+/m;

/** Whether a process is still alive. */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** A random pick from `items`. */
export function pick<T>(random: () => number, items: readonly T[]): T {
  const item = items[Math.floor(random() * items.length)];
  if (item === undefined) throw new Error("pick from an empty list");
  return item;
}

/** `n` random bytes. */
export function randomBytes(random: () => number, n: number): Buffer {
  const bytes = Buffer.alloc(n);
  for (let i = 0; i < n; i++) bytes[i] = Math.floor(random() * 256);
  return bytes;
}

/** A random lowercase hex string of `n` digits (seeded, unlike crypto's). */
export function hex(random: () => number, n: number): string {
  let s = "";
  for (let i = 0; i < n; i++) s += Math.floor(random() * 16).toString(16);
  return s;
}

/** A random UUID-shaped string (seeded). */
export function uuid(random: () => number): string {
  const h = hex(random, 32);
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-7${h.slice(13, 16)}-8${h.slice(17, 20)}-${h.slice(20)}`;
}
