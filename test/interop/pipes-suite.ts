/**
 * One suite for every agent with a one-shot mode, run on pipes as a CI job or a chat bridge runs
 * `sessionpin run` since issue 41 (no terminal: the agent on pipes, not in a PTY). Each agent's
 * table row (pipes-support.ts) gives what differs; four proofs per agent:
 * - stdout is the agent's own: three calls on one key through sessionpin, each also run bare in a
 *   sandbox of its own with the argv sessionpin started (its session ID swapped for the bare
 *   one's): stdout, stderr and exit code equal once normalised, and the third request the fake
 *   API received carries the first two user turns;
 * - a message on stdin is the message: `echo MSG | sessionpin run --key K -- <one-shot without a
 *   message>` hands it to the agent in argv, cold and warm, and prints what the bare agent reading
 *   that stdin itself prints;
 * - a stdin left open is the agent's: with the message in argv, sessionpin waits for the end of
 *   stdin exactly when the bare agent does, and prints what it prints;
 * - a lost conversation is never silent and never on stdout: a warm call whose session is gone
 *   (or refused by the agent) says so in one line on stderr, and stdout is the fresh session's
 *   alone, as the bare agent prints it; `--on-lost fail` starts none (exit 5).
 */
import { readFileSync, writeFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { Cleanup, cwdOf } from "../e2e/support.js";
import { CLI, type Sandbox } from "../helpers/sandbox.js";
import { converse, headlessCall, oneShot, THREAD, type OneShotResult } from "./headless.js";
import { sessionsByKey, startsOf } from "./keyed-sessions.js";
import { CALL_MS, carried, normalise, sessionIn, type PipedAgent, type Turn } from "./pipes-support.js";
import { fakeApiPerTest, realSandbox } from "./support.js";

/** What the fake model API answers each message of THREAD in one conversation. */
const ANSWERS = ["FAKE-API: noted the word zebra.", "FAKE-API: noted the word yak.", "FAKE-API: the word is yak."] as const;
/** A command line as a shell would take it. */
const shown = (argv: readonly string[]): string => argv.map((word) => (word === "" || /\s/.test(word) ? JSON.stringify(word) : word)).join(" ");
/** How long a waiting agent's stdin is held open before it is closed. */
const HOLD_MS = 5_000;

export function describePipes(agents: readonly PipedAgent[]): void {
  for (const agent of agents) {
    describe(`${agent.label} ${agent.version}, one-shot on pipes (no terminal)`, () => {
      const cleanup = new Cleanup();
      const fake = fakeApiPerTest(cleanup, () => agent.start());
      const sandbox = async (): Promise<Sandbox> => {
        const sb = realSandbox(cleanup);
        await agent.prepare(sb, fake());
        return sb;
      };
      /** `sessionpin run --key <key> -- <argv>` with pipes all round, `stdin` piped in. */
      const piped = (sb: Sandbox, key: string, argv: readonly string[], o: { stdin?: string; holdOpen?: () => boolean } = {}): Promise<OneShotResult> =>
        headlessCall(sb, [process.execPath, CLI, "run", "--key", key, "--", ...argv], { boundMs: CALL_MS, ...o });
      /** The conversation turns `call` made the fake API receive, with its result. */
      const turnsOf = async <R>(call: () => Promise<R>): Promise<{ result: R; turns: Turn[] }> => {
        const before = fake().turns().length;
        const result = await call();
        return { result, turns: fake().turns().slice(before) };
      };
      /** `got` (sessionpin's, in `sb`) is `bare`'s (in `bareSb`), normalised: stdout, stderr and exit code. */
      const same = (got: OneShotResult, sb: Sandbox, bare: OneShotResult, bareSb: Sandbox, what: string): void => {
        expect(got.stdout, `${what}: stdout has no CRLF, as the agent writes it on pipes`).not.toContain("\r\n");
        expect({ code: got.code, stdout: normalise(got.stdout, sb), stderr: normalise(got.stderr, sb) }, what)
          .toEqual({ code: bare.code, stdout: normalise(bare.stdout, bareSb), stderr: normalise(bare.stderr, bareSb) });
        // Apart: the agent's stderr lines are on sessionpin's stderr and none of them on its stdout.
        for (const line of bare.stderr.split("\n").filter((l) => l.trim() !== "")) expect(normalise(got.stdout, sb), what).not.toContain(normalise(line, bareSb));
      };

      it(`three \`${shown(agent.oneShot("MSG"))}\` calls on one key: stdout and stderr apart, each the bare agent's for the same argv; the third request carries the first two turns`, async () => {
        const sb = await sandbox();
        const bareSb = await sandbox();
        const key = "pipes";
        let ids: [string, string] | undefined;
        let turns: Turn[] = [];
        const bareMs: number[] = [];
        const times = await converse(async (message) => {
          const call = await turnsOf(() => oneShot(sb, key, agent.oneShot(message), { boundMs: CALL_MS }));
          turns = call.turns;
          const got = call.result;
          const row = sessionsByKey(sb).get(key);
          const argv = carried(startsOf(row).at(-1) ?? [], sb, bareSb, ids);
          // The bare agent, its stdin closed as a CI step's is: the same command line in its own sandbox.
          const bare = await headlessCall(bareSb, argv, { boundMs: CALL_MS, what: `bare ${argv.join(" ")}` });
          bareMs.push(bare.ms);
          const bareId = sessionIn(bare.stdout);
          if (ids === undefined && row?.id != null && bareId !== undefined) ids = [row.id, bareId];
          expect(sessionIn(got.stdout), "the call's output names the key's session").toBe(row?.id);
          same(got, sb, bare, bareSb, `call ${JSON.stringify(message)}: ${argv.join(" ")}`);
          return got;
        }, (n, message) => {
          // The fake API got this message once, with every earlier turn of the key's session.
          expect(turns.filter((t) => t.asked.at(-1) === message)).toEqual([{ asked: THREAD.slice(0, n + 1), answer: ANSWERS[n] }]);
        });
        const row = sessionsByKey(sb).get(key);
        expect(row).toMatchObject({ agent: agent.name, cwd: cwdOf(sb), state: "confirmed", messages: 3 });
        expect(startsOf(row)).toHaveLength(3);
        console.log(`${agent.name} on pipes, three calls (ms): sessionpin ${times.join(", ")}; bare ${bareMs.join(", ")}`);
      }, 6 * CALL_MS + 10_000);

      it(`a message on stdin: \`echo MSG | sessionpin run --key K -- ${agent.noMessage.map(shown).join("` or `")}\` hands it over in argv, cold and warm, printing what the bare agent reading it prints`, async () => {
        const sb = await sandbox();
        const times: number[] = [];
        for (const [i, form] of agent.noMessage.entries()) {
          const key = `stdin-${i}`;
          const cold = await turnsOf(() => piped(sb, key, form, { stdin: `${THREAD[0]}\n` }));
          times.push(cold.result.ms);
          expect(cold.result.code, cold.result.stderr).toBe(0);
          expect(cold.turns, form.join(" ")).toEqual([{ asked: [THREAD[0]], answer: ANSWERS[0] }]);
          const row = sessionsByKey(sb).get(key);
          // Delivered in argv (its trailing newline trimmed); the agent's own stdin was empty.
          expect(startsOf(row)[0]).toContain(THREAD[0]);
          if (i === 0) {
            // The bare agent reads the same message from its stdin.
            const bareSb = await sandbox();
            const bare = await turnsOf(() => headlessCall(bareSb, agent.bareFromStdin, { boundMs: CALL_MS, stdin: THREAD[0] }));
            expect(bare.turns).toEqual(cold.turns);
            expect(bare.result.code).toBe(0);
            expect(normalise(cold.result.stdout, sb)).toBe(normalise(bare.result.stdout, bareSb));
          }
          // The next message on stdin continues the key's session.
          const warm = await turnsOf(() => piped(sb, key, form, { stdin: `${THREAD[2]}\n` }));
          times.push(warm.result.ms);
          expect(warm.result.code, warm.result.stderr).toBe(0);
          expect(warm.turns, form.join(" ")).toEqual([{ asked: [THREAD[0], THREAD[2]], answer: "FAKE-API: the word is zebra." }]);
          expect(startsOf(sessionsByKey(sb).get(key))[1]).toContain(THREAD[2]);
          expect(sessionIn(warm.result.stdout)).toBe(row?.id);
        }
        console.log(`${agent.name} on pipes, messages on stdin (ms): ${times.join(", ")}`);
      }, 3 * agent.noMessage.length * CALL_MS + 10_000);

      it(`a stdin left open, the message in argv: sessionpin ${agent.openStdin === "waits" ? "waits for its end, as" : "does not wait for it, nor does"} the bare agent`, async () => {
        const run = async (sb: Sandbox, argv: readonly string[]) => {
          const before = fake().turns().length;
          const started = Date.now();
          let atClose: number | undefined;
          // An agent that ignores stdin asks the model with stdin still open: held until then
          // (one that waited would run into the bound). A waiting one is held HOLD_MS.
          const result = await headlessCall(sb, argv, {
            boundMs: CALL_MS,
            holdOpen: () => {
              const turns = fake().turns().length - before;
              const hold = agent.openStdin === "waits" ? Date.now() - started < HOLD_MS : turns === 0;
              if (!hold) atClose = turns;
              return hold;
            },
          });
          const turns = fake().turns().slice(before);
          // Open until the agent exited: every turn came with stdin open.
          return { result, turnsOpen: atClose ?? turns.length, turns };
        };
        const bareSb = await sandbox();
        const bare = await run(bareSb, agent.oneShot(THREAD[0]));
        const sb = await sandbox();
        const got = await run(sb, [process.execPath, CLI, "run", "--key", "open", "--", ...agent.oneShot(THREAD[0])]);
        for (const { result, turnsOpen, turns } of [bare, got]) {
          expect(result.code, result.stderr).toBe(0);
          expect(turns).toEqual([{ asked: [THREAD[0]], answer: ANSWERS[0] }]);
          if (agent.openStdin === "waits") {
            // Nothing reached the model while stdin was open; the turn came once it was closed.
            expect(turnsOpen).toBe(0);
            expect(result.ms).toBeGreaterThan(HOLD_MS);
          } else {
            expect(turnsOpen).toBe(1);
          }
          if (agent.openStdinNote !== undefined) expect(result.stderr).toMatch(agent.openStdinNote);
        }
        // sessionpin adds nothing to the agent's own output, its command line as written.
        expect(normalise(got.result.stdout, sb)).toBe(normalise(bare.result.stdout, bareSb));
        expect(normalise(got.result.stderr, sb)).toBe(normalise(bare.result.stderr, bareSb));
        const closed = (r: OneShotResult): string => (r.stdinClosedMs === undefined ? "open until the exit" : `closed at ${r.stdinClosedMs} ms`);
        console.log(`${agent.name} on pipes, stdin left open: bare ${bare.result.ms} ms (stdin ${closed(bare.result)}), sessionpin ${got.result.ms} ms (stdin ${closed(got.result)})`);
      }, 2 * CALL_MS + 10_000);

      // Gone from a store sessionpin reads; refused by the agent where sessionpin cannot tell.
      const ways = [...(agent.forget !== undefined || agent.refusal === undefined ? ["gone from its store"] : []), ...(agent.refusal !== undefined ? [`refused by ${agent.name}`] : [])];
      it(`a pinned session that is lost (${ways.join(", or ")}): one line on stderr, and stdout is the fresh session's alone, as the bare agent prints it; --on-lost fail starts none (exit 5)`, async () => {
        const sb = await sandbox();
        const bareSb = await sandbox();
        const key = "lost";
        const cold = await oneShot(sb, key, agent.oneShot(THREAD[0]), { boundMs: CALL_MS });
        expect(cold.code, cold.stderr).toBe(0);
        /** The key's pointer made to name `agent.stale`, as if its session had gone away. */
        const restale = (): void => {
          const row = sessionsByKey(sb).get(key);
          if (row === undefined) throw new Error(`no pointer for key ${key}`);
          writeFileSync(row.pointer, `${JSON.stringify({ ...(JSON.parse(readFileSync(row.pointer, "utf8")) as object), id: agent.stale }, null, 2)}\n`, { mode: 0o600 });
        };
        const LOST = new RegExp(`^sessionpin: the conversation of session ${agent.stale} is lost \\((.+)\\); starting a new session$`, "gm");
        /** A warm call whose session is lost: exit 0, one line on stderr, and stdout what the bare agent prints for the message in a session of its own. */
        const lost = async (message: string): Promise<{ stderr: string; why: string }> => {
          restale();
          const call = await turnsOf(() => oneShot(sb, key, agent.oneShot(message), { boundMs: CALL_MS }));
          expect(call.result.code, call.result.stderr).toBe(0);
          const lines = [...call.result.stderr.matchAll(LOST)];
          expect(lines, call.result.stderr).toHaveLength(1);
          // The fresh session got the message alone.
          expect(call.turns.filter((t) => t.asked.at(-1) === message).map((t) => t.asked)).toEqual([[message]]);
          const bare = await headlessCall(bareSb, agent.oneShot(message), { boundMs: CALL_MS });
          expect(bare.code, bare.stderr).toBe(0);
          expect(normalise(call.result.stdout, sb), "stdout carries only the session that answers").toBe(normalise(bare.stdout, bareSb));
          expect(sessionIn(call.result.stdout)).toBe(sessionsByKey(sb).get(key)?.id);
          expect(call.result.stdout).not.toContain(agent.stale);
          return { stderr: call.result.stderr, why: lines[0]?.[1] ?? "" };
        };

        // Gone from the agent's store (it holds the cold call's session): sessionpin can tell
        // before launch; the agent never sees the stale ID. OpenCode has no store sessionpin reads:
        // OpenCode refuses it, and that attempt's stdout goes to stderr.
        const gone = await lost(THREAD[2]);
        if (agent.forget === undefined && agent.refusal !== undefined) {
          expect(gone.why).toMatch(/^refused: /);
          expect(gone.stderr).toMatch(agent.refusal);
        } else {
          expect(gone.why).toMatch(new RegExp(`^session ${agent.stale} is gone from ${agent.name}'s own store`));
        }
        if (agent.forget !== undefined && agent.refusal !== undefined) {
          // No store at all: sessionpin cannot tell, the agent refuses the ID, and whatever that
          // attempt printed on stdout went to stderr instead.
          agent.forget(sb);
          const refused = await lost(THREAD[1]);
          expect(refused.why).toMatch(/^refused: /);
          expect(refused.stderr).toMatch(agent.refusal);
          if (agent.refusedStdout !== undefined) expect(refused.stderr).toMatch(agent.refusedStdout);
        }

        // --on-lost fail: no new session, exit 5, nothing on stdout, nothing reaches the model.
        restale();
        const failed = await turnsOf(() => oneShot(sb, key, agent.oneShot(THREAD[0]), { boundMs: CALL_MS, options: ["--on-lost", "fail"] }));
        expect(failed.result.code, failed.result.stderr).toBe(5);
        expect(failed.result.stdout).toBe("");
        expect(failed.result.stderr).toContain(`sessionpin: the conversation of session ${agent.stale} is lost (`);
        expect(failed.result.stderr).toContain("nothing started (--on-lost fail, exit 5)");
        expect(failed.turns).toEqual([]);
      }, 8 * CALL_MS + 10_000);
    });
  }
}
