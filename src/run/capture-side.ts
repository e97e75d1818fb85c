import type { Clock } from "../clock.js";
import type { Line } from "../engine/capture/line.js";
import type { Capture } from "../engine/capture/pipeline.js";
import { matchesAny, type Verdict } from "../engine/match.js";
import type { Pinned } from "../engine/tracker.js";
import { StoreWatch } from "../engine/store-watch.js";
import { Explainer } from "../engine/trace.js";
import type { Logger } from "../log/logger.js";
import type { OutputStream } from "../pty/host.js";
import type { Capturing } from "./options.js";
import type { Sink, Sinks } from "./sinks.js";

/**
 * What an attempt's capture makes of each line of the agent's output: pins, the explain trace,
 * the sign that the agent shows its session, and a one-shot turn that says it failed.
 */
export class LineReader {
  readonly #explainer: Explainer;
  readonly #failures: readonly RegExp[];
  #turnFailed = false;

  /** `elapsed` dates the trace, in seconds since the agent started; `accepted` hears that the session is shown. */
  constructor(
    private readonly capture: Capturing,
    private readonly log: Logger,
    private readonly report: Sinks,
    private readonly elapsed: () => number,
    private readonly accepted: () => void,
  ) {
    this.#explainer = new Explainer(capture.extractor, [], report.takes("trace"));
    // A one-shot run's lines are matched against how its turn says it failed, when the plugin knows.
    this.#failures = capture.oneShot === true ? (capture.extractor.plugin.turnFailed ?? []) : [];
  }

  /** A one-shot run's output said its turn failed (AgentPlugin.turnFailed), whatever its exit code. */
  get turnFailed(): boolean {
    return this.#turnFailed;
  }

  line(line: Line): void {
    if (line.cut) this.log.warn(`line ${line.n} (byte ${line.offset}) is longer than the capture limit: cut`);
    if (!this.#turnFailed && matchesAny(this.#failures, line.text)) {
      this.#turnFailed = true;
      this.log.info(`line ${line.n} says the turn failed: its message is not counted as had`);
    }
    const before = this.capture.extractor.tracker.current;
    const { verdicts, events, trace } = this.#explainer.line(line, this.elapsed());
    for (const entry of trace) this.report.emit({ kind: "trace", entry });
    for (const v of verdicts) if (v.kind === "refused" && v.reason === "cut-off") this.log.warn(`rule ${v.rule} cut off on line ${line.n}: ${v.value}; it reads no more lines`);
    if (verdicts.some((verdict) => showsSession(verdict, before))) this.accepted();
    for (const event of events) this.capture.onPin(event);
  }
}

/** The capture's sink: one capture per stream, so a line on stderr is not cut into one in progress on stdout. */
export function captureSink(make: () => Capture, onLine: (line: Line) => void): Sink {
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

/** The agent's on-disk store, watched for its session where the plugin knows where to look. */
export function watchStore(capture: Capturing, clock: Clock, accepted: () => void): StoreWatch | undefined {
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
