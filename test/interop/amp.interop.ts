/**
 * Real Amp CLI through sessionpin at agentapi's 67x1190. Amp needs its server for every thread
 * operation and there is no fake of it here: AMP_URL points at a closed port on 127.0.0.1, so
 * each run must get past Amp's argument parsing and fail on the network. That proves the argv
 * sessionpin builds is one the real CLI accepts, and lets sessionpin's fallback meet Amp's real
 * offline output.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { basename, dirname } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { Cleanup, cli, cwdOf, exitOf, newThreadId, pointerExists, WAIT_MS, writePointerByHand } from "../e2e/support.js";
import type { Sandbox } from "../helpers/sandbox.js";
import { LocalServer } from "./local-server.js";
import { oneShot } from "./headless.js";
import { closedPort, endStrays, pinned, realSandbox, run, startsIn, versionOf } from "./support.js";

const cleanup = new Cleanup();
afterEach(async () => {
  await cleanup.run();
  expect(endStrays(), "processes left behind").toEqual([]);
});
let ampUrl: string;
beforeEach(async () => void (ampUrl = `http://127.0.0.1:${await closedPort()}`));

const VERSION = pinned("@ampcode/cli");
/** Amp's own offline text (0.0.1790142911), after a red `Error: `. */
const OFFLINE = "Error: Cannot reach Amp servers. Are you offline?";

/** AMP_API_KEY: without one, `threads continue` starts an interactive login flow instead. */
const ampSandbox = (): Sandbox => realSandbox(cleanup, { AMP_URL: ampUrl, AMP_API_KEY: "sgamp_interop_fake" });

/** The real `amp <args>` in the same kind of PTY, for what it prints. */
async function ampDirect(sb: Sandbox, args: readonly string[]): Promise<{ exitCode: number; text: string }> {
  const driver = cleanup.driver(sb.direct(["amp", ...args]));
  const { exitCode } = await exitOf(driver, WAIT_MS * 2);
  return { exitCode, text: driver.text.trim() };
}

describe(`Amp ${VERSION}`, () => {
  it("is the pinned version, found on PATH", () => {
    expect(versionOf(ampSandbox(), "amp")).toMatch(new RegExp(`^${VERSION.replace(/[.]/g, "\\.")} \\(released `));
  });

  it("accepts the warm-start argv sessionpin builds: it fails on the network, where a bad option or ID fails on usage first", async () => {
    const sb = ampSandbox();
    const id = newThreadId();
    writePointerByHand(sb, { id });
    const plan = cli(sb, ["plan", "--pointer", sb.pointer, "--", "amp", "--mode", "smart"]);
    const argv = (JSON.parse(plan.stdout) as { argv: string[] }).argv;
    expect(argv).toEqual(["amp", "--mode", "smart", "threads", "continue", id]);

    // sessionpin's argv gets through Amp's parser and thread-ID check to the network.
    expect(await ampDirect(sb, argv.slice(1))).toEqual({ exitCode: 1, text: OFFLINE });
    // The same argv made wrong fails before any network: so the line above passed parsing.
    expect(await ampDirect(sb, ["--mode", "smart", "threads", "continue", "T-not-a-thread"])).toMatchObject({ exitCode: 1, text: expect.stringContaining("Error: Invalid thread URL or ID: T-not-a-thread") as unknown });
    expect(await ampDirect(sb, ["--mode", "smart", "--no-such-option", "threads", "continue", id])).toEqual({ exitCode: 1, text: "Error: error: unknown option '--no-such-option'" });
    // The up-front command of a cold start (`amp [flags] threads new`) gets as far.
    expect(await ampDirect(sb, ["--mode", "smart", "threads", "new"])).toEqual({ exitCode: 1, text: OFFLINE });

    // Stream mode: the warm argv stays in execute mode, with the new message after the command
    // (`threads continue <id> -x MSG`), and keeps --stream-json.
    const streamPlan = cli(sb, ["plan", "--pointer", sb.pointer, "--", "amp", "-x", "which word?", "--stream-json"]);
    const streamArgv = (JSON.parse(streamPlan.stdout) as { argv: string[] }).argv;
    expect(streamArgv).toEqual(["amp", "--stream-json", "threads", "continue", id, "-x", "which word?"]);
    expect(await ampDirect(sb, streamArgv.slice(1))).toEqual({ exitCode: 1, text: OFFLINE });
    // What a usage failure of --stream-json looks like: without -x, the top-level command refuses it
    // before any network. (For `threads continue`, 0.0.1790142911 checks the server first, so
    // offline that check is not reached: see the headless describe below.)
    expect(await ampDirect(sb, ["--stream-json"])).toMatchObject({ exitCode: 1, text: expect.stringContaining("Error: The --stream-json flag requires --execute mode") as unknown });
  });

  it("warm start offline: Amp's real offline error keeps the pointer (interactive and -x --stream-json)", async () => {
    const sb = ampSandbox();
    const id = newThreadId();
    writePointerByHand(sb, { id });

    const warm = cleanup.driver(sb.sessionpin(run(sb, ["--prompt", "remember the word zebra"], ["amp", "--mode", "smart"])));
    // Within the fallback window, before any turn, with a non-zero exit: only the transient
    // match ("Cannot reach Amp servers") keeps this from counting as a rejection.
    expect((await exitOf(warm, WAIT_MS * 2)).exitCode).toBe(1);
    expect(warm.text.trim()).toBe(OFFLINE);
    expect(startsIn(sb.readLog())).toEqual([["amp", "--mode", "smart", "threads", "continue", id]]);
    expect(sb.readLog()).not.toContain("typing the prompt");
    expect(sb.readPointer()).toMatchObject({ id, state: "confirmed", history: [] });
    expect(sb.asideFiles("rejected")).toEqual([]);

    const stream = cleanup.driver(sb.sessionpin(run(sb, [], ["amp", "-x", "which word?", "--stream-json"])));
    expect((await exitOf(stream, WAIT_MS * 2)).exitCode).toBe(1);
    expect(stream.text.trim()).toBe(OFFLINE);
    expect(startsIn(sb.readLog()).at(-1)).toEqual(["amp", "--stream-json", "threads", "continue", id, "-x", "which word?"]);
    expect(sb.readPointer()).toMatchObject({ id, state: "confirmed", history: [] });
    expect(sb.asideFiles("rejected")).toEqual([]);
  });

  it("warm start against a server that answers what Amp cannot read: `Unexpected error inside Amp CLI.` keeps the pointer", async () => {
    // Every call answered `{}` with 200: Amp gets past its connection check, then fails inside.
    // Nothing in that says the thread is unknown, so it must not cost the user the thread.
    const paths: string[] = [];
    const server = await LocalServer.start((req, res) => {
      paths.push(req.url ?? "");
      req.resume();
      req.on("end", () => res.writeHead(200, { "content-type": "application/json" }).end("{}"));
    });
    try {
      const sb = realSandbox(cleanup, { AMP_URL: server.origin, AMP_API_KEY: "sgamp_interop_fake" });
      const id = newThreadId();
      writePointerByHand(sb, { id });
      const warm = cleanup.driver(sb.sessionpin(run(sb, [], ["amp", "-x", "which word?", "--stream-json"])));
      expect((await exitOf(warm, WAIT_MS * 2)).exitCode).toBe(1);
      expect(warm.text).toContain("Error: Unexpected error inside Amp CLI.");
      expect(paths.some((path) => path.includes("/api/internal"))).toBe(true);
      expect(startsIn(sb.readLog())).toHaveLength(1);
      expect(sb.readPointer()).toMatchObject({ id, history: [] });
      expect(sb.asideFiles("rejected")).toEqual([]);
    } finally {
      await server.close();
    }
  });

  it("cold start offline: `threads new` fails, so sessionpin runs the command as given and pins nothing", async () => {
    const sb = ampSandbox();
    const cold = cleanup.driver(sb.sessionpin(run(sb, ["--prompt", "remember the word zebra"], ["amp", "--mode", "smart"])));
    expect((await exitOf(cold, WAIT_MS * 2)).exitCode).toBe(1);
    const log = sb.readLog();
    expect(log).toContain(`\`amp --mode smart threads new\` failed (exit 1): ${OFFLINE}; running the command as given, nothing can be pinned up front`);
    expect(startsIn(log)).toEqual([["amp", "--mode", "smart"]]);
    // Amp's TUI comes up, then gives up on the server with another text than `threads` does.
    expect(cold.text).toContain(`Error: Couldn't connect to the Amp server at ${ampUrl}.`);
    expect(pointerExists(sb)).toBe(false);

    const sb2 = ampSandbox();
    const stream = cleanup.driver(sb2.sessionpin(run(sb2, [], ["amp", "-x", "remember the word zebra", "--stream-json"])));
    expect((await exitOf(stream, WAIT_MS * 2)).exitCode).toBe(1);
    expect(startsIn(sb2.readLog())).toEqual([["amp", "-x", "remember the word zebra", "--stream-json"]]);
    expect(stream.text.trim()).toBe(`Error: Couldn't connect to the Amp server at ${ampUrl}.\n\nRun \`pnpm dev\` to start the local server, then try again.`);
    expect(pointerExists(sb2)).toBe(false);
  });
});

/**
 * Amp's turns go over a WebSocket to its thread service, which cannot exist offline: no turn, so
 * no conversation to continue. What can be proven against the real CLI is the argv a keyed
 * one-shot call builds for a pinned thread, `amp [flags] threads continue <id> -x MSG
 * --stream-json`, run the way a CI job or a chat bridge runs it (no TTY, stdin closed, bounded):
 * Amp gets past its parser and thread-ID check to the network, and that failure keeps the pointer.
 */
describe(`Amp ${VERSION} headless conversations, one per key`, () => {
  const BOUND_MS = WAIT_MS * 4;
  const STREAM = ["--stream-json"];
  /**
   * One call; its error text. On pipes (no terminal: sessionpin runs Amp on pipes since issue 41)
   * 0.0.1790142911 writes its errors plain, to stderr, and nothing to stdout; in a PTY it coloured
   * them and ended with the kitty keyboard protocol's resets (`ESC[=0u ESC[<u`).
   */
  const call = async (sb: Sandbox, key: string, message: string) => {
    const result = await oneShot(sb, key, ["amp", "-x", message, ...STREAM], { boundMs: BOUND_MS });
    expect(result.stdout).toBe("");
    return { ...result, text: result.stderr.trim() };
  };

  /** The default pointer path of a key in the sandbox's folder, as `plan` names it. */
  const pointerOf = (sb: Sandbox, key: string): string =>
    (JSON.parse(cli(sb, ["plan", "--key", key, "--", "amp", "-x", "hello", ...STREAM]).stdout) as { pointer: string }).pointer;
  const logOf = (pointer: string): string => (existsSync(pointer.replace(/\.json$/, ".log")) ? readFileSync(pointer.replace(/\.json$/, ".log"), "utf8") : "");
  const asideOf = (pointer: string): string[] => readdirSync(dirname(pointer)).filter((name) => name.startsWith(basename(pointer, ".json")) && name.includes(".rejected-"));

  it("a keyed `amp -x MSG --stream-json` on a pinned thread runs `threads continue <id> -x MSG --stream-json`, which the real CLI takes to the network; the offline failure keeps the pointer; two keys stay apart", async () => {
    const sb = ampSandbox();
    const times: number[] = [];

    // Cold, offline: Amp cannot create a thread, so nothing is pinned for the key.
    const cold = await call(sb, "thread-1", "remember the word zebra");
    times.push(cold.ms);
    expect(cold.code).toBe(1);
    expect(cold.text).toContain(`Error: Couldn't connect to the Amp server at ${ampUrl}.`);
    const one = pointerOf(sb, "thread-1");
    expect(existsSync(one)).toBe(false);

    // A thread pinned for the key by an earlier (online) run.
    const id = newThreadId();
    mkdirSync(dirname(one), { recursive: true, mode: 0o700 });
    const pinnedThread = { version: 1, agent: "amp", id, state: "confirmed", cwd: cwdOf(sb), capturedAt: "2026-01-02T03:04:05.000Z", confirmedAt: "2026-01-02T03:04:05.000Z", source: { rule: "result" }, key: "thread-1", history: [] };
    writeFileSync(one, `${JSON.stringify(pinnedThread, null, 2)}\n`, { mode: 0o600 });
    const before = readFileSync(one, "utf8");

    for (const message of ["remember the word yak", "which word?"]) {
      const warm = await call(sb, "thread-1", message);
      times.push(warm.ms);
      // The follow-up in execute mode, after the command; Amp's parser and thread-ID check pass
      // (an unknown option or a bad ID fails before the network, see above) and it fails on the
      // network. 0.0.1790142911 checks the server before it checks that `--stream-json` has `-x`
      // on `threads continue`, so offline that one check is not reached: the exact argv is.
      expect(startsIn(logOf(one)).at(-1)).toEqual(["amp", ...STREAM, "threads", "continue", id, "-x", message]);
      expect(warm.code).toBe(1);
      expect(warm.text).toBe(OFFLINE);
      expect(warm.text).not.toMatch(/requires --execute mode|unknown option|Invalid thread URL or ID/);
      // Transient: the pointer is kept as it was (no message recorded: no turn was taken), nothing set aside.
      expect(readFileSync(one, "utf8")).toBe(before);
      expect(asideOf(one)).toEqual([]);
    }
    // No turn was taken, so the message is not "had": the same call again is delivered again, not a repeat.
    const retried = await call(sb, "thread-1", "which word?");
    times.push(retried.ms);
    expect(retried.code).toBe(1);
    expect(startsIn(logOf(one))).toHaveLength(4);
    expect(readFileSync(one, "utf8")).toBe(before);

    // A second key in the same folder: its own pointer, which this offline cold start leaves empty;
    // the first key's thread is untouched.
    const other = await call(sb, "thread-2", "which word?");
    times.push(other.ms);
    expect(other.code).toBe(1);
    const two = pointerOf(sb, "thread-2");
    expect(two).not.toBe(one);
    expect(startsIn(logOf(two))).toEqual([["amp", "-x", "which word?", ...STREAM]]);
    expect(existsSync(two)).toBe(false);
    const listed = JSON.parse(cli(sb, ["sessions", "--json"]).stdout) as Array<{ key: string | null; id: string | null }>;
    expect(listed.map((s) => [s.key, s.id])).toEqual([["thread-1", id]]);
    console.log(`amp one-shot calls (ms): ${times.join(", ")}`);
  });
});
