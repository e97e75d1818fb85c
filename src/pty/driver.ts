import { cleanText } from "../engine/capture/clean.js";
import { spawnAgent, type AgentPty } from "./host.js";

export interface DriverOptions {
  readonly cols?: number;
  readonly rows?: number;
  readonly cwd?: string;
  readonly env?: NodeJS.ProcessEnv;
}

/**
 * Drives a program in a PTY the way agentapi drives an agent: a fixed size (agentapi's Coder
 * modules use 67x1190), TERM=vt100, and chat messages typed as `x\b`, a bracketed paste, then
 * Enter. It keeps every output byte, so callers can compare screens byte for byte.
 */
export class PtyDriver {
  readonly #pty: AgentPty;
  readonly #chunks: Buffer[] = [];
  readonly exited: Promise<{ exitCode: number; signal: number }>;
  #waiters: Array<() => void> = [];

  constructor(argv: readonly string[], options: DriverOptions = {}) {
    // The same spawner as `run`'s: one place that knows node-pty's quirks.
    this.#pty = spawnAgent(argv, {
      cols: options.cols ?? 67,
      rows: options.rows ?? 1190,
      cwd: options.cwd ?? process.cwd(),
      env: { ...(options.env ?? process.env), TERM: "vt100" },
    });
    this.#pty.onData((data) => {
      this.#chunks.push(data);
      for (const wake of this.#waiters) wake();
    });
    this.exited = this.#pty.exited.then((status) => {
      for (const wake of this.#waiters) wake();
      return status;
    });
  }

  get pid(): number {
    return this.#pty.pid;
  }

  /** Every byte the program printed so far. */
  get output(): Buffer {
    return Buffer.concat(this.#chunks);
  }

  /** The output as plain text, escapes stripped. */
  get text(): string {
    return this.output.toString("utf8").split(/\r?\n|\r/).map(cleanText).join("\n");
  }

  write(data: string | Buffer): void {
    this.#pty.write(data);
  }

  /** A chat message, sent the way agentapi sends one. */
  sendMessage(text: string): void {
    this.write("x\b");
    this.write(`\x1b[200~${text}\x1b[201~`);
    this.write("\r");
  }

  resize(cols: number, rows: number): void {
    this.#pty.resize(cols, rows);
  }

  kill(signal: NodeJS.Signals): void {
    process.kill(this.#pty.pid, signal);
  }

  /** Resolves once the plain-text output matches `pattern`; rejects after `timeoutMs` or at exit. */
  async waitFor(pattern: RegExp, timeoutMs = 10_000): Promise<RegExpMatchArray> {
    let exited = false;
    void this.exited.then(() => (exited = true));
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const match = this.text.match(pattern);
      if (match) return match;
      if (exited) throw new Error(`exited before ${pattern} appeared; output:\n${this.text}`);
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`timed out after ${timeoutMs} ms waiting for ${pattern}; output:\n${this.text}`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(done, Math.min(left, 250));
        const self = this;
        function done(): void {
          clearTimeout(timer);
          self.#waiters = self.#waiters.filter((wake) => wake !== done);
          resolve();
        }
        this.#waiters.push(done);
      });
    }
  }
}
