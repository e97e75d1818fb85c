import type { AgentPty, ExitStatus, OutputStream } from "../../src/pty/host.js";
import type { Screen } from "../../src/run/options.js";

/**
 * An agent without a process: the test prints for it and ends it, and reads what was typed and
 * which signals it got. With the manual clock, the live loop runs without sleeping.
 */
export class FakeAgent implements AgentPty {
  readonly pid = 4_000_000;
  readonly typed: string[] = [];
  readonly signals: NodeJS.Signals[] = [];
  paused = false;
  #listener: ((chunk: Buffer, stream: OutputStream) => void) | undefined;
  #exit: ((status: ExitStatus) => void) | undefined;
  readonly exited = new Promise<ExitStatus>((resolve) => void (this.#exit = resolve));

  constructor(readonly argv: readonly string[]) {}

  write(data: Buffer | string): void {
    this.typed.push(data.toString());
  }

  resize(): void {}

  signal(signal: NodeJS.Signals): void {
    this.signals.push(signal);
  }

  onData(listener: (chunk: Buffer, stream: OutputStream) => void): void {
    this.#listener = listener;
  }

  pause(): void {
    this.paused = true;
  }

  resume(): void {
    this.paused = false;
  }

  /** The agent prints `text`, on stdout unless said (an agent on pipes has two outputs). */
  print(text: string, stream: OutputStream = "stdout"): void {
    this.#listener?.(Buffer.from(text), stream);
  }

  end(exitCode: number, signal = 0): void {
    this.#exit?.({ exitCode, signal });
  }
}

/** Spawns FakeAgents, keeping each for the test to drive. */
export class FakeSpawner {
  readonly agents: FakeAgent[] = [];
  readonly spawn = (argv: readonly string[]): FakeAgent => {
    const agent = new FakeAgent(argv);
    this.agents.push(agent);
    return agent;
  };

  get last(): FakeAgent {
    const agent = this.agents.at(-1);
    if (agent === undefined) throw new Error("no agent was spawned");
    return agent;
  }
}

/** The outer terminal: what reached the screen; `full` makes every write report backpressure. */
export class FakeScreen implements Screen {
  readonly shown: Buffer[] = [];
  full = false;
  /** Whether sessionpin's own stdin is a terminal (agentapi's PTY) or a pipe (CI). */
  isTTY = true;
  /** Whether the agent's stdout and stderr reach the caller apart (pipes): then `stderr` gets the latter. */
  streamsApart = false;
  readonly stderr: Buffer[] = [];
  onResize(): void {}
  onDrain(): void {}
  size(): { cols: number; rows: number } {
    return { cols: 67, rows: 1190 };
  }
  attach(): void {}
  detach(): void {}
  write(chunk: Buffer, stream: OutputStream = "stdout"): boolean {
    (stream === "stderr" && this.streamsApart ? this.stderr : this.shown).push(chunk);
    return !this.full;
  }
}
