import type { Clock } from "../clock.js";
import { SessionpinError } from "../errors.js";
import { Capture } from "../engine/capture/pipeline.js";
import type { Logger } from "../log/logger.js";
import { argvForLog } from "../log/argv.js";
import { spawnAgent, type AgentPty, type ExitStatus, type OutputStream } from "../pty/host.js";
import { captureSink, LineReader, watchStore } from "./capture-side.js";
import { InputSide } from "./input-side.js";
import type { Capturing, Launch, Report, Time, TypedPrompt, Warm, Wiring } from "./options.js";
import { PromptTyper } from "./prompt.js";
import { ResumeGuard } from "./resume-guard.js";
import { Sinks } from "./sinks.js";

/** One attempt's options, in the groups of options.ts; the last three only where they apply. */
export interface AttemptOptions {
  readonly launch: Launch;
  readonly wiring: Wiring;
  readonly report: Report;
  readonly time: Pick<Time, "clock">;
  /** Without it nothing reads the lines: the output is only passed through. */
  readonly capture?: Capturing;
  readonly prompt?: TypedPrompt;
  /** A warm start's; its rejection watch needs `capture` too. */
  readonly warm?: Warm;
}

/** What every attempt of one run shares: all but what it starts, and how it captures, prompts and guards. */
export type AttemptBase = Pick<AttemptOptions, "wiring" | "report" | "time">;

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
  refuseLongArguments(o.launch.argv);
  const { clock } = o.time;
  const { log } = o.report;
  const { terminal } = o.wiring;
  // The agent showed its session or took a message: the ID was accepted (a warm start's guard).
  const accept = (): void => guard?.accept();
  const store = o.capture && watchStore(o.capture, clock, accept);
  store?.before();
  const agent = (o.wiring.spawn ?? spawnAgent)(o.launch.argv, { ...terminal.size(), cwd: o.launch.cwd, env: o.launch.env });
  const startedAt = clock.now();
  log.info(`started pid ${agent.pid}: ${argvForLog(o.launch.argv)}`);
  o.wiring.onSpawn(agent);
  const show = (chunk: Buffer, stream: OutputStream): void => {
    if (!terminal.write(chunk, stream)) agent.pause();
  };
  const guard = o.capture && o.warm && new ResumeGuard(o.capture.extractor.plugin, o.warm, clock, log, agent, startedAt, show);
  // The run's own sinks: typed input and the explain trace go to them alone.
  const report = new Sinks(o.report.sinks ?? []);
  let signalledByUs = false;
  o.wiring.relay.attach((signal) => {
    signalledByUs = true;
    log.info(`forwarding ${signal} to the agent's process group`);
    agent.signal(signal);
  });
  const input = new InputSide(agent, report, accept);
  input.attach(terminal, o.warm?.dropInput === true);
  const quiet = o.prompt && startPrompt(o.prompt, clock, log, agent);
  const reader = o.capture && new LineReader(o.capture, log, report, () => (clock.now() - startedAt) / 1000, accept);
  store?.start(agent.pid);

  const width = terminal.size().cols;
  const sinks = new Sinks([
    // The screen first: capture work never delays the agent's bytes.
    guard?.screen ?? { output: ({ chunk, stream }) => show(chunk, stream) },
    ...(o.report.sinks ?? []),
    ...(reader !== undefined ? [captureSink(() => new Capture({ width }), (line) => {
      guard?.line(line);
      reader.line(line);
    })] : []),
    ...(quiet !== undefined ? [{ output: () => quiet.activity(), exit: () => quiet.cancel() }] : []),
  ]);
  agent.onData((chunk, stream) => sinks.emit({ kind: "output", chunk, stream }));
  const status = await agent.exited;
  sinks.emit({ kind: "exit" });
  store?.stop(agent.pid);
  o.wiring.relay.detach();
  terminal.detach();
  o.wiring.onSpawn(undefined);
  if (input.dropped > 0) log.info(`dropped ${input.dropped} bytes of piped input: a warm start does not send the prompt again`);
  log.info(`agent exited: code ${status.exitCode}, signal ${status.signal}`);
  const rejected = guard?.end({ code: status.exitCode, signal: status.signal, signalledByUs });
  const sent = { signalledByUs, promptSent: quiet?.submitted ?? false, entered: input.entered, turnFailed: reader?.turnFailed ?? false };
  return rejected === undefined ? { status, ...sent } : { status, rejected, ...sent };
}

function refuseLongArguments(argv: readonly string[]): void {
  const long = argv.find((word) => Buffer.byteLength(word) > MAX_ARGUMENT_BYTES);
  if (long !== undefined) {
    throw new SessionpinError("usage", `sessionpin: an argument of ${Buffer.byteLength(long)} bytes is more than one argument can be (${MAX_ARGUMENT_BYTES}): nothing started; give the agent its message in a file it reads`);
  }
}

function startPrompt(prompt: TypedPrompt, clock: Clock, log: Logger, agent: Pick<AgentPty, "write">): PromptTyper {
  const typer = new PromptTyper(clock, (data) => agent.write(data), prompt.text, prompt, () => {
    log.info(`typing the prompt (${prompt.text.length} characters) as a bracketed paste`);
  });
  typer.start();
  return typer;
}
