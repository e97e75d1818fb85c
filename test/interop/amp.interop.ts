/**
 * Real Amp CLI through sessionpin at agentapi's 67x1190. Amp needs its server for every thread
 * operation and there is no fake of it here: AMP_URL points at a closed port on 127.0.0.1, so
 * each run must get past Amp's argument parsing and fail on the network. That proves the argv
 * sessionpin builds is one the real CLI accepts, and lets sessionpin's fallback meet Amp's real
 * offline output.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { Cleanup, cli, exitOf, newThreadId, pointerExists, WAIT_MS, writePointerByHand } from "../e2e/support.js";
import type { Sandbox } from "../helpers/sandbox.js";
import { LocalServer } from "./local-server.js";
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

    // Stream mode: the warm argv keeps --stream-json and drops -x and its message.
    const streamPlan = cli(sb, ["plan", "--pointer", sb.pointer, "--", "amp", "-x", "which word?", "--stream-json"]);
    const streamArgv = (JSON.parse(streamPlan.stdout) as { argv: string[] }).argv;
    expect(streamArgv).toEqual(["amp", "--stream-json", "threads", "continue", id]);
    expect(await ampDirect(sb, streamArgv.slice(1))).toEqual({ exitCode: 1, text: OFFLINE });
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
    expect(startsIn(sb.readLog()).at(-1)).toEqual(["amp", "--stream-json", "threads", "continue", id]);
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
