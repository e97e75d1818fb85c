import { execFileSync, spawn } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { createHash } from "node:crypto";
import { delimiter, join } from "node:path";
import { CLI, Sandbox } from "../../helpers/sandbox.js";
import { check, hex, pick, randomBytes, sessionpin, STACK, uuid, type Context, type Family } from "../harness.js";

/**
 * Family 9: hostile agent stores, the files sessionpin reads of the agent's own before and while it
 * runs. Gemini's projects.json (read to find the project's chats folder), Claude's project folder
 * and pid file, OpenCode's log and Codex's rollout folders are made FIFOs, links to /dev/zero or to
 * a FIFO, folders, huge files, link loops and dozens of links to `.`. `plan` must answer and `run`
 * must start the agent and end with it within a deadline, in bounded memory; a SIGTERM ends a run;
 * nothing named in a FIFO or a link is pinned; the agent's output reaches the terminal.
 */
export const stores: Family = {
  name: "9 hostile agent stores",
  budgetMs: { quick: 12_000, full: 200_000 },
  async run(context, attempt) {
    const total = context.count(12, 160);
    for (let i = 0; i < total && context.timeLeft(); i++) {
      // The cases first, once each; then random ones.
      const [kind, forced] = FIRST[i] ?? [pick(context.random, KINDS), undefined];
      const sb = new Sandbox();
      try {
        if (kind === "gemini-plan") await attempt(`plan -- gemini, projects.json ${geminiRegistry(context, sb, forced)} (#${i})`, () => geminiPlan(context, sb));
        if (kind === "gemini-run") await attempt(`run -- gemini, projects.json ${geminiRegistry(context, sb, forced)} (#${i})`, () => agentRun(context, sb, "gemini", "sleep 0.6"));
        if (kind === "gemini-sigterm") await attempt(`SIGTERM to run -- gemini, projects.json a FIFO (#${i})`, () => geminiSigterm(sb));
        if (kind === "claude-run") {
          const attack = CLAUDE_ATTACKS.find((a) => a === forced) ?? pick(context.random, CLAUDE_ATTACKS);
          await attempt(`run -- claude, ${attack} in its store while it runs (#${i})`, () => claudeRun(context, sb, attack));
        }
        if (kind === "codex-plan") await attempt(`plan -- codex, ${codexStore(context, sb, forced)} (#${i})`, () => codexPlan(context, sb));
        if (kind === "opencode-run") await attempt(`run -- opencode, its log ${opencodeLog(context, sb, forced)} (#${i})`, () => agentRun(context, sb, "opencode", "sleep 1.2"));
      } finally {
        sb.cleanup();
      }
    }
  },
};

const KINDS = ["gemini-plan", "gemini-run", "gemini-sigterm", "claude-run", "codex-plan", "opencode-run"] as const;
const FIRST: ReadonlyArray<readonly [(typeof KINDS)[number], string | undefined]> = [
  ["gemini-plan", "a FIFO"], ["gemini-plan", "a link to /dev/zero"], ["gemini-run", "a FIFO"], ["gemini-sigterm", undefined],
  ["claude-run", "a FIFO transcript"], ["codex-plan", "40 links to ."], ["opencode-run", "a FIFO"],
];

const DEADLINE_MS = 15_000;
const PEAK_MIB = 200;

/** An agent named `name` that prints, does `body` and exits with `code` (put before the fake agents on PATH). */
function agent(sb: Sandbox, name: string, body: string, code: number): NodeJS.ProcessEnv {
  const bin = join(sb.dir, "bin");
  mkdirSync(bin, { recursive: true });
  writeFileSync(join(bin, name), `#!/bin/sh\necho "fake ${name} up"\n${body}\necho "fake ${name} done"\nexit ${code}\n`);
  chmodSync(join(bin, name), 0o755);
  return { ...sb.env, PATH: `${bin}${delimiter}${sb.env["PATH"] ?? ""}` };
}

/** A pointer to `id` for `agent` in the sandbox's folder, where `plan` and `run` look for it by default. */
function pointerFor(sb: Sandbox, agentName: string, id: string): void {
  const path = join(sb.env["XDG_STATE_HOME"] ?? "", "sessionpin", agentName, `${createHash("sha256").update(sb.dir).digest("hex").slice(0, 16)}.json`);
  mkdirSync(join(path, ".."), { recursive: true });
  const at = new Date().toISOString();
  writeFileSync(path, JSON.stringify({ version: 1, agent: agentName, id, state: "confirmed", cwd: sb.dir, capturedAt: at, source: { rule: "torture" }, history: [] }));
}

/** Puts one hostile thing at `path` (`forced`, else one of `kinds`); says which. */
function hostile(random: () => number, path: string, kinds: readonly string[], forced?: string): string {
  mkdirSync(join(path, ".."), { recursive: true });
  const kind = forced ?? pick(random, kinds);
  if (kind === "a FIFO") execFileSync("mkfifo", [path]);
  if (kind === "a link to /dev/zero") symlinkSync("/dev/zero", path);
  if (kind === "a link to a FIFO") {
    execFileSync("mkfifo", [`${path}.fifo`]);
    symlinkSync(`${path}.fifo`, path);
  }
  if (kind === "a folder") mkdirSync(path);
  if (kind === "a dangling link") symlinkSync(join(path, "..", "nowhere", hex(random, 6)), path);
  if (kind === "a link loop") {
    symlinkSync(`${path}.b`, path);
    symlinkSync(path, `${path}.b`);
  }
  if (kind === "random bytes") writeFileSync(path, randomBytes(random, 1 + Math.floor(random() * 100_000)));
  if (kind === "a 64 MB file") writeFileSync(path, Buffer.alloc(64 * 1024 * 1024, 0x20));
  return kind;
}

const FILE_ATTACKS = ["a FIFO", "a link to /dev/zero", "a link to a FIFO", "a folder", "a dangling link", "a link loop", "random bytes", "a 64 MB file"];

/** What every command here must do: end by the deadline, in bounded memory, without a stack trace. */
function checkEnded(result: Awaited<ReturnType<typeof sessionpin>>, what: string): void {
  check(!result.timedOut, `${what} still running after ${DEADLINE_MS} ms (peak ${Math.round((result.peakKiB ?? 0) / 1024)} MiB)`);
  check(result.peakKiB === undefined || result.peakKiB < PEAK_MIB * 1024, `${what}: peak RSS ${Math.round((result.peakKiB ?? 0) / 1024)} MiB, bound ${PEAK_MIB} MiB`);
  check(!STACK.test(result.stderr) && !STACK.test(result.stdout), `${what}: a stack trace: ${result.stderr.slice(0, 600)}`);
}

function geminiRegistry(c: Context, sb: Sandbox, forced: string | undefined): string {
  return hostile(c.random, join(sb.home, ".gemini", "projects.json"), FILE_ATTACKS, forced);
}

async function geminiPlan(c: Context, sb: Sandbox): Promise<void> {
  pointerFor(sb, "gemini", uuid(c.random));
  const result = await sessionpin(["plan", "--", "gemini"], { cwd: sb.dir, env: sb.env, deadlineMs: DEADLINE_MS });
  checkEnded(result, "plan");
  check(result.code === 0, `plan exit ${result.code}: ${result.stderr.slice(0, 300)}`);
  const mode = (JSON.parse(result.stdout) as { mode?: unknown }).mode;
  check(mode === "warm" || mode === "cold", `plan mode ${String(mode)}`);
}

/** `run -- <name>` of a fake agent that runs `script` and exits with a random code: its output and code come through. */
async function agentRun(c: Context, sb: Sandbox, name: string, script: string): Promise<void> {
  const code = 1 + Math.floor(c.random() * 100);
  const env = agent(sb, name, script, code);
  const result = await sessionpin(["run", "--", name], { cwd: sb.dir, env, deadlineMs: DEADLINE_MS });
  checkEnded(result, "run");
  check(result.stdout.includes(`fake ${name} done`), `the agent's output did not come through: ${result.stdout.slice(0, 300)}`);
  check(result.code === code, `exit ${result.code}, the agent's was ${code}`);
}

/** A run whose agent has started is asked to stop: it ends, with the agent, within 3 s. */
async function geminiSigterm(sb: Sandbox): Promise<void> {
  hostile(() => 0, join(sb.home, ".gemini", "projects.json"), ["a FIFO"]);
  const marker = join(sb.dir, "started");
  const env = agent(sb, "gemini", `touch '${marker}'\nexec sleep 30`, 0);
  const child = spawn(process.execPath, [CLI, "run", "--", "gemini"], { cwd: sb.dir, env, stdio: ["pipe", "ignore", "ignore"] });
  const exited = new Promise<number | null>((resolve) => child.on("exit", (code, signal) => resolve(code ?? (signal === null ? null : 128))));
  try {
    const until = Date.now() + 8_000;
    while (!existsSync(marker) && Date.now() < until) await new Promise((resolve) => setTimeout(resolve, 50));
    check(existsSync(marker), "the agent never started");
    child.kill("SIGTERM");
    const code = await Promise.race([exited, new Promise<"late">((resolve) => setTimeout(() => resolve("late"), 3_000))]);
    check(code !== "late", "still running 3 s after SIGTERM");
  } finally {
    child.kill("SIGKILL");
  }
}

const CLAUDE_ATTACKS = ["a FIFO transcript", "a transcript linked to /dev/zero", "a transcript linked to another folder's", "a FIFO pid file", "a folder of 20,000 transcripts"] as const;

/**
 * The agent, while it runs, puts `attack` in its own project folder (or its pid file), then prints
 * for a second (the watch looks every 500 ms) and exits: its output and exit code come through,
 * and the hostile entry's ID is never pinned.
 */
async function claudeRun(c: Context, sb: Sandbox, attack: (typeof CLAUDE_ATTACKS)[number]): Promise<void> {
  const project = join(sb.home, ".claude", "projects", sb.dir.replace(/[^A-Za-z0-9]/g, "-"));
  mkdirSync(project, { recursive: true });
  mkdirSync(join(sb.home, ".claude", "sessions"), { recursive: true });
  const id = uuid(c.random);
  const entry = join(project, `${id}.jsonl`);
  const other = join(sb.dir, "other.jsonl");
  writeFileSync(other, '{"type":"user"}\n');
  if (attack === "a folder of 20,000 transcripts") for (let n = 0; n < c.count(2_000, 20_000); n++) writeFileSync(join(project, `${uuid(c.random)}.jsonl`), "{}\n");
  const make = {
    "a FIFO transcript": `mkfifo '${entry}'`,
    "a transcript linked to /dev/zero": `ln -s /dev/zero '${entry}'`,
    "a transcript linked to another folder's": `ln -s '${other}' '${entry}'`,
    "a FIFO pid file": `mkfifo "${join(sb.home, ".claude", "sessions")}/$$.json"`,
    "a folder of 20,000 transcripts": `echo '{}' > '${entry}'`,
  }[attack] ?? "";
  const code = 1 + Math.floor(c.random() * 100);
  const env = agent(sb, "claude", `${make}\nfor i in 1 2 3 4 5; do echo tick $i; sleep 0.25; done`, code);
  const result = await sessionpin(["run", "--", "claude"], { cwd: sb.dir, env, deadlineMs: DEADLINE_MS });
  checkEnded(result, "run");
  check(result.stdout.includes("tick 5") && result.stdout.includes("fake claude done"), `the agent's output did not come through: ${result.stdout.slice(0, 300)}`);
  check(result.code === code, `exit ${result.code}, the agent's was ${code}`);
  const pointers = join(sb.env["XDG_STATE_HOME"] ?? "", "sessionpin", "claude");
  const pinned = existsSync(pointers) ? readdirSync(pointers).filter((name) => name.endsWith(".json") && readFileSync(join(pointers, name), "utf8").includes(id)) : [];
  // A real transcript the agent wrote (the last attack) may be pinned; a FIFO or a link, never.
  if (attack !== "a folder of 20,000 transcripts") check(pinned.length === 0, `the hostile entry's ID was pinned in ${pinned.join(", ")}`);
}

const CODEX_ATTACKS = ["40 links to .", "a link loop", "a link to /", "folders 60 deep", "3,000 empty day folders", "a FIFO and a /dev/zero link named like rollouts"] as const;

function codexStore(c: Context, sb: Sandbox, forced: string | undefined): string {
  const root = join(sb.home, ".codex", "sessions");
  const day = join(root, "2026", "03", "04");
  mkdirSync(day, { recursive: true });
  writeFileSync(join(day, `rollout-2026-03-04T10-00-00-${uuid(c.random)}.jsonl`), "{}\n");
  const attack = forced ?? pick(c.random, CODEX_ATTACKS);
  if (attack === "40 links to .") for (let n = 0; n < 40; n++) symlinkSync(".", join(root, `l${n}`));
  if (attack === "a link loop") {
    symlinkSync(join(root, "b"), join(root, "a"));
    symlinkSync(join(root, "a"), join(root, "b"));
  }
  if (attack === "a link to /") symlinkSync("/", join(root, "2025"));
  if (attack === "folders 60 deep") mkdirSync(join(root, ...Array.from({ length: 60 }, () => "d")), { recursive: true });
  if (attack === "3,000 empty day folders") for (let n = 0; n < 3_000; n++) mkdirSync(join(root, "2024", String(n % 12).padStart(2, "0"), String(n).padStart(4, "0")), { recursive: true });
  if (attack === "a FIFO and a /dev/zero link named like rollouts") {
    execFileSync("mkfifo", [join(day, `rollout-2026-03-04T11-00-00-${uuid(c.random)}.jsonl`)]);
    symlinkSync("/dev/zero", join(day, `rollout-2026-03-04T12-00-00-${uuid(c.random)}.jsonl`));
  }
  return attack;
}

/** The pointer's session (a v4 ID: no date in it) is searched for; links are never followed, so it is never called gone past one. */
async function codexPlan(c: Context, sb: Sandbox): Promise<void> {
  const id = `${hex(c.random, 8)}-${hex(c.random, 4)}-4${hex(c.random, 3)}-8${hex(c.random, 3)}-${hex(c.random, 12)}`;
  pointerFor(sb, "codex", id);
  const linked = readdirHasLinks(join(sb.home, ".codex", "sessions"));
  const result = await sessionpin(["plan", "--", "codex"], { cwd: sb.dir, env: sb.env, deadlineMs: DEADLINE_MS });
  checkEnded(result, "plan");
  check(result.code === 0, `plan exit ${result.code}: ${result.stderr.slice(0, 300)}`);
  const mode = (JSON.parse(result.stdout) as { mode?: unknown }).mode;
  check(mode === (linked ? "warm" : "cold"), `plan mode ${String(mode)}${linked ? ": a session behind a link not followed was called gone" : ""}`);
}

function readdirHasLinks(root: string): boolean {
  return execFileSync("find", [root, "-maxdepth", "1", "-type", "l"], { encoding: "utf8" }).trim() !== "";
}

function opencodeLog(c: Context, sb: Sandbox, forced: string | undefined): string {
  return hostile(c.random, join(sb.home, ".local", "share", "opencode", "log", "opencode.log"), ["a FIFO", "a link to /dev/zero", "a link to a FIFO", "a folder", "a link loop"], forced);
}
