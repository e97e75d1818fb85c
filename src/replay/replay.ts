import { basename } from "node:path";
import { Extractor } from "../engine/extract.js";
import type { AgentPlugin } from "../agents/types.js";
import type { Line } from "../engine/capture/line.js";
import { Capture } from "../engine/capture/pipeline.js";
import { Explainer, fromVerdict, type TraceEvent } from "../engine/trace.js";
import type { Source } from "./sources.js";

export interface ReplayOptions {
  /** The agent, when known (`--agent`); else taken from a cast's command, else every plugin is tried. */
  readonly agent?: AgentPlugin;
  readonly plugins: readonly AgentPlugin[];
  /** The terminal width the output was made for (wrapped rows); default: the cast's, else none. */
  readonly width?: number;
  /** Receives every trace event (explain); without it only the result is computed. */
  readonly trace?: (event: TraceEvent) => void;
  /** Offered a regular file read for one agent's pin alone (no trace): see FileReader. */
  readonly reader?: FileReader;
}

/**
 * Another way to read a regular file of terminal bytes or JSON lines for one extractor. It feeds
 * `onLine` lines of the file as the capture makes them, and may pass over lines, but only lines
 * that could not change the extractor's pin: the pins, and the lines they came from, are those of
 * reading every line. False: it does not read this file (nothing was fed), the capture does.
 */
export interface FileReader {
  read(file: FileToRead, extractor: Extractor, onLine: (line: Line) => void): Promise<boolean>;
}

export interface FileToRead {
  readonly path: string;
  readonly size: number;
  /** The screen's width the output was made for (0: unknown), as the capture takes it. */
  readonly width: number;
  /** Told how far into the file the reading is. */
  progress(offset: number): void;
}

const MARKER = /^sessionpin: (\S+) (\S+)$/;

export interface ReplayResult {
  readonly format: string;
  readonly agent: string | null;
  readonly id: string | null;
  readonly state: "provisional" | "confirmed" | null;
  readonly rule: string | null;
  readonly line: number | null;
  readonly offset: number | null;
  readonly time: number | null;
}

/**
 * Recorded output through the same capture pipeline and plugins as `run`. Streams: memory does
 * not grow with the input.
 */
export async function replay(source: Source, o: ReplayOptions): Promise<ReplayResult> {
  const chosen = o.agent ?? fromCommand(source.command, o.plugins);
  const candidates = chosen ? [chosen] : o.plugins;
  const width = o.width ?? source.width ?? 0;
  let explainers = candidates.map((plugin) => new Explainer(
    new Extractor(plugin, undefined, width),
    chosen && o.trace ? o.plugins.filter((other) => other !== chosen) : [],
    o.trace !== undefined,
  ));
  // The line and time each pin came from, for the report.
  const where = new Map<Explainer, { offset: number | null; time: number | null }>();
  let time: number | undefined;
  const feed = (line: Line): void => {
    for (const explainer of explainers) {
      const { events, trace } = explainer.line(line, time);
      if (events.length > 0) where.set(explainer, { offset: line.offset ?? null, time: time ?? null });
      if (o.trace) trace.forEach(o.trace);
    }
    // Guessing the agent: once one plugin pinned an ID, the ones that found nothing are out.
    if (explainers.length > 1 && where.size > 0) explainers = explainers.filter((e) => where.has(e));
  };
  // `sessionpin: <rule> <id>` markers: IDs the run pinned that the agent never printed (Amp's up-front
  // thread), each for the plugin whose up-front rule it names. An appended recording's marker
  // (`sessionpin: <command>`, where each run begins) names none, however many words it has.
  const marked = (label: string): void => {
    const [, rule, value] = MARKER.exec(label) ?? [];
    if (rule === undefined || value === undefined) return;
    for (const explainer of explainers) {
      if (explainer.extractor.plugin.upfront?.rule !== rule) continue;
      const { verdict, events } = explainer.extractor.offer({ source: "upfront", rule, state: "confirmed", value });
      if (events.length > 0) where.set(explainer, { offset: null, time: time ?? null });
      o.trace?.({ line: 0, ...(time !== undefined ? { time } : {}), text: label, plugin: explainer.extractor.plugin.name, ...fromVerdict(verdict) });
    }
  };
  const { file, size } = source;
  const only = explainers.length === 1 && !o.trace ? explainers[0] : undefined;
  const read = only && file && size !== undefined && o.reader !== undefined
    ? await o.reader.read({ path: file.path, size, width, progress: (offset) => file.reached(offset) }, only.extractor, feed)
    : false;
  if (!read) {
    const capture = new Capture({ width });
    for await (const chunk of source.chunks) {
      time = chunk.time;
      if (chunk.note !== undefined) o.trace?.({ line: 0, text: "", plugin: "*", rule: "recording", outcome: "refused", reason: "bad recording event", detail: chunk.note });
      if (chunk.marker !== undefined) marked(chunk.marker);
      else capture.push(chunk.data, feed);
    }
    capture.end(feed);
  }
  const winner = pickWinner(explainers);
  const pinned = winner?.extractor.tracker.current;
  return {
    format: source.format,
    agent: (winner ?? (chosen && explainers[0]))?.extractor.plugin.name ?? null,
    id: pinned?.id ?? null,
    state: pinned?.state ?? null,
    rule: pinned?.rule ?? null,
    line: pinned?.line ?? null,
    offset: (winner && where.get(winner)?.offset) ?? null,
    time: (winner && where.get(winner)?.time) ?? null,
  };
}

/** The plugin for the recorded command's executable (`amp --mode smart` → amp). */
function fromCommand(command: string | undefined, plugins: readonly AgentPlugin[]): AgentPlugin | undefined {
  const executable = command?.trim().split(/\s+/)[0];
  if (!executable) return undefined;
  const name = basename(executable.replace(/^["']|["']$/g, ""));
  return plugins.find((plugin) => plugin.names.includes(name));
}

/** Among plugins that pinned something: confirmed first, then the earliest line. */
function pickWinner(explainers: readonly Explainer[]): Explainer | undefined {
  const pinned = explainers.filter((e) => e.extractor.tracker.current !== undefined);
  return pinned.sort((a, b) => rank(a) - rank(b))[0];
}

function rank(explainer: Explainer): number {
  const current = explainer.extractor.tracker.current;
  return (current?.state === "confirmed" ? 0 : 1e12) + (current?.line ?? 0);
}
