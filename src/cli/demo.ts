import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, join } from "node:path";
import { fileURLToPath } from "node:url";
import { PtyDriver } from "../pty/driver.js";
import { parseOptions } from "./options.js";

export const DEMO_USAGE = `Usage: sessionpin demo [--keep] [--json]

Runs the built-in fake Amp twice through \`sessionpin run\`, in a PTY sized like agentapi's
(67x1190): a cold start that pins a new thread and types the prompt, then a warm start that
resumes the thread without the prompt. Prints what happened; exits 1 if anything went wrong.

Options:
  --keep       keep the demo's temp folder (pointer, log, fake Amp state) and print where it is
  --json       one JSON object instead of text: {"passed","thread","pinned":{"id","state","rule"},
               "cold":{"launched":[argv…],"received":[…],"exitCode"},"warm":{"launched","exitCode"},
               "promptDelivered":N,"messages":[…],"kept":PATH?}
  -h, --help   show this help

SESSIONPIN_KEEP=1 does what --keep does; SESSIONPIN_JSON=1 what --json does.`;

export const DEMO_OPTIONS = { keep: { type: "boolean" }, json: { type: "boolean" }, help: { type: "boolean", short: "h" } } as const;

const PROMPT = "Add a /health endpoint to the API";
const CLI = fileURLToPath(new URL("./main.js", import.meta.url));
const FAKE_AMP = fileURLToPath(new URL("../demo/fake-amp.js", import.meta.url));

interface AmpEvent {
  readonly argv: string[];
  readonly event: string;
  readonly id?: string;
  readonly text?: string;
}

export async function demoCommand(argv: readonly string[]): Promise<number> {
  const values = parseOptions(argv, DEMO_OPTIONS, DEMO_USAGE);
  if (values.help) {
    process.stdout.write(`${DEMO_USAGE}\n`);
    return 0;
  }
  const dir = mkdtempSync(join(tmpdir(), "sessionpin-demo-"));
  const json = values.json === true;
  try {
    const report = await demo(dir, json ? () => undefined : (text) => void process.stdout.write(`${text}\n`));
    if (json) process.stdout.write(`${JSON.stringify({ ...report, ...(values.keep ? { kept: dir } : {}) })}\n`);
    return report.passed ? 0 : 1;
  } finally {
    if (values.keep && !json) process.stdout.write(`\nDemo files kept in ${dir}\n`);
    if (!values.keep) rmSync(dir, { recursive: true, force: true });
  }
}

/** What the demo found, for --json; the text says the same. */
interface DemoReport {
  readonly passed: boolean;
  readonly thread: string | null;
  readonly pinned: { readonly id: string; readonly state: string; readonly rule: string };
  readonly cold: { readonly launched: string[][]; readonly received: string[]; readonly exitCode: number };
  readonly warm: { readonly launched: string[][]; readonly exitCode: number };
  readonly promptDelivered: number;
  readonly messages: string[];
}

async function demo(dir: string, say: (text: string) => void): Promise<DemoReport> {
  const bin = join(dir, "bin");
  const work = join(dir, "project");
  const pointer = join(dir, "state", "sessionpin-amp.json");
  mkdirSync(bin);
  mkdirSync(work);
  // Named `amp`, so sessionpin picks its Amp plugin by the executable's name, as it would for the real one.
  writeFileSync(join(bin, "amp"), `#!/bin/sh\nexec "${process.execPath}" "${FAKE_AMP}" "$@"\n`);
  chmodSync(join(bin, "amp"), 0o755);
  // The user's SESSIONPIN_* settings are not the demo's: a key would rename its pointer, and a
  // webhook would get the fake thread's events.
  const own = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith("SESSIONPIN_")));
  const env = { ...own, PATH: `${bin}${delimiter}${process.env["PATH"] ?? ""}`, FAKE_AMP_HOME: join(dir, "fake-amp") };
  const command = ["run", "--pointer", pointer, "--prompt", PROMPT, "--prompt-quiet", "0.5", "--", "amp", "--mode", "smart"];
  const start = (): PtyDriver => new PtyDriver([process.execPath, CLI, ...command], { cwd: work, env });
  const events = (): AmpEvent[] =>
    readFileSync(join(dir, "fake-amp", "events.jsonl"), "utf8").split("\n").filter(Boolean).map((line) => JSON.parse(line) as AmpEvent);

  say(`$ sessionpin ${command.map((word) => (word.includes(" ") ? JSON.stringify(word) : word)).join(" ")}\n`);
  say("1. Cold start (no pointer yet)");
  const cold = start();
  await cold.waitFor(/noted \(1 messages/, 20_000);
  cold.write("\x03");
  const coldExit = await cold.exited;
  const thread = events().find((e) => e.event === "thread-new")?.id;
  const pinned = JSON.parse(readFileSync(pointer, "utf8")) as { id: string; state: string; source: { rule: string } };
  for (const e of events().filter((e) => e.event === "start")) say(`   sessionpin launched: amp ${e.argv.join(" ")}`);
  say(`   pinned ${pinned.id} (${pinned.state}, rule ${pinned.source.rule}) in ${pointer}`);
  const coldLaunched = events().filter((e) => e.event === "start").map((e) => ["amp", ...e.argv]);
  const received = events().filter((e) => e.event === "message").map((e) => e.text ?? "");
  say(`   the agent received: ${received.map((text) => JSON.stringify(text)).join(", ")}; exit code ${coldExit.exitCode}\n`);

  say("2. Warm start (same command, pointer present)");
  const before = events().length;
  const warm = start();
  await warm.waitFor(/continued, 1 messages/, 20_000);
  // Longer than the prompt's quiet period: a prompt that was going to be typed would be by now.
  await new Promise((resolve) => setTimeout(resolve, 1500));
  warm.sendMessage("What did I ask you to do?");
  await warm.waitFor(/noted \(2 messages/, 20_000);
  warm.write("\x03");
  const warmExit = await warm.exited;
  const warmEvents = events().slice(before);
  for (const e of warmEvents.filter((e) => e.event === "start")) say(`   sessionpin launched: amp ${e.argv.join(" ")}`);
  const prompts = events().filter((e) => e.event === "message" && e.text === PROMPT).length;
  say(`   the prompt was not sent again (delivered ${prompts} time(s) across both starts); exit code ${warmExit.exitCode}`);
  const messages = thread === undefined ? [] : threadMessages(dir, thread);
  say(`   the thread now holds ${messages.length} messages: ${messages.map((m) => JSON.stringify(m)).join(", ")}\n`);

  const ok = thread !== undefined && pinned.id === thread && prompts === 1 && messages.length === 2 &&
    warmEvents.some((e) => e.event === "start" && e.argv.join(" ").endsWith(`threads continue ${thread}`)) &&
    coldExit.exitCode === 0 && warmExit.exitCode === 0;
  say(ok ? "Demo passed: the thread survived the restart." : "Demo FAILED: see the lines above.");
  return {
    passed: ok,
    thread: thread ?? null,
    pinned: { id: pinned.id, state: pinned.state, rule: pinned.source.rule },
    cold: { launched: coldLaunched, received, exitCode: coldExit.exitCode },
    warm: { launched: warmEvents.filter((e) => e.event === "start").map((e) => ["amp", ...e.argv]), exitCode: warmExit.exitCode },
    promptDelivered: prompts,
    messages,
  };
}

/** The fake Amp's server-side record of the thread. */
function threadMessages(dir: string, thread: string): string[] {
  const file = join(dir, "fake-amp", "threads", `${encodeURIComponent(thread)}.json`);
  return (JSON.parse(readFileSync(file, "utf8")) as { messages: string[] }).messages;
}
