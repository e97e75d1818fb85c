/**
 * Helpers for the interop tests: the real agent CLIs installed by `npm ci --prefix interop`, a
 * sandbox whose PATH finds them (and not the fake agents of fixtures/agents), and the settings
 * that let each CLI run offline against a fake model API on 127.0.0.1.
 */
import { spawnSync } from "node:child_process";
import { afterEach, beforeEach, expect } from "vitest";
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { delimiter, join } from "node:path";
import type { PtyDriver } from "../../src/pty/driver.js";
import { type Cleanup, cli, cwdOf, QUIET, sleep, WAIT_MS } from "../e2e/support.js";
import { FAKE_AGENTS, ROOT, type Sandbox } from "../helpers/sandbox.js";

/** interop/, or the folder scripts/interop-latest.mjs installed the newest CLIs into (the drift alarm). */
export const INTEROP = process.env["SESSIONPIN_INTEROP_DIR"] ?? join(ROOT, "interop");
/** Where `npm ci --prefix interop` puts the real `claude`, `codex` and `amp`. */
export const REAL_BIN = join(INTEROP, "node_modules", ".bin");

/** The pinned versions, as interop/package.json names them. */
export const PINNED = (JSON.parse(readFileSync(join(INTEROP, "package.json"), "utf8")) as { dependencies: Record<string, string> }).dependencies;
export const pinned = (name: string): string => {
  const version = PINNED[name];
  if (version === undefined) throw new Error(`interop/package.json pins no ${name}`);
  return version;
};

export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** The host's PATH without the fake agents, behind the real CLIs. */
const realPath = (): string =>
  [REAL_BIN, ...(process.env["PATH"] ?? "").split(delimiter).filter((dir) => dir !== "" && dir !== FAKE_AGENTS && !dir.startsWith(join(ROOT, "fixtures")))].join(delimiter);

const sandboxDirs = new Set<string>();

/** A sandbox (temp HOME, created) whose PATH finds the real agent CLIs first and no fake ones. */
export function realSandbox(cleanup: Cleanup, extraEnv: NodeJS.ProcessEnv = {}): Sandbox {
  // The agents' argv in the log, whole (startsIn): hidden there unless asked for (src/log/argv.ts).
  const sb = cleanup.sandbox({ PATH: realPath(), SESSIONPIN_LOG_ARGV: "1", ...extraEnv });
  mkdirSync(sb.home, { recursive: true });
  sandboxDirs.add(sb.dir);
  return sb;
}

/**
 * Ends processes a real CLI left behind in a sandbox of this file, found by pid: those whose
 * command line names the sandbox folder (Codex's TUI starts `codex app-server --managed-daemon`
 * from $HOME/.codex/packages unless `daemon_auto_start` is off, and it outlives the TUI).
 * Returns their command lines, so a test can say that none was left.
 */
export function endStrays(): string[] {
  const found: Array<{ pid: number; cmdline: string }> = [];
  for (const name of readdirSync("/proc")) {
    const pid = Number(name);
    if (!Number.isInteger(pid) || pid === process.pid) continue;
    let cmdline: string;
    try {
      cmdline = readFileSync(`/proc/${pid}/cmdline`, "utf8").replace(/\0/g, " ").trim();
    } catch {
      continue; // gone, or not ours to read
    }
    if ([...sandboxDirs].some((dir) => cmdline.includes(dir))) found.push({ pid, cmdline });
  }
  for (const { pid } of found) {
    try {
      process.kill(pid, "SIGKILL");
    } catch {
      // already gone
    }
  }
  sandboxDirs.clear();
  return found.map((f) => f.cmdline);
}

/** `<cli> --version` with the sandbox's env (so the PATH lookup is the one the tests use). */
export function versionOf(sb: Sandbox, cli: string): string {
  const result = spawnSync(cli, ["--version"], { cwd: sb.dir, env: sb.env, encoding: "utf8", timeout: 30_000 });
  return `${result.stdout}${result.stderr}`.trim();
}

/** A TCP port on 127.0.0.1 that nothing listens on (bound once, then closed). */
export async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (address === null || typeof address === "string") throw new Error("no port");
  return address.port;
}

/** `sessionpin run` arguments on the sandbox's pointer, with a short prompt-quiet period. */
export function run(sb: Sandbox, options: readonly string[], command: readonly string[]): string[] {
  return ["run", "--pointer", sb.pointer, "--prompt-quiet", QUIET, ...options, "--", ...command];
}

/** The argv of every agent start sessionpin logged (`started pid N: [...]`), in order. */
export function startsIn(log: string): string[][] {
  return [...log.matchAll(/ started pid \d+: (\[.*\])$/gm)].map((m) => JSON.parse(m[1] ?? "[]") as string[]);
}

/** The output's lines that parse as JSON objects (stream-json / --json modes). */
export function jsonLines(text: string): Array<Record<string, unknown>> {
  const out: Array<Record<string, unknown>> = [];
  for (const line of text.split("\n")) {
    const start = line.indexOf("{");
    if (start < 0) continue;
    try {
      const value: unknown = JSON.parse(line.slice(start));
      if (typeof value === "object" && value !== null && !Array.isArray(value)) out.push(value as Record<string, unknown>);
    } catch {
      // a line the terminal wrapped or a non-JSON line
    }
  }
  return out;
}

/** What `sessionpin replay --json` makes of a recording: its exit status and its answer. */
export function replayOf(sb: Sandbox, file: string): { status: number | null; result: Record<string, unknown> | undefined } {
  const { status, stdout } = cli(sb, ["replay", "--json", file]);
  const line = stdout.trim().split("\n")[0] ?? "";
  return { status, result: line.startsWith("{") ? (JSON.parse(line) as Record<string, unknown>) : undefined };
}

/** The `agent/rule` of every line `sessionpin explain` reports as taken, in order. */
export function takenRules(sb: Sandbox, file: string): string[] {
  return [...cli(sb, ["explain", file]).stdout.matchAll(/\btaken\s+(\S+)/g)].map((m) => m[1] ?? "");
}

/** Waits until the screen has not changed for `quietMs` (agentapi's idle test: 2 s unchanged). */
export async function settled(driver: PtyDriver, quietMs = 2_000, timeoutMs = WAIT_MS * 2): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let seen = driver.output.length;
  let since = Date.now();
  while (Date.now() - since < quietMs) {
    if (Date.now() > deadline) throw new Error(`the screen did not settle within ${timeoutMs} ms; output:\n${driver.text}`);
    await sleep(100);
    if (driver.output.length !== seen) {
      seen = driver.output.length;
      since = Date.now();
    }
  }
}

/** A pattern for `text` on a TUI screen, where runs of spaces may be drawn as cursor moves. */
export const onScreen = (text: string): RegExp => new RegExp(text.split(/\s+/).map((w) => w.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")).join("\\s*"));

/** A driver's output as the program wrote it, escapes kept, CRLF made LF (a PTY does not wrap long JSON lines). */
export const rawText = (driver: PtyDriver): string => driver.output.toString("utf8").replace(/\r\n/g, "\n");

// ---------------------------------------------------------------------------------------------
// Claude Code

/**
 * Env for Claude Code against the fake Messages API. Print mode takes any ANTHROPIC_API_KEY; the
 * interactive TUI asks whether to trust a custom API key, so it gets ANTHROPIC_AUTH_TOKEN instead.
 * The DISABLE_* switches keep it from reaching for its vendor's other hosts.
 */
export function claudeEnv(baseUrl: string, auth: "api-key" | "auth-token"): NodeJS.ProcessEnv {
  return {
    ANTHROPIC_BASE_URL: baseUrl,
    ...(auth === "api-key" ? { ANTHROPIC_API_KEY: "sk-ant-interop-fake" } : { ANTHROPIC_AUTH_TOKEN: "interop-fake-token" }),
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
    DISABLE_AUTOUPDATER: "1",
    DISABLE_TELEMETRY: "1",
    DISABLE_ERROR_REPORTING: "1",
  };
}

/**
 * Settles Claude Code's first-run onboarding offline: without this file the TUI opens the theme
 * picker and login, which try to reach its vendor. `hasTrustDialogAccepted` skips the "do you
 * trust this folder" dialog for the sandbox's cwd.
 */
export function settleClaudeOnboarding(sb: Sandbox, version: string): void {
  const config = {
    hasCompletedOnboarding: true,
    lastOnboardingVersion: version,
    projects: { [cwdOf(sb)]: { hasTrustDialogAccepted: true } },
  };
  writeFileSync(join(sb.home, ".claude.json"), `${JSON.stringify(config, null, 2)}\n`);
}

// ---------------------------------------------------------------------------------------------
// Codex

/**
 * `$HOME/.codex/config.toml` with the fake Responses API as its model provider: no retries (so a
 * failure is quick), HTTP instead of WebSockets, no update check, no analytics, no background
 * daemon. OPENAI_API_KEY is the provider's `env_key`.
 */
export function writeCodexConfig(sb: Sandbox, baseUrl: string): void {
  const dir = join(sb.home, ".codex");
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    join(dir, "config.toml"),
    [
      `model = "gpt-interop-fake"`,
      `model_provider = "interop"`,
      `check_for_update_on_startup = false`,
      ``,
      `[analytics]`,
      `enabled = false`,
      ``,
      `[model_providers.interop]`,
      `name = "interop fake"`,
      `base_url = "${baseUrl}"`,
      `env_key = "OPENAI_API_KEY"`,
      `wire_api = "responses"`,
      `request_max_retries = 0`,
      `stream_max_retries = 0`,
      `supports_websockets = false`,
      ``,
      // 0.169's TUI otherwise starts a background `codex app-server --managed-daemon` that
      // outlives it, and waits ~5 s for it on every start.
      `[features]`,
      `daemon_auto_start = false`,
      ``,
    ].join("\n"),
  );
}

export const codexEnv: NodeJS.ProcessEnv = { OPENAI_API_KEY: "sk-interop-fake" };

/**
 * A fresh fake model API for every test (so each test's record holds only its own requests),
 * closed after it, and a check that the test left no process behind. Returns the current API.
 */
export function fakeApiPerTest<Api extends { close(): Promise<void> }>(cleanup: Cleanup, start: () => Promise<Api>): () => Api {
  let api: Api | undefined;
  beforeEach(async () => void (api = await start()));
  afterEach(async () => {
    await cleanup.run();
    await api?.close();
    expect(endStrays(), "processes left behind").toEqual([]);
  });
  return () => {
    if (api === undefined) throw new Error("the fake API starts before each test");
    return api;
  };
}
