import { spawn } from "node:child_process";
import { constants, existsSync, statSync } from "node:fs";
import { access, lstat, open, unlink } from "node:fs/promises";
import { dirname, join } from "node:path";
import { uniqueHex } from "../digest.js";
import stripAnsi from "strip-ansi";
import { pluginNamed, pluginForCommand } from "../agents/registry.js";
import type { AgentPlugin } from "../agents/types.js";
import { ptyModule, type PtyModule } from "../pty/native.js";
import { resolveExecutable } from "../pty/which.js";
import { messageOf, reasonOf } from "../errors.js";
import { describeHolder, judgeHolder, readHolder, REMOTE_STALE_MS } from "../pointer/holder.js";
import type { LockInfo } from "../pointer/schema.js";
import { readLockFile } from "../pointer/lock.js";
import type { PointerRead } from "../pointer/store.js";
import type { Decision, UnpinnedPlan } from "../run/plan.js";
import { agentapiServers, agentOfSessionpin, runsSessionpin, type ProcessInfo } from "./agentapi.js";

export type CheckStatus = "ok" | "warn" | "fail" | "skip" | "info";

export interface Check {
  readonly name: string;
  readonly status: CheckStatus;
  readonly detail: string;
  /** Facts for scripts (`--json`). */
  readonly data?: Readonly<Record<string, unknown>>;
}

type Version = readonly [number, number, number];

/**
 * The oldest Node.js sessionpin runs on: package.json's `engines` says the same (a test holds
 * them together). undici 7 needs 20.18.1, @noble/hashes 2 needs 20.19.
 */
export const NODE_MIN: Version = [20, 19, 0];

/** NODE_MIN as an npm `engines` range. */
export const enginesRange = (): string => `>=${NODE_MIN.join(".")}`;

export function nodeCheck(version = process.versions.node): Check {
  const ok = compare(version.split(".").map(Number), NODE_MIN) >= 0;
  return { name: "node", status: ok ? "ok" : "fail", detail: `Node.js ${version}${ok ? "" : ` (sessionpin needs ${NODE_MIN[0]}.${NODE_MIN[1]}+)`}`, data: { version } };
}

function compare(a: readonly number[], b: readonly number[]): number {
  for (let i = 0; i < b.length; i++) {
    const d = (a[i] ?? 0) - (b[i] ?? 0);
    if (d !== 0) return d;
  }
  return 0;
}

/** node-pty loads and starts `true` in a PTY: what every `run` needs. */
export async function ptyCheck(env: NodeJS.ProcessEnv, cwd: string, timeoutMs: number): Promise<Check> {
  let pty: PtyModule;
  try {
    pty = ptyModule();
  } catch (error) {
    // Not installed, or no binary for this machine: the same line with the fix that run and demo print.
    return { name: "pty", status: "fail", detail: messageOf(error).replace(/^sessionpin: /, "") };
  }
  try {
    const child = pty.spawn("true", [], { cols: 80, rows: 24, cwd, env: { ...env } });
    const exit = await Promise.race([
      new Promise<number>((resolve) => child.onExit(({ exitCode }) => resolve(exitCode))),
      new Promise<undefined>((resolve) => setTimeout(() => resolve(undefined), timeoutMs).unref()),
    ]);
    if (exit === undefined) {
      child.kill("SIGKILL");
      return { name: "pty", status: "fail", detail: `node-pty started \`true\` but it did not exit within ${timeoutMs} ms` };
    }
    return exit === 0
      ? { name: "pty", status: "ok", detail: "node-pty started `true` in a PTY (exit 0)" }
      : { name: "pty", status: "fail", detail: `node-pty started \`true\` in a PTY, and it exited ${exit}` };
  } catch (error) {
    // Typically macOS's spawn-helper without its execute bit, or a PTY limit reached (/dev/pts full).
    return { name: "pty", status: "fail", detail: `node-pty cannot start a PTY: ${messageOf(error).split("\n", 1)[0] ?? ""}` };
  }
}

/** The agent on PATH, then its `--version`; stdin closed, so a TUI that ignores the flag cannot wait for input. */
export async function agentChecks(executable: string, env: NodeJS.ProcessEnv, cwd: string, timeoutMs: number): Promise<Check[]> {
  let path: string;
  try {
    path = resolveExecutable(executable, env, cwd);
  } catch (error) {
    return [{ name: "agent", status: "fail", detail: messageOf(error).replace(/^sessionpin: /, ""), data: { executable } }];
  }
  const found: Check = { name: "agent", status: "ok", detail: `${executable}: ${path}`, data: { executable, path } };
  const answer = await firstLine(path, ["--version"], env, cwd, timeoutMs);
  const version: Check = "line" in answer
    ? { name: "agent-version", status: "ok", detail: answer.line, data: { version: answer.line } }
    : { name: "agent-version", status: "warn", detail: `\`${executable} --version\`: ${answer.error}` };
  return [found, version];
}

/** The first non-empty output line of a command, or why there is none. Kills its whole process group on timeout. */
function firstLine(file: string, args: readonly string[], env: NodeJS.ProcessEnv, cwd: string, timeoutMs: number): Promise<{ line: string } | { error: string }> {
  return new Promise((resolve) => {
    const child = spawn(file, args, { cwd, env, stdio: ["ignore", "pipe", "pipe"], detached: true });
    let out = "";
    const collect = (chunk: Buffer): void => void (out.length < 4096 && (out += chunk.toString("utf8")));
    child.stdout.on("data", collect);
    child.stderr.on("data", collect);
    const timer = setTimeout(() => {
      try {
        process.kill(-(child.pid as number), "SIGKILL");
      } catch {
        // already gone
      }
      resolve({ error: `no answer within ${timeoutMs} ms` });
    }, timeoutMs);
    child.on("error", (error) => {
      clearTimeout(timer);
      resolve({ error: messageOf(error) });
    });
    let ended: { code: number | null; signal: NodeJS.Signals | null } | undefined;
    const finish = (): void => {
      if (ended === undefined) return;
      const { code, signal } = ended;
      // Some CLIs colour their version even into a pipe: the table and --json get the text only.
      const line = stripAnsi(out).split(/\r?\n/).map((l) => l.trim()).find(Boolean)?.slice(0, 160);
      if (code === 0 && line !== undefined) resolve({ line });
      else resolve({ error: code === 0 ? "printed nothing" : `exited ${code ?? signal}${line ? `: ${line}` : ""}` });
    };
    child.on("exit", (code, signal) => {
      clearTimeout(timer);
      ended = { code, signal };
      // Output may still be in the pipe; but a grandchild holding the pipe open must not keep us waiting.
      setTimeout(finish, 200).unref();
    });
    child.on("close", finish);
  });
}

export function pluginCheck(plugin: AgentPlugin | undefined, executable: string, userFiles: ReadonlyMap<AgentPlugin, string>): Check {
  if (plugin === undefined) {
    return { name: "plugin", status: "warn", detail: `no plugin for ${JSON.stringify(executable)}: sessionpin runs it transparently and pins nothing (--agent NAME picks one)` };
  }
  const source = userFiles.get(plugin) ?? "built-in";
  return { name: "plugin", status: "ok", detail: `${plugin.name} (${source})`, data: { plugin: plugin.name, source } };
}

/** The pointer's folder can take a new file: probed by creating and removing one, not by mode bits. */
export async function pointerDirCheck(pointerPath: string): Promise<Check> {
  const dir = dirname(pointerPath);
  const data = { dir };
  if (existsSync(dir)) {
    if (!statSync(dir).isDirectory()) return { name: "pointer-dir", status: "fail", detail: `${dir} is not a folder`, data };
    const probe = join(dir, `.sessionpin-doctor-${process.pid}-${uniqueHex()}`);
    try {
      await (await open(probe, "wx", 0o600)).close();
      await unlink(probe);
      return { name: "pointer-dir", status: "ok", detail: `${dir}: writable`, data };
    } catch (error) {
      return { name: "pointer-dir", status: "fail", detail: `${dir}: cannot create a file (${reasonOf(error)}): run would start the agent unpinned`, data };
    }
  }
  // sessionpin creates the missing folders (0700): the nearest existing one must let it.
  let parent = dirname(dir);
  while (!existsSync(parent) && dirname(parent) !== parent) parent = dirname(parent);
  if (!statSync(parent).isDirectory()) return { name: "pointer-dir", status: "fail", detail: `${dir}: cannot be created, ${parent} is not a folder`, data };
  try {
    await access(parent, constants.W_OK | constants.X_OK);
    return { name: "pointer-dir", status: "ok", detail: `${dir}: not there yet; created on the first pin (${parent} is writable)`, data };
  } catch (error) {
    return { name: "pointer-dir", status: "fail", detail: `${dir}: missing, and ${parent} is not writable (${reasonOf(error)})`, data };
  }
}

/**
 * What the next `run` would do with the pointer it finds (`decision`, by run's own steps:
 * run/next-start.ts), said of the pointer as `read`; no decision when no plugin pins the agent.
 */
export function pointerCheck(pointerPath: string, read: PointerRead, decision: Decision | UnpinnedPlan | undefined): Check {
  const data = { pointer: pointerPath, kind: read.kind };
  const p = read.kind === "ok" ? read.pointer : undefined;
  const facts = p === undefined ? data : { ...data, agent: p.agent, id: p.id, state: p.state, cwd: p.cwd, capturedAt: p.capturedAt, rule: p.source.rule };
  const what = p !== undefined
    ? `${p.agent} ${p.id} (${p.state}, rule ${p.source.rule}, captured ${p.capturedAt})`
    : read.kind === "missing" ? `none at ${pointerPath}` : pointerPath;
  if (decision === undefined) return { name: "pointer", status: "info", detail: `${what}: no plugin, so run neither resumes nor replaces it`, data: facts };
  switch (decision.mode) {
    case "unpinned":
      return { name: "pointer", status: "info", detail: `${what}: run neither resumes nor replaces it: ${decision.reason}`, data: facts };
    case "refused":
      return { name: "pointer", status: "fail", detail: `${what}: run refuses it (exit 3): ${decision.reason}`, data: facts };
    case "repeat":
      return { name: "pointer", status: "ok", detail: `${what}: ${decision.reason}; run starts nothing (exit 4)`, data: facts };
    case "warm":
      return { name: "pointer", status: "ok", detail: `${what}: the next start resumes it${p?.state === "provisional" ? ", with a fallback ready" : ""}`, data: facts };
    case "given":
      return { name: "pointer", status: "ok", detail: `${what}: ${decision.reason}`, data: facts };
    case "cold":
      if (decision.setsAside === undefined) return { name: "pointer", status: "ok", detail: `${what}: the next start is cold`, data: facts };
      return { name: "pointer", status: "warn", detail: `${what}: ${decision.reason}; the next start moves it aside and is cold`, data: facts };
  }
}

/** `<pointer>.lock`: free, held (a second run exits 75), or stale (the next run takes it over), judged as `run` judges it. */
export async function lockCheck(pointerPath: string): Promise<Check> {
  const path = `${pointerPath}.lock`;
  let found: Awaited<ReturnType<typeof readLockFile>>;
  try {
    found = await readLockFile(path);
  } catch (error) {
    return { name: "lock", status: "fail", detail: `${reasonOf(error)}: run would start the agent unpinned`, data: { path, held: false } };
  }
  if (found === undefined) return { name: "lock", status: "ok", detail: "free", data: { path, held: false } };
  const judged = judgeHolder(await readHolder(found.text), undefined, Date.now() - found.mtimeMs);
  if (!("pid" in judged.holder)) {
    return { name: "lock", status: "warn", detail: `${path} is unreadable (${judged.holder.unreadable}): the next run takes it over`, data: { path, held: false } };
  }
  const { pid, host, startedAt } = judged.holder;
  const who = describeHolder(judged.holder);
  if (judged.kind === "stale") {
    return { name: "lock", status: "ok", detail: `left by ${who}, which is gone: the next run takes it over`, data: { path, held: false, pid, host } };
  }
  const why = judged.why === "other-host" ? ` (another host: held while its run keeps the lock fresh; taken over once it has not for ${REMOTE_STALE_MS / 60_000} minutes)` : "";
  return { name: "lock", status: "info", detail: `held by ${who}${why}: a second run on this pointer exits 75`, data: { path, held: true, pid, host, startedAt } };
}

/** The live run a lock check found holding the lock, if any. */
export function lockHolder(check: Check): LockInfo | undefined {
  const data = check.data;
  if (data?.["held"] !== true) return undefined;
  return { pid: data["pid"] as number, host: data["host"] as string, startedAt: data["startedAt"] as string };
}

/** The AGENTAPI_* variables this process sees. */
export function agentapiEnvCheck(env: NodeJS.ProcessEnv): Check {
  const seen = Object.keys(env).filter((name) => name.startsWith("AGENTAPI_")).sort();
  if (seen.length === 0) return { name: "agentapi-env", status: "skip", detail: "no AGENTAPI_* variables: not started by agentapi or its Coder module" };
  const shown = seen.map((name) => `${name}=${shorten(env[name] ?? "", 60)}`);
  const beside = env["AGENTAPI_STATE_FILE"] ? `; the pointer goes beside AGENTAPI_STATE_FILE` : "";
  return { name: "agentapi-env", status: "info", detail: `${shown.join(", ")}${beside}`, data: Object.fromEntries(seen.map((name) => [name, env[name]])) };
}

/**
 * agentapi takes its per-agent screen handling from the first word of the command unless told
 * `--type`: behind sessionpin that word is `sessionpin`, so it would treat Amp or Claude as a
 * custom agent. Running agentapi servers are the evidence; without one, the environment is a hint.
 */
export function agentapiTypeCheck(env: NodeJS.ProcessEnv, processes: readonly ProcessInfo[]): Check {
  const servers = agentapiServers(processes).filter((s) => runsSessionpin(s.command));
  if (servers.length > 0) {
    const untyped = servers.filter((s) => s.type === undefined);
    const mismatched = servers.filter((s) => {
      const agent = agentOfSessionpin(s.command);
      const typed = s.type && pluginNamed(s.type);
      const actual = agent && pluginForCommand(agent);
      return typed && actual && typed !== actual;
    });
    const describe = (s: (typeof servers)[number]): string => `agentapi pid ${s.pid} (${s.command.slice(0, 6).join(" ")}${s.command.length > 6 ? " …" : ""})`;
    const data = { servers: servers.map((s) => ({ pid: s.pid, type: s.type ?? null, typeFrom: s.typeFrom ?? null, command: s.command })) };
    if (untyped.length > 0) {
      return { name: "agentapi-type", status: "fail", detail: `${untyped.map(describe).join("; ")} has no --type: it handles the agent as "custom"; start it as \`agentapi server --type <agent> -- sessionpin …\` or set AGENTAPI_TYPE`, data };
    }
    if (mismatched.length > 0) {
      return { name: "agentapi-type", status: "warn", detail: mismatched.map((s) => `${describe(s)}: --type ${s.type} does not match the agent ${agentOfSessionpin(s.command)}`).join("; "), data };
    }
    return { name: "agentapi-type", status: "ok", detail: servers.map((s) => `agentapi pid ${s.pid}: type ${s.type} (${s.typeFrom === "flag" ? "--type" : "AGENTAPI_TYPE"})`).join("; "), data };
  }
  if (env["AGENTAPI_TYPE"]) return { name: "agentapi-type", status: "ok", detail: `AGENTAPI_TYPE=${env["AGENTAPI_TYPE"]}` };
  if (Object.keys(env).some((name) => name.startsWith("AGENTAPI_"))) {
    return {
      name: "agentapi-type", status: "warn",
      detail: "AGENTAPI_* variables are set but AGENTAPI_TYPE is not: unless agentapi gets --type <agent>, it takes `sessionpin` for the agent and handles it as \"custom\"",
    };
  }
  return { name: "agentapi-type", status: "skip", detail: "no agentapi server runs sessionpin here" };
}

/** Where sessionpin writes: the log beside the pointer; recordings and traces only where asked. */
export async function locationChecks(logPath: string | undefined, pluginFolder: string | undefined, pluginCount: number): Promise<Check[]> {
  const checks: Check[] = [];
  if (logPath !== undefined) {
    const found = await lstat(logPath).catch(() => undefined);
    if (found !== undefined && !found.isFile()) {
      const what = found.isSymbolicLink() ? "a symbolic link" : "not a regular file";
      checks.push({ name: "log", status: "warn", detail: `${logPath} is ${what}: sessionpin will not write its log there`, data: { path: logPath, exists: true } });
    } else {
      checks.push({ name: "log", status: "info", detail: `${logPath}${found === undefined ? " (none yet)" : ` (${found.size} bytes)`}`, data: { path: logPath, exists: found !== undefined } });
    }
  }
  checks.push({ name: "recordings", status: "info", detail: "only where `run --record FILE.cast` and `run --trace FILE` say; none by default" });
  checks.push(pluginFolder === undefined
    ? { name: "plugins-dir", status: "info", detail: `none: no home folder and no XDG_CONFIG_HOME (${pluginCount} user plugin file(s) loaded)` }
    : { name: "plugins-dir", status: "info", detail: `${pluginFolder} (${pluginCount} user plugin file(s) loaded)`, data: { path: pluginFolder } });
  return checks;
}

function shorten(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}
