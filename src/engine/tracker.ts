import type { IdState } from "../agents/types.js";
import type { Verdict } from "./match.js";

export interface Pinned {
  readonly id: string;
  readonly state: IdState;
  readonly rule: string;
  readonly line?: number;
}

/**
 * captured: the first ID of this run; confirmed: the pinned ID became resumable; changed: the
 * agent now reports another ID (a fork, a silent new session): the pin follows it.
 */
export type PinEvent =
  | { readonly kind: "captured" | "confirmed"; readonly pinned: Pinned }
  | { readonly kind: "changed"; readonly pinned: Pinned; readonly previous: Pinned };

/**
 * Follows the latest ID an agent reports. Pure: the caller decides what an event means on disk.
 * `initial` is the ID a warm start resumed, so seeing it again confirms rather than captures.
 */
export class SessionTracker {
  #current: Pinned | undefined;

  constructor(initial?: Pinned) {
    this.#current = initial;
  }

  get current(): Pinned | undefined {
    return this.#current;
  }

  observe(verdict: Verdict, line?: number): PinEvent | undefined {
    if (verdict.kind !== "taken") return undefined;
    const next: Pinned = { id: verdict.id, state: verdict.state, rule: verdict.rule, line };
    const previous = this.#current;
    if (previous === undefined) {
      this.#current = next;
      return { kind: "captured", pinned: next };
    }
    if (previous.id !== next.id) {
      this.#current = next;
      return { kind: "changed", pinned: next, previous };
    }
    if (previous.state === "provisional" && next.state === "confirmed") {
      this.#current = next;
      return { kind: "confirmed", pinned: next };
    }
    return undefined;
  }
}
