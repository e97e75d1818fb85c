import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Sandbox } from "../../helpers/sandbox.js";
import { exitOf, sleep } from "../../e2e/support.js";
import { check, pick, STACK, uuid, type Context, type Family } from "../harness.js";
import { killLeftover } from "./agent-run.js";

/**
 * Family 10: hostile agent output in a live run. The agent prints stream-json lines whose ID field
 * is nested 1,000 to 200,000 deep (arrays, objects, both), under the Claude plugin, whose text
 * rules make every line be judged, with and without --trace and --record; then, half the time, a
 * good init line. One such line once overflowed the stack: a stack trace on the agent's screen,
 * the agent killed, exit 1, the lock left. The agent must run on and its exit code pass through,
 * with no stack trace, no lock left, the good ID pinned after the attack, and a trace of whole
 * JSON lines.
 */
export const output: Family = {
  name: "10 hostile agent output in a live run",
  budgetMs: { quick: 6_000, full: 200_000 },
  async run(context, attempt) {
    const total = context.count(3, 60);
    for (let i = 0; i < total && context.timeLeft(); i++) {
      const made = deepLines(context);
      await attempt(`${made.label} (#${i})`, () => liveRun(context, made));
    }
  },
};

interface Made {
  readonly label: string;
  readonly text: string;
  readonly good: string | undefined;
}

const SHAPES = [["[", "]"], ['{"a":', "}"], ['[{"session_id":', "}]"]] as const;
const LINES = ['"type":"system","subtype":"init"', '"type":"assistant"', '"type":"result","subtype":"success"'];

function deepLines(c: Context): Made {
  const count = 1 + Math.floor(c.random() * 3);
  const lines: string[] = [];
  let deepest = 0;
  for (let i = 0; i < count; i++) {
    const depth = 1_000 + Math.floor(c.random() * 200_000);
    const [open, close] = pick(c.random, SHAPES);
    deepest = Math.max(deepest, depth);
    lines.push(`{${pick(c.random, LINES)},"session_id":${open.repeat(depth)}1${close.repeat(depth)}}`);
  }
  const good = c.random() < 0.5 ? uuid(c.random) : undefined;
  if (good !== undefined) lines.push(`{"type":"system","subtype":"init","session_id":"${good}"}`);
  return { label: `${count} line(s) with the ID nested up to ${deepest} deep${good ? ", then a good one" : ""}`, text: `${lines.join("\r\n")}\r\n`, good };
}

async function liveRun(c: Context, made: Made): Promise<void> {
  const sb = new Sandbox();
  try {
    const print = join(sb.dir, "deep.jsonl");
    writeFileSync(print, made.text);
    const code = 1 + Math.floor(c.random() * 100);
    const trace = c.random() < 0.5 ? ["--trace", join(sb.dir, "state", "trace.jsonl")] : [];
    const record = c.random() < 0.3 ? ["--record", join(sb.dir, "state", "run.cast")] : [];
    const driver = sb.sessionpin(["run", "--pointer", sb.pointer, "--agent", "claude", ...trace, ...record, "--", "echoer"], {
      env: { ...sb.env, ECHOER_PRINT: print, ECHOER_EXIT: String(code) },
    });
    try {
      await driver.waitFor(/ready/, 20_000);
      await sleep(200);
      driver.write("\x03");
      const { exitCode } = await exitOf(driver, 20_000);
      check(exitCode === code, `exit ${exitCode}, expected the agent's ${code}: ${driver.text.slice(-600)}`);
      check(!STACK.test(driver.text), `a stack trace on the terminal: ${driver.text.slice(-600)}`);
      check(!STACK.test(sb.readLog()), `a stack trace in the log: ${sb.readLog().slice(-600)}`);
      check(!existsSync(`${sb.pointer}.lock`), "the lock was left behind");
      if (made.good !== undefined) {
        const pinned = existsSync(sb.pointer) ? (JSON.parse(readFileSync(sb.pointer, "utf8")) as { id?: string }).id : undefined;
        check(pinned === made.good, `pinned ${pinned}, expected the good ID after the attack, ${made.good}`);
      }
      const traced = trace[1];
      if (traced !== undefined && existsSync(traced)) for (const line of readFileSync(traced, "utf8").split("\n").filter(Boolean)) JSON.parse(line);
    } finally {
      killLeftover(driver);
    }
  } finally {
    sb.cleanup();
  }
}
