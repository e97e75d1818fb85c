import type { Verdict } from "../engine/match.js";
import type { TraceEvent } from "../engine/trace.js";
import type { PinEvent } from "../engine/tracker.js";
import type { OutputStream } from "../pty/host.js";
import type { Delivery } from "./plan.js";

/**
 * What happens in a run, as one event type: the agent's output and its exit, typed input, a
 * resize, a line's explain trace, a marker where sessionpin named the session itself, and what
 * happened to the pinned ID (a pin, a resumed start, a rejection).
 */
export type RunEvent =
  | { readonly kind: "output"; readonly chunk: Buffer; readonly stream: OutputStream }
  /** The agent exited: flush what is held. */
  | { readonly kind: "exit" }
  | { readonly kind: "input"; readonly chunk: Buffer }
  | { readonly kind: "resize"; readonly cols: number; readonly rows: number }
  | { readonly kind: "trace"; readonly entry: TraceEvent }
  | { readonly kind: "marker"; readonly label: string; readonly plugin: string; readonly verdict: Verdict }
  | { readonly kind: "pin"; readonly agent: string; readonly pin: PinEvent }
  | { readonly kind: "resumed"; readonly agent: string; readonly id: string; readonly delivers: Delivery["kind"] | null }
  | { readonly kind: "rejected"; readonly agent: string; readonly id: string; readonly reason: string };

type RunEventKind = RunEvent["kind"];
export type EventOf<K extends RunEventKind> = Extract<RunEvent, { readonly kind: K }>;

/**
 * One consumer of run events (as asciinema's outputs): a handler for each kind it cares about,
 * none for the rest. Handlers must not throw. A new consumer is a new sink, not an edit of the
 * code that emits.
 */
export type Sink = { readonly [K in RunEventKind]?: (event: EventOf<K>) => void };

/** Delivers each event to every sink that takes its kind, in the sinks' order. */
export class Sinks {
  constructor(private readonly sinks: readonly Sink[]) {}

  emit(event: RunEvent): void {
    for (const sink of this.sinks) {
      // The handler of event.kind takes that kind's event: the compiler cannot follow the pairing.
      const handler = sink[event.kind] as ((this: Sink, event: RunEvent) => void) | undefined;
      handler?.call(sink, event);
    }
  }

  /** Whether any sink takes `kind`: what nobody takes need not be made (the trace of every line). */
  takes(kind: RunEventKind): boolean {
    return this.sinks.some((sink) => sink[kind] !== undefined);
  }
}

/** What a warm one-shot run may print before its ID can be called accepted: then it goes out. */
const HOLD_LIMIT = 1 << 20;

/**
 * A warm one-shot run's stdout, held while its output can still reject the stored ID: a bridge or
 * a CI job reading stdout must never get a refused attempt's output and then a new session's.
 * `release("stdout")` once the agent shows the session (or the fallback window, or HOLD_LIMIT,
 * passes); `release("stderr")` when the ID was rejected: that output is about sessionpin's
 * attempt, not the answer. stderr is never held.
 */
export class HeldStdout implements Sink {
  #held: Buffer[] | undefined = [];
  #bytes = 0;

  constructor(private readonly write: (chunk: Buffer, stream: OutputStream) => void) {}

  output({ chunk, stream }: EventOf<"output">): void {
    if (stream !== "stdout" || this.#held === undefined) {
      this.write(chunk, stream);
      return;
    }
    this.#held.push(chunk);
    this.#bytes += chunk.length;
    if (this.#bytes > HOLD_LIMIT) this.release("stdout");
  }

  /** Writes what is held to `to`, then passes everything on; later calls do nothing. */
  release(to: OutputStream): void {
    const held = this.#held;
    this.#held = undefined;
    for (const chunk of held ?? []) this.write(chunk, to);
  }
}
