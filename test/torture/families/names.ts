import { spawn, spawnSync } from "node:child_process";
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { resolvePointerPath } from "../../../src/pointer/path.js";
import { CLI, Sandbox } from "../../helpers/sandbox.js";
import { cwdOf, waitUntil } from "../../e2e/support.js";
import { check, hex, pick, sessionpin, uuid, type Context, type Family } from "../harness.js";

/**
 * Family 11: names, bytes and impostors. Another user's script named `sessionpin` that claims to
 * run this agent here with a pointer of its choosing (as root, every process's environment can be
 * read); pointer and lock files whose names hold escape sequences, C1 controls and bidirectional
 * overrides; keys and message IDs that differ only in bytes that are no UTF-8. `pointer clear` and
 * `pointer show` never take an impostor's pointer; `pointer show`, `pointer clear`, `sessions` and
 * `doctor` print none of those characters (their --json neither, as \u escapes); keys and message IDs that differ in their bytes never collide.
 */
export const names: Family = {
  name: "11 names, bytes and impostors",
  budgetMs: { quick: 6_000, full: 120_000 },
  async run(context, attempt) {
    const total = context.count(3, 60);
    const kinds = [...(process.getuid?.() === 0 ? ["impostor" as const] : []), "escapes" as const, "bytes" as const];
    for (let i = 0; i < total && context.timeLeft(); i++) {
      const kind = context.mode === "quick" && i < kinds.length ? (kinds[i] ?? "escapes") : pick(context.random, kinds);
      if (kind === "impostor") await attempt(`another user's process named sessionpin (#${i})`, () => impostor(context));
      if (kind === "escapes") await attempt(`escape sequences and bidi controls in pointer and lock files (#${i})`, () => escapes(context));
      if (kind === "bytes") await attempt(`keys and message IDs that differ only in bytes that are no UTF-8 (#${i})`, () => bytes(context));
    }
  },
};

/** As root: user 65534 runs a script named sessionpin that claims a run of amp here, pointing at root's file. */
async function impostor(c: Context): Promise<void> {
  const sb = new Sandbox();
  // Somewhere user 65534 may read and run the script from.
  const bin = mkdtempSync(join(tmpdir(), "sessionpin-impostor-"));
  chmodSync(bin, 0o755);
  const script = join(bin, pick(c.random, ["sessionpin", "sessionpin.js"]));
  writeFileSync(script, "#!/bin/sh\nsleep 30\n", { mode: 0o755 });
  const victim = join(sb.dir, `precious-${hex(c.random, 6)}.json`);
  writeFileSync(victim, "root's file\n", { mode: 0o600 });
  const form = pick(c.random, ["--pointer", "--pointer=", "SESSIONPIN_POINTER", "shim exec", "AGENTAPI_STATE_FILE"] as const);
  const args = form === "--pointer" ? ["run", "--pointer", victim, "--", "amp"]
    : form === "--pointer=" ? ["run", `--pointer=${victim}`, "--", "amp"]
    : form === "shim exec" ? ["shim", "exec", "amp", "/usr/bin/amp"]
    : ["run", "--", "amp"];
  const env = form === "AGENTAPI_STATE_FILE" ? { AGENTAPI_STATE_FILE: join(bin, "state.json") } : form === "--pointer" || form === "--pointer=" ? {} : { SESSIONPIN_POINTER: victim };
  // Beside agentapi's state, the pointer is sessionpin-amp.json there: that is the victim then.
  const target = form === "AGENTAPI_STATE_FILE" ? join(bin, "sessionpin-amp.json") : victim;
  if (target !== victim) writeFileSync(target, "root's file\n", { mode: 0o600 });
  const child = spawn("setpriv", ["--reuid=65534", "--regid=65534", "--clear-groups", script, ...args], { cwd: sb.dir, env: { PATH: process.env["PATH"], HOME: "/nonexistent", ...env }, stdio: "ignore" });
  try {
    await waitUntil(() => {
      try {
        return readFileSync(`/proc/${child.pid}/cmdline`, "utf8").includes(args[0] ?? "run") || undefined;
      } catch {
        return undefined;
      }
    }, "the impostor to start", 5_000);
    for (const action of ["show", "clear"]) {
      const result = await sessionpin(["pointer", action, "--agent", "amp"], { cwd: sb.dir, env: sb.env, deadlineMs: 20_000 });
      check(!result.stdout.includes(target) && !result.stderr.includes(target), `pointer ${action} named the impostor's pointer: ${result.stderr.slice(0, 200)} ${result.stdout.slice(0, 200)}`);
      check(readFileSync(target, "utf8") === "root's file\n", `pointer ${action} moved or changed ${target}`);
    }
  } finally {
    child.kill("SIGKILL");
    rmSync(bin, { recursive: true, force: true });
    sb.cleanup();
  }
}

// What a terminal acts on or shows as other than it is.
const UNSAFE = /[\x00-\x09\x0b-\x1f\x7f-\x9f\u061c\u200b-\u200f\u2028-\u202e\u2066-\u2069\ufeff]/;
const HOSTILE = ["\x1b]0;owned\x07", "\x1b[2J\x1b[H", "\x9b31m", "\u202e", "\u2066", "\u200b", "\r", "\n", "\x07", "\x00", "\x1bP+q\x1b\\", "\u061c"];

function hostile(c: Context, base: string): string {
  let text = base;
  for (let i = 0; i < 1 + Math.floor(c.random() * 4); i++) {
    const at = Math.floor(c.random() * (text.length + 1));
    text = text.slice(0, at) + pick(c.random, HOSTILE) + text.slice(at);
  }
  return text;
}

async function escapes(c: Context): Promise<void> {
  const sb = new Sandbox();
  try {
    const cwd = cwdOf(sb);
    const pointer = resolvePointerPath({ env: sb.env, agent: "amp", cwd, home: sb.home });
    mkdirSync(join(pointer, ".."), { recursive: true, mode: 0o700 });
    const at = new Date().toISOString();
    const field = pick(c.random, ["id", "agent", "cwd", "history", "key", "rule"] as const);
    const value = hostile(c, field === "cwd" ? "/home/coder/project" : `T-${uuid(c.random)}`);
    writeFileSync(pointer, JSON.stringify({
      version: 1, agent: field === "agent" ? value : "amp", id: field === "id" ? value : `T-${uuid(c.random)}`, state: "confirmed",
      cwd: field === "cwd" ? value : cwd, capturedAt: at, ...(field === "key" ? { key: value } : {}), source: { rule: field === "rule" ? value : "result" },
      history: field === "history" ? [{ id: value, at, reason: hostile(c, "amp switched") }] : [],
    }), { mode: 0o600 });
    if (c.random() < 0.5) {
      // A lock another host holds (fresh): `pointer show` names its holder, host and time from the file.
      writeFileSync(`${pointer}.lock`, JSON.stringify({ pid: 4242, startedAt: hostile(c, at), host: hostile(c, "elsewhere") }), { mode: 0o600 });
      utimesSync(`${pointer}.lock`, new Date(), new Date());
    }
    const runs = [
      await sessionpin(["pointer", "show", "--pointer", pointer], { cwd: sb.dir, env: sb.env, deadlineMs: 20_000 }),
      await sessionpin(["sessions"], { cwd: sb.dir, env: sb.env, deadlineMs: 20_000 }),
      await sessionpin(["pointer", "show", "--agent", "amp"], { cwd: sb.dir, env: sb.env, deadlineMs: 20_000 }),
      await sessionpin(c.random() < 0.5 ? ["pointer", "show", "--json", "--pointer", pointer] : ["sessions", "--json"], { cwd: sb.dir, env: sb.env, deadlineMs: 20_000 }),
      await sessionpin(["doctor", "--pointer", pointer, "--", "amp"], { cwd: sb.dir, env: sb.env, deadlineMs: 20_000 }),
      await sessionpin(["pointer", "clear", "--pointer", pointer], { cwd: sb.dir, env: sb.env, deadlineMs: 20_000 }),
    ];
    for (const [i, run] of runs.entries()) {
      check(!UNSAFE.test(run.stdout) && !UNSAFE.test(run.stderr), `command ${i} printed a raw control or bidi character (${field}): ${JSON.stringify(run.stdout + run.stderr).slice(0, 400)}`);
    }
  } finally {
    sb.cleanup();
  }
}

/** Two byte strings Node decodes alike (U+FFFD for each byte that is no UTF-8), as printf octal escapes. */
function lookAlikes(c: Context): [string, string] {
  const base = hex(c.random, 6);
  const invalid = [0x80, 0x9f, 0xbf, 0xc0, 0xc1, 0xf5, 0xfe, 0xff];
  const a = pick(c.random, invalid);
  let b = pick(c.random, invalid);
  while (b === a) b = pick(c.random, invalid);
  const octal = (byte: number): string => `\\${byte.toString(8).padStart(3, "0")}`;
  return [`${base}${octal(a)}`, `${base}${octal(b)}`];
}

async function bytes(c: Context): Promise<void> {
  const sb = new Sandbox();
  try {
    const [a, b] = lookAlikes(c);
    const plan = (script: string): Record<string, unknown> => {
      const result = spawnSync("sh", ["-c", script, "sh", process.execPath, CLI], { cwd: sb.dir, env: sb.env, encoding: "utf8", timeout: 20_000 });
      check(result.status === 0, `plan exit ${result.status}: ${result.stderr.slice(0, 300)}`);
      return JSON.parse(result.stdout) as Record<string, unknown>;
    };
    const byFlag = (key: string): unknown => plan(`"$1" "$2" plan --key "$(printf '${key}')" -- amp`)["pointer"];
    const byEnv = (key: string): unknown => plan(`SESSIONPIN_KEY="$(printf '${key}')" exec "$1" "$2" plan -- amp`)["pointer"];
    const [pa, pb] = [byFlag(a), byFlag(b)];
    check(pa !== pb, `keys ${a} and ${b} share the pointer ${String(pa)}`);
    check(byEnv(a) === pa, `SESSIONPIN_KEY ${a} names another pointer than --key ${a}`);
    const sha = (id: string): unknown => (plan(`"$1" "$2" plan --prompt hi --message-id "$(printf '${id}')" -- amp`)["deliver"] as { sha256?: unknown } | null)?.sha256;
    check(sha(a) !== sha(b), `message IDs ${a} and ${b} count as one message`);
  } finally {
    sb.cleanup();
  }
}
