import type { Line } from "./capture/line.js";
import { judgeLine, type RowBefore, type Verdict } from "./match.js";
import { relevance, type Relevance } from "./relevance.js";
import { SessionTracker, type PinEvent } from "./tracker.js";
import type { AgentPlugin } from "../agents/types.js";

/** One plugin's rules plus the tracker: what `run` and replay feed every captured line to. */
export class Extractor {
  #before: RowBefore | undefined;
  readonly #relevance: Relevance;

  /** `width` is the agent's terminal width, so a row that filled it is known to be wrapped. */
  constructor(
    readonly plugin: AgentPlugin,
    readonly tracker: SessionTracker = new SessionTracker(),
    private readonly width = 0,
  ) {
    this.#relevance = relevance(plugin);
  }

  /** From a line's raw bytes: false when judging it could not change the pinned ID or its state. */
  mayChange(bytes: string): boolean {
    return this.#relevance(bytes, this.tracker.current);
  }

  line(line: Line): { verdicts: Verdict[]; events: PinEvent[] } {
    const verdicts = judgeLine(this.plugin, line, this.#before);
    this.#before = line.json === undefined
      // A string has no more code points than UTF-16 units: a shorter one cannot fill the row.
      ? { text: line.text, fullRow: this.width > 0 && line.text.length >= this.width && [...line.text].length >= this.width }
      : undefined;
    const events = verdicts.flatMap((verdict) => this.offer(verdict, line.n));
    return { verdicts, events };
  }

  /** A verdict from outside the output (the session store, an up-front choice). */
  offer(verdict: Verdict, line?: number): PinEvent[] {
    const event = this.tracker.observe(verdict, line);
    return event === undefined ? [] : [event];
  }
}
