import { fromVerdict } from "../engine/trace.js";
import type { Notifier, NotifyEvent } from "../notify/webhook.js";
import type { CastRecorder } from "../record/asciicast.js";
import type { LineFile } from "../record/line-file.js";
import type { Sink } from "./sinks.js";

/**
 * The sinks `run --record`, `--trace` and `--notify` add: each takes the run events its file or
 * webhook holds. A library caller passes its own beside them, or instead.
 */

/** `--record`: output, typed input (if the recorder keeps it), resizes and markers, as asciicast v2. */
export function recordingSink(record: CastRecorder): Sink {
  return {
    output: ({ chunk }) => record.output(chunk),
    input: ({ chunk }) => record.input(chunk),
    resize: ({ cols, rows }) => record.resize(cols, rows),
    marker: ({ label }) => record.marker(label),
  };
}

/**
 * `--trace`: the explain trace of every line, live; a marker as a line 0 of its own, so explain
 * of the trace names the thread the run pinned up front.
 */
export function traceSink(trace: LineFile): Sink {
  return {
    trace: ({ entry }) => trace.write(entry),
    marker: ({ label, plugin, verdict }) => trace.write({ line: 0, time: 0, text: label, plugin, ...fromVerdict(verdict) }),
  };
}

/** Where the webhook events say the session is kept. */
export interface PinPlace {
  readonly cwd: string;
  readonly pointer: string;
  readonly key?: string | undefined;
}

/** `--notify`: what happened to the pinned ID, POSTed; never waited for. */
export function webhookSink(notifier: Notifier, place: PinPlace, now: () => Date): Sink {
  const tell = (kind: NotifyEvent["kind"], agent: string, id: string, extra: Pick<NotifyEvent, "previous" | "reason" | "delivers"> = {}): void => {
    const key = place.key === undefined ? {} : { key: place.key };
    notifier.notify({ kind, agent, id, cwd: place.cwd, pointer: place.pointer, ...key, time: now().toISOString(), ...extra });
  };
  return {
    pin: ({ agent, pin }) => tell(pin.kind, agent, pin.pinned.id, pin.kind === "changed" ? { previous: pin.previous.id } : {}),
    resumed: ({ agent, id, delivers }) => tell("resumed", agent, id, { delivers }),
    rejected: ({ agent, id, reason }) => tell("rejected", agent, id, { previous: id, reason }),
  };
}
