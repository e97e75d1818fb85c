import { execFileSync } from "node:child_process";
import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Sandbox } from "../../helpers/sandbox.js";
import { cwdOf, exitOf, sleep } from "../../e2e/support.js";
import { check, pick, randomBytes, STACK, type Context, type Family } from "../harness.js";
import { ampRun, checkAmpArgv, checkOneLine, killLeftover } from "./agent-run.js";

/**
 * Family 6: hostile user plugins. A text rule that backtracks catastrophically on the agent's
 * output must not freeze its terminal (every keystroke still echoes within a bound); malformed
 * plugin files (garbage, wrong types, a FIFO, /dev/zero, a folder) are reported and skipped; a
 * plugin shadowing a built-in with a grammar that admits anything, or a resume template that
 * puts the ID where an option goes, never puts an option-like ID into the agent's argv.
 */
export const plugins: Family = {
  name: "6 hostile user plugins",
  budgetMs: { quick: 10_000, full: 150_000 },
  async run(context, attempt) {
    const total = context.count(3, 80);
    for (let i = 0; i < total && context.timeLeft(); i++) {
      const kind = i < 3 ? (["backtracking", "malformed", "shadowing"] as const)[i] : pick(context.random, ["backtracking", "malformed", "shadowing"] as const);
      if (kind === "backtracking") await attempt(`catastrophic regex (#${i})`, () => backtracking(context));
      if (kind === "malformed") await attempt(`malformed plugin files (#${i})`, () => malformed(context));
      if (kind === "shadowing") await attempt(`a built-in shadowed, an option-shaped ID (#${i})`, () => shadowing(context));
    }
  },
};

/** Patterns that take exponential time on a run of `a`s that does not end as they want. */
const EVIL = [
  "x (?<id>(a+)+)$",
  "x (?<id>(a|a)*)$",
  "x (?<id>(a|aa)+)$",
  "x (?<id>(a*)*)b$",
  "x (?<id>(\\w+\\s?)*)$",
  "x (?<id>(a+)+)(?=c)",
  "x (?<id>(?:a+)+)\\1c",
  "(?<=x )(?<id>(a+)+)$",
];

/** A keystroke's echo must come back within this, whatever the rules are doing. */
const KEY_MS = 2_000;

async function backtracking(c: Context): Promise<void> {
  const sb = new Sandbox();
  try {
    const pattern = pick(c.random, EVIL);
    const plugin = join(sb.dir, "evil.json");
    writeFileSync(plugin, JSON.stringify({ name: "evil", names: ["echoer"], grammar: "[a-z]+", text: [{ name: "boom", pattern, state: "confirmed" }], resume: ["{args}", "--resume", "{id}"] }));
    // Lines of 25-40 `a`s then a `b` (2^n steps each for a backtracking engine), and one long line.
    const lines: string[] = [];
    for (let i = 0; i < 6; i++) lines.push(`x ${"a".repeat(25 + Math.floor(c.random() * 15))}b`);
    if (c.random() < 0.5) lines.push(`x ${"a".repeat(c.count(100_000, 1_000_000))}b`);
    const print = join(sb.dir, "print.txt");
    writeFileSync(print, lines.join("\r\n") + "\r\n");
    const code = 1 + Math.floor(c.random() * 100);
    const driver = sb.sessionpin(["run", "--pointer", sb.pointer, "--plugin", plugin, "--", "echoer"], { env: { ...sb.env, ECHOER_PRINT: print, ECHOER_EXIT: String(code) } });
    try {
      await driver.waitFor(/ready/, 20_000);
      for (let k = 0; k < 8; k++) {
        const key = String.fromCharCode(97 + Math.floor(c.random() * 26));
        const echo = `${key.charCodeAt(0).toString(16)};`;
        const before = driver.output.toString("latin1").split(echo).length;
        const sent = Date.now();
        driver.write(key);
        for (;;) {
          if (driver.output.toString("latin1").split(echo).length > before) break;
          check(Date.now() - sent < KEY_MS, `keystroke ${k} not echoed within ${KEY_MS} ms (pattern ${pattern})`);
          await sleep(10);
        }
      }
      driver.write("\x03");
      const { exitCode } = await exitOf(driver, 20_000);
      check(exitCode === code, `exit ${exitCode}, expected the agent's ${code}`);
      checkOneLine(driver.text);
      check(!STACK.test(sb.readLog()), `a stack trace in the log: ${sb.readLog().slice(0, 500)}`);
    } finally {
      killLeftover(driver);
    }
  } finally {
    sb.cleanup();
  }
}

async function malformed(c: Context): Promise<void> {
  const config = new Sandbox();
  const sb = new Sandbox({ XDG_CONFIG_HOME: join(config.dir, "config") });
  try {
    const dir = join(config.dir, "config", "sessionpin", "plugins");
    mkdirSync(dir, { recursive: true });
    const bodies: Array<() => void> = [
      () => writeFileSync(join(dir, "bytes.json"), randomBytes(c.random, 5000)),
      () => writeFileSync(join(dir, "types.json"), JSON.stringify({ name: 5, names: "amp", grammar: ["x"], resume: "{id}" })),
      () => writeFileSync(join(dir, "regex.json"), JSON.stringify({ name: "bad", names: ["bad"], grammar: "([", resume: ["{id}"] })),
      () => writeFileSync(join(dir, "nested.json"), `${"[".repeat(100_000)}${"]".repeat(100_000)}`),
      () => writeFileSync(join(dir, "huge.json"), JSON.stringify({ name: "huge", names: ["huge"], grammar: "h", resume: ["{id}"], rejected: Array.from({ length: 100_000 }, (_, i) => `r${i}`) })),
      () => writeFileSync(join(dir, "proto.json"), '{"__proto__":{"polluted":true},"name":"proto","names":["proto"],"grammar":"p","resume":["{id}"]}'),
      () => execFileSync("mkfifo", [join(dir, "fifo.json")]),
      () => symlinkSync("/dev/zero", join(dir, "zero.json")),
      () => mkdirSync(join(dir, "folder.json")),
      () => symlinkSync(join(config.dir, "nowhere"), join(dir, "dangling.json")),
    ];
    const chosen = new Set<number>();
    while (chosen.size < 3) chosen.add(Math.floor(c.random() * bodies.length));
    for (const i of chosen) bodies[i]?.();
    const code = 1 + Math.floor(c.random() * 100);
    const run = await ampRun(sb, ["--pointer", sb.pointer], code);
    check(run.exitCode === code, `exit ${run.exitCode}, expected the agent's ${code}`);
    checkOneLine(run.text);
    checkAmpArgv(sb);
    const log = sb.readLog();
    check(!STACK.test(log), `a stack trace in the log: ${log.slice(0, 500)}`);
    check(/plugin .*\.json/.test(log), `the log names no bad plugin file: ${log.slice(0, 500)}`);
  } finally {
    sb.cleanup();
    config.cleanup();
  }
}

async function shadowing(c: Context): Promise<void> {
  const sb = new Sandbox();
  try {
    // A plugin that replaces the built-in Amp, with a grammar that takes anything and a resume
    // template that puts the ID where an option goes.
    const resume = pick(c.random, [["{args}", "{id}"], ["{id}", "{args}"], ["threads", "continue", "{id}"], ["{args}", "--thread", "{id}"]]);
    const grammar = pick(c.random, [".+", "[^ ]+", "-.*", "[-a-z=]+", ".*"]);
    const plugin = join(sb.dir, "amp.json");
    writeFileSync(plugin, JSON.stringify({ name: "amp", names: ["amp"], grammar, json: [{ name: "any", field: "session_id", state: "confirmed" }], resume }));
    const id = pick(c.random, ["--dangerously-allow-all", "-x", "--mode=free", "-rf", "--settings-file=/etc/passwd"]);
    mkdirSync(join(sb.dir, "state"), { recursive: true, mode: 0o700 });
    const now = new Date().toISOString();
    writeFileSync(sb.pointer, JSON.stringify({ version: 1, agent: "amp", id, state: "confirmed", cwd: cwdOf(sb), capturedAt: now, confirmedAt: now, source: { rule: "any" }, history: [] }), { mode: 0o600 });
    const code = 1 + Math.floor(c.random() * 100);
    const run = await ampRun(sb, ["--pointer", sb.pointer, "--plugin", plugin], code);
    check(run.exitCode === code, `exit ${run.exitCode}, expected the agent's ${code}`);
    checkOneLine(run.text);
    for (const start of sb.events().filter((e) => e.event === "start")) {
      check(!start.argv.includes(id) && !start.argv.some((w) => w.startsWith(id)), `the option-shaped ID ${id} reached argv: ${JSON.stringify(start.argv)} (grammar ${grammar}, resume ${JSON.stringify(resume)})`);
    }
  } finally {
    sb.cleanup();
  }
}
