import { constants } from "node:os";
import type { Clock } from "../clock.js";
import { Extractor } from "../engine/extract.js";
import { SessionTracker, type PinEvent } from "../engine/tracker.js";
import type { AgentPlugin, RunContext } from "../agents/types.js";
import type { Verdict } from "../engine/match.js";
import type { Candidate } from "../engine/source.js";
import { EXIT, reasonOf, SessionpinError } from "../errors.js";
import type { Logger } from "../log/logger.js";
import { describeHolder } from "../pointer/holder.js";
import { forTerminal } from "../explain/escape.js";
import type { Pointer } from "../pointer/schema.js";
import { removeLeftoverTemps, setAside } from "../pointer/store.js";
import { exitCodeOf, type AgentPty } from "../pty/host.js";
import { SignalRelay } from "../pty/signals.js";
import type { OuterSide } from "../pty/terminal.js";
import { runAttempt, type AttemptOptions, type AttemptOutcome, type Screen } from "./attempt.js";
import { keepRecent, PointerPin } from "./pin.js";
import { decideStart, planContext, unpinnedStart, type StartQuestion } from "./next-start.js";
import { driveSession, lockPointer } from "./locks.js";
import { coldPlan, whyUnpinned, type StartPlan, type Unpinned } from "./plan.js";
import { runUpfront } from "./upfront.js";
import { Sinks, type Sink } from "./sinks.js";
import { storeHome } from "../home.js";

/** How sessionpin talks with the agent: the terminal (or pipes) and how the prompt is typed. */
export interface Talk {
  readonly terminal: Screen & Pick<OuterSide, "onResize" | "onDrain" | "isTTY" | "streamsApart">;
  /** Starts the agent; a real PTY unless a test passes its own. */
  readonly spawn?: AttemptOptions["spawn"];
  /** The prompt is typed once the agent's output was quiet this long, or at the latest after promptMaxWaitMs. */
  readonly promptQuietMs: number;
  readonly promptMaxWaitMs: number;
}

/** What the run reports, and to whom: the log, and the sinks of its events (recording, trace, webhooks: report.ts). */
export interface Report {
  readonly log: Logger;
  readonly sinks?: readonly Sink[];
}

/** What the run does when something stands in its way. */
export interface Policy {
  /** How long to wait for another run's lock on the pointer; 0 refuses at once (`--wait-lock`). */
  readonly waitLockMs: number;
  /** On a warm start: how long a failure still means the stored ID was rejected (`--fallback-window`). */
  readonly fallbackWindowMs: number;
  /**
   * A warm one-shot run whose session is gone from the agent's store or refused by the agent:
   * `fresh` starts a new session (and says so in one line on stderr), `fail` starts none and
   * exits 5 (`--on-lost`).
   */
  readonly onLost?: "fresh" | "fail";
}

export interface Time {
  readonly clock: Clock;
  readonly now: () => Date;
}

/** `run`'s options, in groups: what to run, what it brings, where its state lives (StartQuestion), then the rest. */
export interface SessionOptions extends StartQuestion {
  readonly talk: Talk;
  readonly report: Report;
  readonly policy: Policy;
  readonly time: Time;
}

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
  const base: Omit<AttemptOptions, "argv"> = {
    cwd: o.agent.cwd, env: o.agent.env, terminal: o.talk.terminal, relay, clock: o.time.clock, log: o.report.log,
    ...(o.talk.spawn !== undefined ? { spawn: o.talk.spawn } : {}),
    sinks: o.report.sinks ?? [],
    // The pointer writes need no zod (src/pointer/check.ts): nothing is loaded while the agent starts.
    onSpawn: (agent) => {
      current = agent;
    },
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
  base: Omit<AttemptOptions, "argv">,
  relay: SignalRelay,
  report: Sinks,
): Promise<number> {
  const lock = await lockPointer(o.pointer.path, { clock: o.time.clock, waitLockMs: o.policy.waitLockMs, log: o.report.log, stopRequested: () => relay.stopRequested });
  const stop = relay.stopRequested;
  if (stop !== undefined) {
    // Asked to stop while it waited for the lock (a cancelled CI job): nothing is started.
    if (lock?.kind === "acquired") await lock.lock.release();
    return exitCodeOf(notStarted(o, stop).status);
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
      const outcome = await attempt(o, plugin, base, plan, history);
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

async function attempt(
  o: SessionOptions,
  plugin: AgentPlugin,
  base: Omit<AttemptOptions, "argv">,
  plan: StartPlan,
  history: Pointer["history"],
): Promise<AttemptOutcome> {
  // A session the caller chose starts from the pointer too: finding the pinned session again confirms it.
  const warm = plan.mode === "cold" ? undefined : plan.pointer;
  const pinner = new PointerPin(o.pointer.path, { agent: plugin.name, cwd: o.agent.cwd, key: o.pointer.key }, o.report.log, o.time.now, warm, history);
  // Pins go to the pointer's writer first, then to the run's own sinks (the webhooks tell of them).
  const sinks = new Sinks([{ pin: ({ pin }) => pinner.apply(pin) }, ...(o.report.sinks ?? [])]);
  const pin = (event: PinEvent): void => sinks.emit({ kind: "pin", agent: plugin.name, pin: event });
  if (plan.mode === "warm" && warm !== undefined) sinks.emit({ kind: "resumed", agent: plugin.name, id: warm.id, delivers: plan.delivers?.kind ?? null });
  let created: Awaited<ReturnType<typeof runUpfront>> | undefined;
  if (plan.upfront !== undefined) {
    const abort = new AbortController();
    base.relay.attach(() => abort.abort());
    created = await runUpfront(o.agent.command, plan.upfront.args, plan.upfront.parse, { env: o.agent.env, cwd: o.agent.cwd, abort: abort.signal });
    base.relay.detach();
  }
  // Made once the up-front step is over, so its width is the terminal's at launch.
  const extractor = new Extractor(plugin, new SessionTracker(warm && { id: warm.id, state: warm.state, rule: warm.source.rule }), o.talk.terminal.size().cols);
  const offer = (candidate: Candidate): Verdict => {
    const offered = extractor.offer(candidate);
    for (const event of offered.events) pin(event);
    return offered.verdict;
  };
  let args = plan.args;
  let known = warm?.id ?? plan.chosen;
  // Named by sessionpin, but nothing exists to resume until the agent has saved a turn.
  if (plan.chosen !== undefined) offer({ source: "chosen", rule: "chosen-up-front", state: "provisional", value: plan.chosen });
  if (plan.upfront !== undefined && created !== undefined) {
    const verdict = "id" in created ? offer({ source: "upfront", rule: plan.upfront.rule, state: "confirmed", value: created.id }) : undefined;
    if (verdict?.kind === "taken") {
      args = plan.upfront.launch(verdict.id);
      known = verdict.id;
      // In the recording and the trace too, so that replay and explain of them name the thread the run pinned.
      sinks.emit({ kind: "marker", label: `sessionpin: ${plan.upfront.rule} ${verdict.id}`, plugin: plugin.name, verdict });
    } else {
      o.report.log.warn(`${"error" in created ? created.error : `not a ${plugin.name} ID`}; running the command as given, nothing can be pinned up front`);
    }
  }
  const stopRequested = (): NodeJS.Signals | undefined => base.relay.stopRequested;
  const driver = known === undefined || stopRequested() !== undefined
    ? undefined
    : await driveSession(known, { env: o.agent.env, agent: plugin.name, clock: o.time.clock, waitLockMs: o.policy.waitLockMs, log: o.report.log, stopRequested }).catch((error: unknown) => {
      // Held by another run, and asked to stop while waiting for it: the stop wins.
      if (stopRequested() !== undefined) return undefined;
      throw error;
    });
  const aborted = stopRequested();
  if (aborted !== undefined) {
    // agentapi's shutdown (SIGINT) during `threads new`, the wait for the session, or between two attempts: start nothing.
    await driver?.release();
    return notStarted(o, aborted);
  }
  let outcome: AttemptOutcome;
  try {
    outcome = await launch(o, base, plan, args, extractor, pin);
  } finally {
    await driver?.release();
  }
  await pinner.settled();
  if (neverSaved(plugin, plan, pinner.pointer, outcome)) {
    const aside = await setAside(o.pointer.path, "unused", o.time.now());
    o.report.log.warn(`${plugin.name} exited with ${outcome.status.exitCode} before it saved session ${plan.chosen}: nothing to resume; pointer moved to ${aside}`);
  } else if (neverTold(plan, pinner.pointer, outcome)) {
    const aside = await setAside(o.pointer.path, "unused", o.time.now());
    o.report.log.warn(`${plugin.name} ended before its task was typed, and nothing else was sent: session ${pinner.pointer?.id} has nothing to resume; pointer moved to ${aside}, so the next start begins again with the task`);
  } else if (tookTurn(plan, pinner.pointer, outcome)) {
    // A prompt sessionpin types counts as had only once it was submitted.
    pinner.tookTurn(plan.promptVia === "pty" && !outcome.promptSent ? undefined : plan.delivers?.sha256);
    await pinner.settled();
  }
  return outcome;
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

/** Asked to stop before the agent started: logged, and ended as the signal would have ended it. */
function notStarted(o: SessionOptions, signal: NodeJS.Signals): AttemptOutcome {
  o.report.log.info(`${signal} arrived before the agent started; not starting it`);
  return { status: { exitCode: 0, signal: constants.signals[signal] }, signalledByUs: true, promptSent: false, entered: false };
}

function launch(
  o: SessionOptions,
  base: Omit<AttemptOptions, "argv">,
  plan: StartPlan,
  args: readonly string[],
  extractor: Extractor,
  pin: (event: PinEvent) => void,
): Promise<AttemptOutcome> {
  const warm = plan.mode === "warm";
  return runAttempt({
    ...base,
    argv: [o.agent.command, ...args],
    capture: {
      extractor,
      onPin: pin,
      context: runContext(o),
      oneShot: plan.oneShot,
    },
    ...(plan.promptVia === "pty" && plan.prompt !== undefined ? { prompt: promptOf(o, plan.prompt) } : {}),
    ...(warm ? { fallbackWindowMs: o.policy.fallbackWindowMs, dropInput: !o.talk.terminal.isTTY, holdStdout: plan.oneShot && o.talk.terminal.streamsApart } : {}),
  });
}

/**
 * Whether the agent took a turn with what this start delivered: a one-shot run that exited 0 of
 * itself printed its answer; an interactive session did when its ID is confirmed and it ended
 * well or was stopped (agentapi's SIGINT). A run killed before that may deliver the message again.
 */
function tookTurn(plan: StartPlan, pointer: Pointer | undefined, outcome: AttemptOutcome): boolean {
  const { exitCode, signal } = outcome.status;
  const clean = exitCode === 0 && signal === 0;
  // A one-shot run reads no typed message: one its plugin could only type never reached it.
  if (plan.oneShot) return clean && !outcome.signalledByUs && plan.promptVia !== "pty" && outcome.turnFailed !== true;
  return pointer?.state === "confirmed" && (clean || outcome.signalledByUs);
}

/**
 * A cold interactive start whose task sessionpin types, pinned before the task was typed (Amp's
 * `threads new` makes the thread first), that ended before it was, with nothing typed through the
 * terminal either: the session holds nothing. Resumed, it would never get the task, since warm
 * interactive starts do not send it.
 */
function neverTold(plan: StartPlan, pointer: Pointer | undefined, outcome: AttemptOutcome): boolean {
  return pointer !== undefined && plan.mode === "cold" && !plan.oneShot && plan.promptVia === "pty" &&
    plan.delivers?.kind === "task" && !outcome.promptSent && !outcome.entered;
}

/**
 * A session named up front exists only once the agent saved it to its store. An agent that
 * failed before that (Gemini 0.61 without an auth method, exit 41, or in an untrusted folder,
 * exit 55) leaves nothing to resume: a pointer to it would only be refused on the next start.
 */
function neverSaved(plugin: AgentPlugin, plan: StartPlan, pointer: Pointer | undefined, outcome: AttemptOutcome): boolean {
  const { exitCode, signal } = outcome.status;
  return plugin.store !== undefined && plan.chosen !== undefined && pointer?.id === plan.chosen && pointer.state === "provisional" &&
    pointer.source.rule === "chosen-up-front" && exitCode !== 0 && signal === 0 && !outcome.signalledByUs;
}

function runContext(o: SessionOptions): RunContext {
  return { home: storeHome(o.agent.env), cwd: o.agent.cwd, env: o.agent.env };
}

function promptOf(o: SessionOptions, text: string): NonNullable<AttemptOptions["prompt"]> {
  return { text, quietMs: o.talk.promptQuietMs, maxWaitMs: o.talk.promptMaxWaitMs };
}

/** The agent without pinning: no plugin, a subcommand, an agent without IDs, or a pointer folder that cannot be used. */
async function unpinned(o: SessionOptions, base: Omit<AttemptOptions, "argv">, why: Unpinned): Promise<number> {
  const plan = unpinnedStart(o, why, o.report.log);
  const typed = plan.promptVia === "pty" ? plan.prompt : undefined;
  return exitCodeOf((await runAttempt({ ...base, argv: [o.agent.command, ...plan.args], ...(typed !== undefined ? { prompt: promptOf(o, typed) } : {}) })).status);
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
