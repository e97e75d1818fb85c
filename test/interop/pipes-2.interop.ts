/**
 * OpenCode, Qwen Code, pi and omp in their one-shot modes on pipes (issue 41): pipes-suite.ts,
 * one table row each in pipes-support.ts. And Amp, as far as it goes offline: its turns need Amp's
 * server, so what is proven is the argv of a keyed `amp -x` on a pinned thread, with a message in
 * argv or on stdin, and that what sessionpin prints is what the bare `amp` prints for that argv.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { Cleanup, cli, cwdOf, newThreadId, WAIT_MS } from "../e2e/support.js";
import { CLI, type Sandbox } from "../helpers/sandbox.js";
import { headlessCall, oneShot, THREAD } from "./headless.js";
import { sessionsByKey, startsOf } from "./keyed-sessions.js";
import { describePipes } from "./pipes-suite.js";
import { CALL_MS, carried, normalise, pipedAgents } from "./pipes-support.js";
import { closedPort, endStrays, pinned, realSandbox } from "./support.js";

describePipes(pipedAgents("opencode", "qwen", "pi", "omp"));

describe(`Amp ${pinned("@ampcode/cli")}, one-shot on pipes (offline: the argv, and Amp's own output)`, () => {
  const cleanup = new Cleanup();
  afterEach(async () => {
    await cleanup.run();
    expect(endStrays(), "processes left behind").toEqual([]);
  });
  /** AMP_URL at a closed port: every run gets past Amp's parser and fails on the network. */
  const ampSandbox = async (): Promise<Sandbox> => realSandbox(cleanup, { AMP_URL: `http://127.0.0.1:${await closedPort()}`, AMP_API_KEY: "sgamp_interop_fake" });
  /** A thread pinned for `key` by an earlier (online) run. */
  const pin = (sb: Sandbox, key: string): string => {
    const pointer = (JSON.parse(cli(sb, ["plan", "--key", key, "--", "amp", "-x", "hello", "--stream-json"]).stdout) as { pointer: string }).pointer;
    const id = newThreadId();
    mkdirSync(dirname(pointer), { recursive: true, mode: 0o700 });
    const at = "2026-01-02T03:04:05.000Z";
    writeFileSync(pointer, `${JSON.stringify({ version: 1, agent: "amp", id, state: "confirmed", cwd: cwdOf(sb), capturedAt: at, confirmedAt: at, source: { rule: "result" }, key, history: [] }, null, 2)}\n`, { mode: 0o600 });
    return id;
  };

  it("`amp -x MSG --stream-json` and `echo MSG | … amp -x --stream-json` on a pinned thread run `threads continue <id> -x MSG`; stdout (empty) and stderr (Amp's offline error) are the bare amp's for that argv", async () => {
    const sb = await ampSandbox();
    const bareSb = await ampSandbox();
    const id = pin(sb, "pipes");
    const bareId = pin(bareSb, "unused");

    const got = await oneShot(sb, "pipes", ["amp", "-x", THREAD[0], "--stream-json"], { boundMs: CALL_MS });
    const argv = startsOf(sessionsByKey(sb).get("pipes")).at(-1) ?? [];
    expect(argv).toEqual(["amp", "--stream-json", "threads", "continue", id, "-x", THREAD[0]]);
    const bare = await headlessCall(bareSb, carried(argv, sb, bareSb, [id, bareId]), { boundMs: CALL_MS });
    expect(bare).toMatchObject({ code: 1, stdout: "", stderr: "Error: Cannot reach Amp servers. Are you offline?\n" });
    expect({ code: got.code, stdout: got.stdout, stderr: normalise(got.stderr, sb) }).toEqual({ code: bare.code, stdout: bare.stdout, stderr: normalise(bare.stderr, bareSb) });

    // The message on stdin: sessionpin reads it (the commit's `echo "piped msg" | sessionpin run
    // --key t2 -- amp -x --stream-json`, which waited for ever in a PTY) and hands it over in argv.
    const piped = await headlessCall(sb, [process.execPath, CLI, "run", "--key", "pipes", "--", "amp", "-x", "--stream-json"], { boundMs: WAIT_MS * 2, stdin: `${THREAD[2]}\n` });
    expect(startsOf(sessionsByKey(sb).get("pipes")).at(-1)).toEqual(["amp", "--stream-json", "threads", "continue", id, "-x", THREAD[2]]);
    expect({ code: piped.code, stdout: piped.stdout, stderr: piped.stderr }).toEqual({ code: 1, stdout: "", stderr: bare.stderr });
    // Offline, no turn was taken: the pointer is as it was.
    expect(sessionsByKey(sb).get("pipes")).toMatchObject({ id, state: "confirmed" });

    // Cold, a key with nothing pinned: the bare `echo MSG | amp -x --stream-json` reads stdin
    // itself; both fail on the network the same way.
    const cold = await headlessCall(sb, [process.execPath, CLI, "run", "--key", "cold", "--", "amp", "-x", "--stream-json"], { boundMs: WAIT_MS * 2, stdin: `${THREAD[0]}\n` });
    const bareCold = await headlessCall(bareSb, ["amp", "-x", "--stream-json"], { boundMs: WAIT_MS * 2, stdin: `${THREAD[0]}\n` });
    expect(bareCold.stderr).toMatch(/^Error: Couldn't connect to the Amp server at http:\/\/127\.0\.0\.1:\d+\./);
    expect({ code: cold.code, stdout: cold.stdout, stderr: cold.stderr.replace(/:\d+\./, ":<port>.") }).toEqual({ code: bareCold.code, stdout: bareCold.stdout, stderr: bareCold.stderr.replace(/:\d+\./, ":<port>.") });
    console.log(`amp on pipes (ms): ${[got.ms, bare.ms, piped.ms, cold.ms, bareCold.ms].join(", ")}`);
  }, 6 * CALL_MS);
});
