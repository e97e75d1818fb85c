import { spawnSync } from "node:child_process";
import { closeSync, existsSync, mkdirSync, openSync, readdirSync, readFileSync, writeSync } from "node:fs";
import { join } from "node:path";
import { readPointer } from "../../../src/pointer/store.js";
import { CLI, Sandbox } from "../../helpers/sandbox.js";
import { exitOf } from "../../e2e/support.js";
import { check, pick, STACK, type Context, type Family } from "../harness.js";
import { ampRun, checkOneLine } from "./agent-run.js";

/**
 * Family 5: full disks and I/O errors. The pointer folder on a full tmpfs (when this machine lets
 * us mount one), the log, recording and trace on /dev/full, and a file-size limit (`ulimit -f`)
 * the log has already passed. The agent runs on, its exit code passes through, a pointer from
 * before stays valid, and sessionpin prints at most one line of its own.
 */
export const disk: Family = {
  name: "5 full disk and I/O errors",
  budgetMs: { quick: 8_000, full: 150_000 },
  async run(context, attempt) {
    const canMount = tryMount();
    const total = context.count(3, 60);
    for (let i = 0; i < total && context.timeLeft(); i++) {
      const kinds = [...(canMount ? ["full tmpfs"] : []), "/dev/full", "ulimit -f"] as const;
      // Quick mode: each kind once (the full tmpfs first), then random ones.
      const kind = context.mode === "quick" && i < kinds.length ? (kinds[i] ?? "/dev/full") : pick(context.random, kinds);
      await attempt(`${kind} (#${i})`, () => (kind === "full tmpfs" ? fullTmpfs(context) : kind === "/dev/full" ? devFull(context) : fileLimit(context)));
    }
  },
};

const code = (c: Context): number => 1 + Math.floor(c.random() * 100);

/** Whether tmpfs can be mounted here (root in a container that allows it). */
function tryMount(): boolean {
  const sb = new Sandbox();
  try {
    const ok = spawnSync("mount", ["-t", "tmpfs", "-o", "size=64k", "tmpfs", sb.dir], { stdio: "ignore" }).status === 0;
    if (ok) spawnSync("umount", [sb.dir], { stdio: "ignore" });
    return ok;
  } finally {
    sb.cleanup();
  }
}

/** Fills the file system holding `dir` until a write fails. */
function fill(dir: string): void {
  const fd = openSync(join(dir, "filler"), "w");
  const block = Buffer.alloc(4096, 1);
  try {
    for (;;) writeSync(fd, block);
  } catch {
    // ENOSPC: full
  } finally {
    closeSync(fd);
  }
  // Small files take what is left in the last blocks.
  for (let i = 0; i < 64; i++) {
    try {
      const small = openSync(join(dir, `crumb-${i}`), "w");
      writeSync(small, Buffer.alloc(64, 1));
      closeSync(small);
    } catch {
      break;
    }
  }
}

async function fullTmpfs(c: Context): Promise<void> {
  const sb = new Sandbox();
  const state = join(sb.dir, "state");
  mkdirSync(state, { recursive: true });
  check(spawnSync("mount", ["-t", "tmpfs", "-o", "size=256k,mode=0700", "tmpfs", state]).status === 0, "mount failed");
  try {
    // A first run pins a thread while there is room.
    const first = await ampRun(sb, ["--pointer", sb.pointer], 0);
    check(first.exitCode === 0, `first run exit ${first.exitCode}`);
    const before = await readPointer(sb.pointer);
    check(before.kind === "ok", "no pointer after the first run");
    const logElsewhere = c.random() < 0.5;
    const log = logElsewhere ? join(sb.dir, "elsewhere.log") : sb.log;
    // Then the disk fills; half the time the pointer is also cleared, so the run must write a new one.
    const cold = c.random() < 0.5;
    if (cold) spawnSync("sh", ["-c", `mv "$1" "$1.moved"`, "sh", sb.pointer]);
    fill(state);
    const n = code(c);
    const record = c.random() < 0.5 ? ["--record", join(state, "run.cast")] : [];
    const run = await ampRun(sb, ["--pointer", sb.pointer, "--log", log, ...record], n);
    check(run.exitCode === n, `exit ${run.exitCode}, expected the agent's ${n}`);
    // One line for the pointer, one for the recording when it is on the full disk too.
    checkOneLine(run.text, record.length > 0 ? 2 : 1);
    // The lock's and the pointer's temp files, made and then not written, are gone again.
    const left = readdirSync(state).filter((name) => name.endsWith(".tmp"));
    check(left.length === 0, `temp files left on the full disk: ${left.join(", ")}`);
    const after = await readPointer(sb.pointer);
    if (!cold) check(after.kind === "ok" && before.kind === "ok" && after.pointer.id === before.pointer.id, `the pointer from before did not survive: ${JSON.stringify(after).slice(0, 200)}`);
    else check(after.kind === "missing" || after.kind === "ok", `pointer ${after.kind}`);
    if (logElsewhere) {
      const text = existsSync(log) ? readFileSync(log, "utf8") : "";
      check(!STACK.test(text), `a stack trace in the log: ${text.slice(0, 500)}`);
      if (cold) check(/ENOSPC|no space/i.test(text), `the log does not say the disk is full: ${text.slice(-600)}`);
    }
  } finally {
    spawnSync("umount", ["-l", state]);
    sb.cleanup();
  }
}

async function devFull(c: Context): Promise<void> {
  const sb = new Sandbox();
  try {
    const target = pick(c.random, ["--log", "--record", "--trace"]);
    const extra = target === "--record" ? [pick(c.random, ["--record-mode=append", "--record-mode=overwrite", "--record-input"])] : [];
    const n = code(c);
    const run = await ampRun(sb, ["--pointer", sb.pointer, target, "/dev/full", ...extra], n);
    check(run.exitCode === n, `exit ${run.exitCode}, expected the agent's ${n}`);
    checkOneLine(run.text);
    check((await readPointer(sb.pointer)).kind === "ok", "no pointer pinned");
  } finally {
    sb.cleanup();
  }
}

async function fileLimit(c: Context): Promise<void> {
  const sb = new Sandbox();
  try {
    // Fake Amp's own files stay small; the log is past the limit before the run starts.
    mkdirSync(join(sb.dir, "state"), { recursive: true, mode: 0o700 });
    const fd = openSync(sb.log, "w", 0o600);
    writeSync(fd, Buffer.alloc(80 * 1024, "x"));
    closeSync(fd);
    const n = code(c);
    const record = c.random() < 0.5 ? ["--record", join(sb.dir, "state", "run.cast")] : [];
    const driver = sb.direct(["sh", "-c", 'ulimit -f 128; exec "$0" "$@"', process.execPath, CLI, "run", "--pointer", sb.pointer, "--prompt-quiet", "0.3", ...record, "--", "amp"]);
    await driver.waitFor(/Type a message/, 20_000);
    driver.sendMessage(`/exit ${n}`);
    const { exitCode, signal } = await exitOf(driver, 20_000);
    check(exitCode === n && signal === 0, `exit ${exitCode} signal ${signal}, expected the agent's ${n}`);
    checkOneLine(driver.text);
    check((await readPointer(sb.pointer)).kind === "ok", "no pointer pinned");
  } finally {
    sb.cleanup();
  }
}
