import { constants } from "node:os";
import type { AgentPlugin, RunContext } from "../agents/types.js";
import { Extractor } from "../engine/extract.js";
import type { Verdict } from "../engine/match.js";
import type { Candidate } from "../engine/source.js";
import { SessionTracker, type PinEvent } from "../engine/tracker.js";
import { storeHome } from "../home.js";
import type { Logger } from "../log/logger.js";
import type { Pointer } from "../pointer/schema.js";
import { runAttempt, type AttemptBase, type AttemptOutcome } from "./attempt.js";
import { driveSession } from "./locks.js";
import type { AgentCall, Launch, SessionOptions, Talk, TypedPrompt } from "./options.js";
import { PointerPin } from "./pin.js";
import type { StartPlan } from "./plan.js";
import { settle } from "./settle.js";
import { Sinks } from "./sinks.js";
import { runUpfront } from "./upfront.js";

/**
 * One start of a decided plan: the pin it begins from, the up-front step, the session's driver
 * lock, the agent's run, and what its end leaves in the pointer (settle.ts).
 */
export async function execute(
  o: SessionOptions,
  plugin: AgentPlugin,
  base: AttemptBase,
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
    base.wiring.relay.attach(() => abort.abort());
    created = await runUpfront(o.agent.command, plan.upfront.args, plan.upfront.parse, { env: o.agent.env, cwd: o.agent.cwd, abort: abort.signal });
    base.wiring.relay.detach();
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
  const stopRequested = (): NodeJS.Signals | undefined => base.wiring.relay.stopRequested;
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
    return notStarted(o.report.log, aborted);
  }
  let outcome: AttemptOutcome;
  try {
    outcome = await launch(o, base, plan, args, extractor, pin);
  } finally {
    await driver?.release();
  }
  await settle(o, plugin, plan, pinner, outcome);
  return outcome;
}

function launch(
  o: SessionOptions,
  base: AttemptBase,
  plan: StartPlan,
  args: readonly string[],
  extractor: Extractor,
  pin: (event: PinEvent) => void,
): Promise<AttemptOutcome> {
  const warm = plan.mode === "warm";
  return runAttempt({
    ...base,
    launch: launchOf(o.agent, args),
    capture: {
      extractor,
      onPin: pin,
      context: runContext(o.agent),
      oneShot: plan.oneShot,
    },
    ...(plan.promptVia === "pty" && plan.prompt !== undefined ? { prompt: promptOf(o.talk, plan.prompt) } : {}),
    ...(warm ? { warm: { fallbackWindowMs: o.policy.fallbackWindowMs, dropInput: !o.talk.terminal.isTTY, holdStdout: plan.oneShot && o.talk.terminal.streamsApart } } : {}),
  });
}

/** Asked to stop before the agent started: logged, and ended as the signal would have ended it. */
export function notStarted(log: Logger, signal: NodeJS.Signals): AttemptOutcome {
  log.info(`${signal} arrived before the agent started; not starting it`);
  return { status: { exitCode: 0, signal: constants.signals[signal] }, signalledByUs: true, promptSent: false, entered: false };
}

/** The prompt sessionpin types, with how the run types it. */
export function promptOf(talk: Talk, text: string): TypedPrompt {
  return { text, quietMs: talk.promptQuietMs, maxWaitMs: talk.promptMaxWaitMs };
}

/** What an attempt starts: the agent's command with these arguments, in the run's folder and environment. */
export function launchOf(agent: AgentCall, args: readonly string[]): Launch {
  return { argv: [agent.command, ...args], cwd: agent.cwd, env: agent.env };
}

/** For the agent's on-disk session store. */
function runContext(agent: AgentCall): RunContext {
  return { home: storeHome(agent.env), cwd: agent.cwd, env: agent.env };
}
