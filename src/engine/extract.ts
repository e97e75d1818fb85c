import type { Line } from "./capture/line.js";
import { findOnLine, judge, type RowBefore, type Verdict } from "./match.js";
import type { Candidate } from "./source.js";
import { SessionTracker, type PinEvent } from "./tracker.js";
import type { AgentPlugin } from "../agents/types.js";

/** What became of an offered candidate. */
export interface Offered {
  readonly verdict: Verdict;
  readonly events: PinEvent[];
}

/**
 * One plugin's rules plus the tracker: what `run` and replay feed every captured line to, and
 * the intake every other source of IDs (store, session log, pid file, up-front command, chosen
 * ID) offers its candidates to.
 */
export class Extractor {
  #before: RowBefore | undefined;

  /** `width` is the agent's terminal width, so a row that filled it is known to be wrapped. */
  constructor(
    readonly plugin: AgentPlugin,
    readonly tracker: SessionTracker = new SessionTracker(),
    private readonly width = 0,
  ) {}

  line(line: Line): { verdicts: Verdict[]; events: PinEvent[] } {
    const found = findOnLine(this.plugin, line, this.#before);
    // The row before is read by text rules only: a plugin without them (Amp) skips its width.
    this.#before = line.json === undefined && this.plugin.text.length > 0
      // A string has no more code points than UTF-16 units: a shorter one cannot fill the row.
      ? { text: line.text, fullRow: this.width > 0 && line.text.length >= this.width && [...line.text].length >= this.width }
      : undefined;
    const verdicts: Verdict[] = [];
    const events: PinEvent[] = [];
    for (const finding of found) {
      if (!("source" in finding)) {
        verdicts.push(finding);
        continue;
      }
      const offered = this.offer(finding);
      verdicts.push(offered.verdict);
      events.push(...offered.events);
    }
    return { verdicts, events };
  }

  /** The grammar check, then the tracker: the one path an ID from any source takes. */
  offer(candidate: Candidate): Offered {
    const verdict = judge(this.plugin.grammar, candidate);
    const event = this.tracker.observe(verdict, candidate.line);
    return { verdict, events: event === undefined ? [] : [event] };
  }
}
