import type { Line } from "../capture/line.js";
import { judgeLine, type Verdict } from "./match.js";
import { SessionTracker, type PinEvent } from "./tracker.js";
import type { AgentPlugin } from "./types.js";

/** One plugin's rules plus the tracker: what `run` and replay feed every captured line to. */
export class Extractor {
  constructor(
    readonly plugin: AgentPlugin,
    readonly tracker: SessionTracker = new SessionTracker(),
  ) {}

  line(line: Line): { verdicts: Verdict[]; events: PinEvent[] } {
    const verdicts = judgeLine(this.plugin, line);
    const events = verdicts.flatMap((verdict) => this.tracker.observe(verdict, line.n) ?? []);
    return { verdicts, events };
  }
}
