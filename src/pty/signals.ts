/**
 * Signals in one place. node-pty makes the agent a session leader, so its pid is its process
 * group id and a negative pid reaches the agent and everything it started, as a terminal would.
 */

/** What sessionpin passes on to the agent when it receives them. */
export const FORWARDED_SIGNALS: readonly NodeJS.Signals[] = [
  "SIGINT", "SIGTERM", "SIGHUP", "SIGQUIT", "SIGUSR1", "SIGUSR2",
];

const STOP_SIGNALS: ReadonlySet<NodeJS.Signals> = new Set(["SIGINT", "SIGTERM", "SIGHUP", "SIGQUIT"]);

export function signalGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch {
    try {
      // The group can be gone while the leader lingers as a zombie child; try the pid itself.
      process.kill(pid, signal);
    } catch {
      // Already exited: its exit status is on its way.
    }
  }
}

/**
 * Receives the forwarded signals for as long as sessionpin runs, so sessionpin itself is never
 * killed by them, and hands each to the agent attached at the moment. A request to stop that
 * arrives while no agent runs (between an up-front command and the spawn) is kept in `stopRequested`.
 */
export class SignalRelay {
  #target: ((signal: NodeJS.Signals) => void) | undefined;
  #received: NodeJS.Signals | undefined;
  readonly #handlers = FORWARDED_SIGNALS.map((signal) => {
    const handler = (): void => {
      if (STOP_SIGNALS.has(signal)) this.#received = signal;
      this.#target?.(signal);
    };
    process.on(signal, handler);
    return [signal, handler] as const;
  });

  /** The last signal asking sessionpin to stop, with or without an agent to pass it to. */
  get stopRequested(): NodeJS.Signals | undefined {
    return this.#received;
  }

  attach(target: (signal: NodeJS.Signals) => void): void {
    this.#target = target;
  }

  detach(): void {
    this.#target = undefined;
  }

  dispose(): void {
    for (const [signal, handler] of this.#handlers) process.off(signal, handler);
  }
}
