import type { Clock, Timer } from "../clock.js";
import { SessionpinError } from "../errors.js";
import type { Line } from "../engine/capture/line.js";
import { Capture } from "../engine/capture/pipeline.js";
import type { Extractor } from "../engine/extract.js";
import { matchesAny, type Verdict } from "../engine/match.js";
import type { PinEvent, Pinned } from "../engine/tracker.js";
import type { RunContext } from "../agents/types.js";
import type { Logger } from "../log/logger.js";
import { argvForLog } from "../log/argv.js";
import { spawnAgent, type AgentPty, type ExitStatus, type OutputStream, type SpawnOptions } from "../pty/host.js";
import type { SignalRelay } from "../pty/signals.js";
import type { OuterSide } from "../pty/terminal.js";
import { RejectionWatch } from "./fallback.js";
import { PromptTyper } from "./prompt.js";
import { HeldStdout, Sinks, type Sink } from "./sinks.js";
import { StoreWatch } from "../engine/store-watch.js";
import { Explainer } from "../engine/trace.js";

// An agent that printed its rejection but keeps running gets this long after SIGTERM.
const KILL_GRACE_MS = 3_000;

/** sessionpin's own side as an attempt uses it: a terminal, or pipes. */
export type Screen = Pick<OuterSide, "size" | "attach" | "detach" | "write">;

export interface AttemptOptions {
  readonly argv: readonly string[];
  readonly cwd: string;
  readonly env: NodeJS.ProcessEnv;
  readonly terminal: Screen;
  /** Starts the agent; a real PTY unless a test passes its own. */
  readonly spawn?: (argv: readonly string[], options: SpawnOptions) => AgentPty;
  readonly relay: Pick<SignalRelay, "attach" | "detach" | "stopRequested">;
  readonly clock: Clock;
  readonly log: Logger;
  /** Receives the running agent, for resize and flow control. */
  readonly onSpawn: (agent: AgentPty | undefined) => void;
  readonly capture?: {
    readonly extractor: Extractor;
    readonly onPin: (event: PinEvent) => void;
    /** For the agent's on-disk session store. */
    readonly context: RunContext;
    /** The agent answers once and exits: see StoreWatch. */
    readonly oneShot?: boolean;
  };
  /** Typed into the PTY once the agent's output goes quiet. */
  readonly prompt?: { readonly text: string; readonly quietMs: number; readonly maxWaitMs: number };
  /** On a warm start: how long a failure still means the stored ID was rejected. */
  readonly fallbackWindowMs?: number;
  /** The run's sinks (report.ts): the agent's output, typed input and, when one takes it, the explain trace of every line. */
  readonly sinks?: readonly Sink[];
  /** Piped input is not passed on (a warm start must not send a piped prompt again). */
  readonly dropInput?: boolean;
  /**
   * A warm one-shot run's stdout is held while its output can still reject the ID, and goes to
   * stderr if it did (see HeldStdout): only where stdout and stderr are apart (pipes).
   */
  readonly holdStdout?: boolean;
}

export interface AttemptOutcome {
  readonly status: ExitStatus;
  /** Why the stored ID counts as rejected, when it does. */
  readonly rejected?: string;
  readonly signalledByUs: boolean;
  /** The prompt sessionpin types was typed and submitted; false when there was none. */
  readonly promptSent: boolean;
  /** Someone submitted input through the terminal (an Enter passed on: agentapi's messages). */
  readonly entered: boolean;
  /** A one-shot run's output said its turn failed (AgentPlugin.turnFailed), whatever its exit code. */
  readonly turnFailed?: boolean;
}

// Linux takes no single argument longer than this (MAX_ARG_STRLEN, with its NUL): E2BIG.
const MAX_ARGUMENT_BYTES = 128 * 1024 - 1;

/** Runs the agent once, in a PTY or on pipes, passing everything through, and reports how it ended. */
export async function runAttempt(o: AttemptOptions): Promise<AttemptOutcome> {
  const long = o.argv.find((word) => Buffer.byteLength(word) > MAX_ARGUMENT_BYTES);
  if (long !== undefined) {
    throw new SessionpinError("usage", `sessionpin: an argument of ${Buffer.byteLength(long)} bytes is more than one argument can be (${MAX_ARGUMENT_BYTES}): nothing started; give the agent its message in a file it reads`);
  }
  // The session is shown (or input was submitted): the ID was accepted, and held output can go.
  const accept = (): void => {
    watch?.accept();
    held?.release("stdout");
  };
  const store = o.capture && watchStore(o.capture, o.clock, () => accept());
  store?.before();
  const agent = (o.spawn ?? spawnAgent)(o.argv, { ...o.terminal.size(), cwd: o.cwd, env: o.env });
  const startedAt = o.clock.now();
  o.log.info(`started pid ${agent.pid}: ${argvForLog(o.argv)}`);
  o.onSpawn(agent);
  const watch = o.capture && o.fallbackWindowMs !== undefined
    ? new RejectionWatch(o.capture.extractor.plugin, o.fallbackWindowMs, startedAt)
    : undefined;
  const show = (chunk: Buffer, stream: OutputStream): void => {
    if (!o.terminal.write(chunk, stream)) agent.pause();
  };
  const held = o.holdStdout === true && watch !== undefined ? new HeldStdout(show) : undefined;
  // Output later than the window can no longer reject the ID: what is held then goes out.
  const window = held && o.fallbackWindowMs !== undefined ? o.clock.setTimeout(() => held.release("stdout"), o.fallbackWindowMs) : undefined;
  // The run's own sinks: typed input and the explain trace go to them alone.
  const report = new Sinks(o.sinks ?? []);
  const traced = report.takes("trace");
  let signalledByUs = false;
  o.relay.attach((signal) => {
    signalledByUs = true;
    o.log.info(`forwarding ${signal} to the agent's process group`);
    agent.signal(signal);
  });
  let dropped = 0;
  let entered = false;
  let lineOpen = false;
  // Piped input that ended is end-of-file to the agent (`echo x | sessionpin run -- wc -c`), even
  // where its content was dropped: what reads it to the end must not wait for ever.
  const ended = (): void => agent.endInput?.(lineOpen);
  o.terminal.attach(o.dropInput ? (chunk) => void (dropped += chunk.length) : (chunk) => {
    agent.write(chunk);
    report.emit({ kind: "input", chunk });
    const last = chunk.at(-1);
    if (last !== undefined) lineOpen = last !== 0x0a && last !== 0x0d;
    // Enter submits a message (agentapi ends each with "\r"): the agent is taking turns.
    if (chunk.includes(0x0d)) {
      entered = true;
      accept();
    }
  }, ended);

  let killTimer: Timer | undefined;
  const quiet = o.prompt && startPrompt(o, agent, o.prompt);
  const explainer = o.capture && new Explainer(o.capture.extractor, [], traced);
  const extractor = o.capture?.extractor;
  // A one-shot run's lines are matched against how its turn says it failed, when the plugin knows.
  const failures = o.capture?.oneShot === true ? (extractor?.plugin.turnFailed ?? []) : [];
  let turnFailed = false;
  // Without a plugin nothing reads the lines: the output is only passed through.
  const width = o.terminal.size().cols;
  const onLine = (line: Line): void => {
    if (watch?.observe(line.text, o.clock.now()) && killTimer === undefined) {
      o.log.info(`rejection seen on line ${line.n}; stopping the agent`);
      agent.signal("SIGTERM");
      killTimer = o.clock.setTimeout(() => agent.signal("SIGKILL"), KILL_GRACE_MS);
    }
    if (line.cut) o.log.warn(`line ${line.n} (byte ${line.offset}) is longer than the capture limit: cut`);
    if (!turnFailed && matchesAny(failures, line.text)) {
      turnFailed = true;
      o.log.info(`line ${line.n} says the turn failed: its message is not counted as had`);
    }
    if (explainer === undefined || o.capture === undefined) return;
    const before = o.capture.extractor.tracker.current;
    const { verdicts, events, trace } = explainer.line(line, (o.clock.now() - startedAt) / 1000);
    for (const entry of trace) report.emit({ kind: "trace", entry });
    for (const v of verdicts) if (v.kind === "refused" && v.reason === "cut-off") o.log.warn(`rule ${v.rule} cut off on line ${line.n}: ${v.value}; it reads no more lines`);
    if (verdicts.some((verdict) => showsSession(verdict, before))) accept();
    for (const event of events) o.capture.onPin(event);
  };
  store?.start(agent.pid);

  const sinks = new Sinks([
    // The screen first: capture work never delays the agent's bytes.
    held ?? { output: ({ chunk, stream }) => show(chunk, stream) },
    ...(o.sinks ?? []),
    ...(extractor !== undefined ? [captureSink(() => new Capture({ width }), onLine)] : []),
    ...(quiet !== undefined ? [{ output: () => quiet.activity(), exit: () => quiet.cancel() }] : []),
  ]);
  agent.onData((chunk, stream) => sinks.emit({ kind: "output", chunk, stream }));
  const status = await agent.exited;
  sinks.emit({ kind: "exit" });
  if (window !== undefined) o.clock.clearTimeout(window);
  store?.stop(agent.pid);
  if (killTimer !== undefined) o.clock.clearTimeout(killTimer);
  o.relay.detach();
  o.terminal.detach();
  o.onSpawn(undefined);
  if (dropped > 0) o.log.info(`dropped ${dropped} bytes of piped input: a warm start does not send the prompt again`);
  o.log.info(`agent exited: code ${status.exitCode}, signal ${status.signal}`);
  const rejected = watch?.verdict({ code: status.exitCode, signal: status.signal, now: o.clock.now(), signalledByUs });
  // A refused session's output is no answer: stdout carries only the session that answers.
  held?.release(rejected === undefined ? "stdout" : "stderr");
  const sent = { signalledByUs, promptSent: quiet?.submitted ?? false, entered, turnFailed };
  return rejected === undefined ? { status, ...sent } : { status, rejected, ...sent };
}

/** The capture's sink: one capture per stream, so a line on stderr is not cut into one in progress on stdout. */
function captureSink(make: () => Capture, onLine: (line: Line) => void): Sink {
  const captures = new Map<OutputStream, Capture>();
  return {
    output({ chunk, stream }) {
      let capture = captures.get(stream);
      if (capture === undefined) captures.set(stream, (capture = make()));
      capture.push(chunk, onLine);
    },
    exit() {
      for (const capture of captures.values()) capture.end(onLine);
    },
  };
}

function startPrompt(o: AttemptOptions, agent: AgentPty, prompt: NonNullable<AttemptOptions["prompt"]>): PromptTyper {
  const typer = new PromptTyper(o.clock, (data) => agent.write(data), prompt.text, prompt, () => {
    o.log.info(`typing the prompt (${prompt.text.length} characters) as a bracketed paste`);
  });
  typer.start();
  return typer;
}

function watchStore(
  capture: NonNullable<AttemptOptions["capture"]>,
  clock: Clock,
  accepted: () => void,
): StoreWatch | undefined {
  const { extractor, onPin, context, oneShot } = capture;
  const watch = new StoreWatch(extractor.plugin, context, clock, () => extractor.tracker.current, (candidate) => {
    const pinned = extractor.tracker.current;
    const { verdict, events } = extractor.offer(candidate);
    if (showsSession(verdict, pinned)) accepted();
    for (const event of events) onPin(event);
  }, oneShot === true);
  return watch.needed ? watch : undefined;
}

/**
 * Whether a verdict shows the agent running a session: one it confirmed, or another than the one
 * pinned. Claude writes its pid file with the ID it was asked to resume just before it rejects
 * that ID, so merely repeating the resumed ID proves nothing.
 */
function showsSession(verdict: Verdict, pinned: Pinned | undefined): boolean {
  return verdict.kind === "taken" && (verdict.state === "confirmed" || verdict.id !== pinned?.id);
}
