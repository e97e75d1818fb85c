import { mkdtempSync, readFileSync, readdirSync, rmSync, existsSync } from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, join } from "node:path";
import { PtyDriver, type DriverOptions } from "../../src/pty/driver.js";

export const ROOT = join(import.meta.dirname, "../..");
/** The built CLI: `npm test` builds it first, so the tests run what users run. */
export const CLI = join(ROOT, "dist/bin/main.js");
export const FAKE_AGENTS = join(ROOT, "fixtures/agents");

export interface FakeAmpEvent {
  readonly pid: number;
  readonly argv: string[];
  readonly event: string;
  readonly [key: string]: unknown;
}

/** A line a tiny fake agent (fixtures/agents/*) logged; each fills the fields it knows. */
export interface FakeEvent {
  readonly pid: number;
  readonly argv: string[];
  readonly event: string;
  readonly id?: string;
  readonly session?: string;
  readonly chat?: string;
  readonly text?: string;
  readonly code?: number;
}

/** A temp HOME, state folder and working folder, with the fake agents first on PATH. */
export class Sandbox {
  readonly dir = mkdtempSync(join(tmpdir(), "sessionpin-test-"));
  readonly home = join(this.dir, "home");
  readonly ampHome = join(this.dir, "fake-amp");
  readonly pointer = join(this.dir, "state", "pointer.json");
  readonly log = join(this.dir, "state", "pointer.log");
  readonly env: NodeJS.ProcessEnv;

  constructor(extraEnv: NodeJS.ProcessEnv = {}) {
    this.env = {
      PATH: `${FAKE_AGENTS}${delimiter}${process.env["PATH"] ?? ""}`,
      HOME: this.home,
      FAKE_AMP_HOME: this.ampHome,
      XDG_STATE_HOME: join(this.dir, "xdg-state"),
      ...extraEnv,
    };
  }

  /** `sessionpin <args>` in a PTY sized like agentapi's (67x1190). */
  sessionpin(args: readonly string[], options: DriverOptions = {}): PtyDriver {
    return new PtyDriver([process.execPath, CLI, ...args], { cwd: this.dir, env: this.env, ...options });
  }

  /** Any program in the same kind of PTY, for side-by-side comparisons. */
  direct(argv: readonly string[], options: DriverOptions = {}): PtyDriver {
    return new PtyDriver(argv, { cwd: this.dir, env: this.env, ...options });
  }

  events(): FakeAmpEvent[] {
    const path = join(this.ampHome, "events.jsonl");
    if (!existsSync(path)) return [];
    return readFileSync(path, "utf8").split("\n").filter(Boolean).map((line) => JSON.parse(line) as FakeAmpEvent);
  }

  /** What fake `agent` logged to $HOME/.fake-<agent>-events.jsonl, optionally one kind of event. */
  fakeEvents(agent: string, event?: string): FakeEvent[] {
    const path = join(this.home, `.fake-${agent}-events.jsonl`);
    if (!existsSync(path)) return [];
    const all = readFileSync(path, "utf8").split("\n").filter(Boolean).map((line) => JSON.parse(line) as FakeEvent);
    return event === undefined ? all : all.filter((e) => e.event === event);
  }

  /** The argv of every start of fake `agent`. */
  fakeStarts(agent: string): string[][] {
    return this.fakeEvents(agent, "start").map((e) => e.argv);
  }

  /** Every message fake `agent` received, as [its session, the text]. */
  fakeMessages(agent: string): Array<[string | undefined, string | undefined]> {
    return this.fakeEvents(agent, "message").map((e) => [e.session ?? e.id ?? e.chat, e.text]);
  }

  readPointer(): Record<string, unknown> {
    return JSON.parse(readFileSync(this.pointer, "utf8")) as Record<string, unknown>;
  }

  readLog(): string {
    return existsSync(this.log) ? readFileSync(this.log, "utf8") : "";
  }

  /** Files beside the pointer whose names contain `label` (e.g. "rejected"). */
  asideFiles(label: string): string[] {
    return readdirSync(join(this.dir, "state")).filter((name) => name.includes(`.${label}-`));
  }

  cleanup(): void {
    rmSync(this.dir, { recursive: true, force: true });
  }
}
