import type { AgentPlugin } from "../agents/types.js";
import { EXIT, reasonOf, SessionpinError } from "../errors.js";
import { forTerminal } from "../explain/escape.js";
import { describeHolder } from "../pointer/holder.js";
import type { Pointer } from "../pointer/schema.js";
import { removeLeftoverTemps, setAside } from "../pointer/store.js";
import { exitCodeOf, type AgentPty } from "../pty/host.js";
import { SignalRelay } from "../pty/signals.js";
import { runAttempt, type AttemptBase } from "./attempt.js";
import { execute, launchOf, notStarted, promptOf } from "./execute.js";
import { lockPointer } from "./locks.js";
import { decideStart, planContext, unpinnedStart } from "./decide-start.js";
import type { SessionOptions } from "./options.js";
import { keepRecent } from "./pin.js";
import { coldPlan, whyUnpinned, type StartPlan, type Unpinned } from "./plan.js";
import { Sinks } from "./sinks.js";

/**
 * `sessionpin run`: cold or warm start, the agent in a PTY, the pointer kept current, and one
 * fresh start when the stored ID is rejected. Resolves to the exit code to leave with.
 */
export async function runSession(o: SessionOptions): Promise<number> {
  let current: AgentPty | undefined;
  const report = new Sinks(o.report.sinks ?? []);
  o.talk.terminal.onResize((cols, rows) => {
    current?.resize(cols, rows);
    report.emit({ kind: "resize", cols, rows });
  });
  o.talk.terminal.onDrain(() => current?.resume());
  const relay = new SignalRelay();
  const base: AttemptBase = {
    wiring: {
      terminal: o.talk.terminal, relay,
      ...(o.talk.spawn !== undefined ? { spawn: o.talk.spawn } : {}),
      // The pointer writes need no zod (src/pointer/check.ts): nothing is loaded while the agent starts.
      onSpawn: (agent) => {
        current = agent;
      },
    },
    report: o.report,
    time: o.time,
  };
  try {
    const why = whyUnpinned(o.agent.plugin, o.agent.command, o.agent.args);
    if (o.agent.plugin === undefined || why !== undefined) {
      o.report.log.info(why?.reason ?? "");
      return await unpinned(o, base, why ?? { reason: "", conversation: true });
    }
    return await pinned(o, o.agent.plugin, base, relay, report);
  } finally {
    relay.dispose();
  }
}

async function pinned(
  o: SessionOptions,
  plugin: AgentPlugin,
  base: AttemptBase,
  relay: SignalRelay,
  report: Sinks,
): Promise<number> {
  const lock = await lockPointer(o.pointer.path, { clock: o.time.clock, waitLockMs: o.policy.waitLockMs, log: o.report.log, stopRequested: () => relay.stopRequested });
  const stop = relay.stopRequested;
  if (stop !== undefined) {
    // Asked to stop while it waited for the lock (a cancelled CI job): nothing is started.
    if (lock?.kind === "acquired") await lock.lock.release();
    return exitCodeOf(notStarted(o.report.log, stop).status);
  }
  if (lock === undefined) return unpinned(o, base, { reason: `${o.pointer.path} cannot be used`, conversation: true });
  if (lock.kind === "held") {
    // A bridge knows its threads by key, not by the hashed file name.
    const which = o.pointer.key === undefined ? o.pointer.path : `the session of key ${JSON.stringify(o.pointer.key)} (${o.pointer.path})`;
    throw new SessionpinError("pointer-locked", `sessionpin: ${forTerminal(which)} is in use by ${describeHolder(lock.holder)}`);
  }
  if (lock.tookOverFrom !== undefined) o.report.log.warn(`took over a stale lock: ${JSON.stringify(lock.tookOverFrom)}`);
  try {
    for (const leftover of removeLeftoverTemps(o.pointer.path)) o.report.log.warn(`removed ${leftover}, left by a writer that was killed`);
    const { decision, read } = await decideStart(o, plugin, o.time.now());
    if (decision.mode === "refused") throw decision.error;
    if (decision.mode === "repeat") {
      process.stderr.write(`sessionpin: ${decision.reason}; ${o.agent.command} not started (exit ${EXIT.repeat})\n`);
      o.report.log.info(`not starting ${o.agent.command}: ${decision.reason}`);
      return EXIT.repeat;
    }
    let plan: StartPlan = decision;
    o.report.log.info(`${plan.mode} start: ${plan.reason}`);
    let history: Pointer["history"] = [];
    if (plan.setsAside !== undefined) {
      const aside = await moveAside(o.pointer.path, plan.setsAside, o.time.now());
      o.report.log.warn(`moved the pointer aside to ${aside}`);
      if (plan.setsAside === "gone" && read.kind === "ok") {
        // As a rejection: the agent would have refused the ID, had it been launched.
        const { id, history: earlier } = read.pointer;
        report.emit({ kind: "rejected", agent: plugin.name, id, reason: plan.reason });
        history = keepRecent([...earlier, { id, at: o.time.now().toISOString(), reason: plan.reason }]);
        if (plan.oneShot && lost(o, id, plan.reason)) return EXIT.lost;
      }
    }
    for (;;) {
      const outcome = await execute(o, plugin, base, plan, history);
      if (outcome.rejected === undefined || relay.stopRequested !== undefined) return exitCodeOf(outcome.status);
      report.emit({ kind: "rejected", agent: plugin.name, id: plan.id ?? "", reason: outcome.rejected });
      const aside = await moveAside(o.pointer.path, "rejected", o.time.now());
      o.report.log.warn(`stored ID ${plan.id} rejected: ${outcome.rejected}; pointer moved to ${aside}`);
      if (plan.oneShot && lost(o, plan.id ?? "", `refused: ${outcome.rejected}`)) return EXIT.lost;
      o.report.log.info("starting a fresh session");
      history = keepRecent([...(plan.pointer?.history ?? []), { id: plan.id ?? "", at: o.time.now().toISOString(), reason: `rejected: ${outcome.rejected}` }]);
      plan = coldPlan(plugin, o.agent.args, planContext(o), "the stored ID was rejected");
    }
  } finally {
    await lock.lock.release();
  }
}

/**
 * A one-shot run's conversation is lost (its session gone or refused): never silently. One line on
 * stderr, before the new session's output, with `--on-lost fail` none started; true then.
 */
function lost(o: SessionOptions, id: string, why: string): boolean {
  const fail = o.policy.onLost === "fail";
  process.stderr.write(`sessionpin: the conversation of session ${id} is lost (${why}); ${fail ? `nothing started (--on-lost fail, exit ${EXIT.lost})` : "starting a new session"}\n`);
  return fail;
}

/** The agent without pinning: no plugin, a subcommand, an agent without IDs, or a pointer folder that cannot be used. */
async function unpinned(o: SessionOptions, base: AttemptBase, why: Unpinned): Promise<number> {
  const plan = unpinnedStart(o, why, o.report.log);
  const typed = plan.promptVia === "pty" ? plan.prompt : undefined;
  return exitCodeOf((await runAttempt({ ...base, launch: launchOf(o.agent, plan.args), ...(typed !== undefined ? { prompt: promptOf(o.talk, typed) } : {}) })).status);
}


/**
 * The pointer moved aside before a start that must not resume it, or a failure to in one line
 * (another user's file in the folder, which the kernel will not link): no session is started then,
 * since the next start would find the same pointer and the session it names would be lost.
 */
async function moveAside(path: string, label: string, now: Date): Promise<string | undefined> {
  try {
    return await setAside(path, label, now);
  } catch (error) {
    throw new SessionpinError("pointer-invalid", `sessionpin: cannot move ${path} aside (${reasonOf(error)}): left as it is, and no new session started; move it or remove it by hand`, { cause: error });
  }
}
