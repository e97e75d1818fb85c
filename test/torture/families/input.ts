import { execFileSync, spawn } from "node:child_process";
import { createWriteStream, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { once } from "node:events";
import { join } from "node:path";
import { check, hex, pick, randomBytes, sessionpin, STACK, uuid, type Context, type Family } from "../harness.js";

/**
 * Family 1: bad input to `replay` and `explain`. Every case must end in one clear line on stderr
 * (exit 2) or "no ID found" / an ID (exit 1 / 0): never a stack trace, never a hang, and a peak
 * RSS under a bound whatever the input's size.
 */
export const input: Family = {
  name: "1 bad input to replay/explain",
  budgetMs: { quick: 14_000, full: 260_000 },
  async run(context, attempt) {
    const rounds = context.count(1, 6);
    for (let round = 0; round < rounds && context.timeLeft(); round++) {
      for (const [index, make] of CASES.entries()) {
        // Quick mode gives each case one of the two commands, taking turns.
        const commands = context.mode === "quick" ? ([index % 2 === 0 ? "replay" : "explain"] as const) : (["replay", "explain"] as const);
        for (const command of commands) {
          if (!context.timeLeft()) return;
          // Made again for each command: a FIFO is read once.
          const made = await make(context, round * 2 + (command === "replay" ? 0 : 1));
          await attempt(`${command} ${made.label} (round ${round})`, async () => {
            const result = await sessionpin([command, ...(made.args ?? []), made.path], {
              cwd: context.scratch,
              deadlineMs: made.deadlineMs ?? 60_000,
              // explain prints every line a rule looked at; only its exit and its stderr count here.
            });
            if (made.endless) {
              // /dev/zero never ends: it must still be reading, with bounded memory, at the deadline.
              check(result.timedOut, `ended before its deadline (exit ${result.code}): ${result.stderr.slice(0, 300)}`);
            } else {
              check(!result.timedOut, `still running after ${made.deadlineMs ?? 60_000} ms`);
              check(result.code === 0 || result.code === 1 || result.code === 2, `exit ${result.code} (signal ${result.signal}); stderr: ${result.stderr.slice(0, 500)}`);
            }
            check(!STACK.test(result.stderr) && !STACK.test(result.stdout), `a stack trace: ${result.stderr.slice(0, 800)}`);
            const lines = result.stderr.split("\n").filter((l) => l.trim() !== "");
            check(lines.length <= 1, `${lines.length} lines on stderr: ${result.stderr.slice(0, 800)}`);
            if (result.code === 1 && command === "replay") check(/no ID found/.test(result.stdout), `exit 1 without "no ID found": ${result.stdout.slice(0, 300)}`);
            // A case with a good ID after its attack: the attack did not stop the reading.
            if (made.expectId !== undefined) {
              check(result.code === 0, `exit ${result.code}, expected the ID ${made.expectId} after the attack; stderr: ${result.stderr.slice(0, 300)}`);
              check(result.stdout.includes(made.expectId), `the ID ${made.expectId} after the attack was not found: ${result.stdout.slice(-300)}`);
            }
            if (made.explained !== undefined && command === "explain") check(made.explained.test(result.stdout), `explain did not say ${made.explained}: ${result.stdout.slice(0, 300)}`);
            const bound = made.peakBoundMiB ?? 200;
            check(result.peakKiB === undefined || result.peakKiB < bound * 1024, `peak RSS ${Math.round((result.peakKiB ?? 0) / 1024)} MiB, bound ${bound} MiB`);
          });
          if (made.path.startsWith(context.scratch)) rmSync(made.path, { recursive: true, force: true });
        }
      }
    }
  },
};

interface Made {
  readonly label: string;
  readonly path: string;
  readonly args?: string[];
  readonly deadlineMs?: number;
  readonly endless?: boolean;
  readonly peakBoundMiB?: number;
  /** An ID that follows the attack in the input: it must be found (exit 0). */
  readonly expectId?: string;
  /** What explain must say of the input. */
  readonly explained?: RegExp;
}

type Maker = (context: Context, round: number) => Promise<Made>;

const file = (context: Context, name: string, data: string | Buffer): string => {
  const path = join(context.scratch, name);
  writeFileSync(path, data);
  return path;
};

const AGENTS = ["amp", "claude", "codex", "gemini", "opencode", "copilot"];
const FORMATS = ["auto", "cast", "raw", "jsonl", "agentapi-state"];

const CASES: Maker[] = [
  async (c, r) => ({ label: "random bytes", path: file(c, `random-${r}.bin`, randomBytes(c.random, 1 + Math.floor(c.random() * 200_000))), args: ["--format", pick(c.random, FORMATS)] }),
  async (c, r) => {
    // Lone continuation bytes, overlong forms, surrogates, truncated sequences, around ID-like text.
    const bad = [Buffer.from([0x80]), Buffer.from([0xc0, 0xaf]), Buffer.from([0xed, 0xa0, 0x80]), Buffer.from([0xf4, 0x90, 0x80, 0x80]), Buffer.from([0xe2, 0x82])];
    const parts: Buffer[] = [];
    for (let i = 0; i < 2000; i++) parts.push(pick(c.random, bad), Buffer.from(c.random() < 0.1 ? `{"type":"system","session_id":"${uuid(c.random)}"}\n` : "x"));
    return { label: "invalid UTF-8", path: file(c, `utf8-${r}.txt`, Buffer.concat(parts)), args: ["--agent", pick(c.random, AGENTS)] };
  },
  async (c, r) => {
    const line = `{"type":"system","subtype":"init","session_id":"${uuid(c.random)}"}`;
    const withNul = [...line].map((ch) => (c.random() < 0.1 ? `${ch}\0` : ch)).join("");
    return { label: "NUL bytes", path: file(c, `nul-${r}.jsonl`, `\0\0\0\n${withNul}\n${"\0".repeat(100_000)}`), args: ["--agent", "claude"] };
  },
  async (c, r) => {
    // One line with no newline: 200 MB in full mode, a few MB in quick mode.
    const mb = c.count(4, 200);
    const path = join(c.scratch, `long-${r}.txt`);
    const out = createWriteStream(path);
    const chunk = Buffer.alloc(1 << 20, c.random() < 0.5 ? "a" : `session id: ${uuid(c.random)} `);
    for (let i = 0; i < mb; i++) if (!out.write(chunk)) await once(out, "drain");
    out.end();
    await once(out, "finish");
    return { label: `a ${mb} MB line`, path, args: ["--agent", pick(c.random, AGENTS)], deadlineMs: c.count(30_000, 120_000) };
  },
  async (c, r) => {
    const depth = 10_000 + Math.floor(c.random() * 200_000);
    const open = c.random() < 0.5 ? '{"a":' : "[";
    const close = open === "[" ? "]" : "}";
    return { label: `JSON nested ${depth} deep`, path: file(c, `nested-${r}.jsonl`, `${open.repeat(depth)}1${close.repeat(depth)}\n`), args: ["--format", pick(c.random, ["auto", "jsonl", "agentapi-state"])] };
  },
  async (c, r) => {
    const header = { version: 2, width: 67, height: 1190, timestamp: 1_700_000_000, command: "amp" };
    const headers = [
      "not json",
      JSON.stringify({ ...header, version: 3 }),
      JSON.stringify({ ...header, width: "wide" }),
      JSON.stringify({ ...header, height: -5 }),
      JSON.stringify([header]),
      JSON.stringify({ ...header, command: { nested: true } }),
      JSON.stringify(header).slice(0, 20),
      "",
    ];
    const events = [
      JSON.stringify([-1, "o", "hello\r\n"]),
      JSON.stringify(["0.5", "o", "x"]),
      JSON.stringify([0.1, "o", 42]),
      JSON.stringify([0.2, "r", "notasize"]),
      JSON.stringify([Number.MAX_VALUE, "o", `{"type":"result","session_id":"T-${uuid(c.random)}"}\r\n`]),
      JSON.stringify([0.3, "?", "unknown"]),
      JSON.stringify({ t: 1 }),
      '[0.4, "o", "trunc',
      "[1e999,\"o\",\"x\"]",
    ];
    const lines = [c.random() < 0.5 ? JSON.stringify(header) : pick(c.random, headers)];
    for (let i = 0; i < 30; i++) lines.push(pick(c.random, events));
    const text = lines.join("\n");
    const cut = c.random() < 0.3 ? text.slice(0, Math.floor(c.random() * text.length)) : text;
    return { label: "corrupt asciicast", path: file(c, `bad-${r}.cast`, cut), args: ["--format", pick(c.random, ["auto", "cast"])] };
  },
  async (c, r) => {
    const garbage = [
      { messages: "no" },
      { messages: [{ id: "x", role: 5, content: null }] },
      [{ role: "agent", content: { deep: [1, 2, 3] } }],
      { version: 999, messages: [null, 1, "two", [3]] },
      { messages: [{ role: "agent", content: `Resume with: claude --resume ${uuid(c.random)}`, time: -1 }] },
      "just a string",
      null,
    ];
    const body = c.random() < 0.2 ? hex(c.random, 5000) : JSON.stringify(pick(c.random, garbage));
    return { label: "garbage agentapi state", path: file(c, `state-${r}.json`, body), args: ["--format", "agentapi-state", "--agent", pick(c.random, AGENTS)] };
  },
  async (c, r) => {
    // A FIFO with a writer that sends random bytes and closes it.
    const path = join(c.scratch, `fifo-${r}`);
    execFileSync("mkfifo", [path]);
    const source = file(c, `fifo-source-${r}`, randomBytes(c.random, 100_000));
    const writer = spawn("sh", ["-c", 'cat "$1" > "$2"', "sh", source, path], { stdio: "ignore" });
    writer.unref();
    return { label: "a FIFO", path, args: ["--agent", pick(c.random, AGENTS)], deadlineMs: 20_000 };
  },
  async (c, r) => {
    const path = join(c.scratch, `folder-${r}`);
    mkdirSync(path, { recursive: true });
    return { label: "a folder", path, deadlineMs: 20_000 };
  },
  async (c, r) => {
    // One stream-json line whose ID field is nested thousands deep (a recursion once overflowed the
    // stack on it), then a good init line: the reading goes on past it.
    const depth = 1_000 + Math.floor(c.random() * 200_000);
    const [open, close] = pick(c.random, [["[", "]"], ['{"a":', "}"], ['[{"id":', "}]"]] as const);
    const agent = pick(c.random, ["claude", "amp", "codex"] as const);
    const field = agent === "codex" ? "thread_id" : "session_id";
    const shape = agent === "codex" ? '"type":"thread.started"' : '"type":"system","subtype":"init"';
    const id = agent === "amp" ? `T-${uuid(c.random)}` : uuid(c.random);
    const deep = `{${shape},"${field}":${open.repeat(depth)}1${close.repeat(depth)}}\n`;
    const good = `{${shape},"${field}":"${id}"}\n`;
    return { label: `an ID field nested ${depth} deep (${agent})`, path: file(c, `deep-id-${r}.jsonl`, deep.repeat(1 + Math.floor(c.random() * 3)) + good), args: ["--agent", agent], expectId: id };
  },
  async (c, r) => {
    // agentapi's state file of many messages, the ID in the last: streamed, never parsed whole.
    const mb = c.mode === "quick" ? 32 : 64 + Math.floor(c.random() * 137);
    const path = join(c.scratch, `state-big-${r}.json`);
    const id = uuid(c.random);
    const out = createWriteStream(path);
    out.write('{"version":1,"messages":[');
    const text = `${hex(c.random, 900)}\\n${"\\u001b[2m".repeat(Math.floor(c.random() * 4))}screen row ✓\\n`;
    for (let i = 0, size = 0; size < mb * 2 ** 20; i++) {
      const message = `{"id":${i},"message":"${text}","role":"${i % 2 === 0 ? "agent" : "user"}","time":"2026-11-20T09:00:00Z"},`;
      size += message.length;
      if (!out.write(message)) await once(out, "drain");
    }
    out.end(`{"id":-1,"message":"Resume this session with:\\nclaude --resume ${id}","role":"agent"}],"initial_prompt":"x"}\n`);
    await once(out, "finish");
    return { label: `an agentapi state file of ${mb} MB`, path, args: ["--agent", "claude", "--format", pick(c.random, ["auto", "agentapi-state"])], expectId: id, peakBoundMiB: c.mode === "quick" ? 120 : 160, deadlineMs: c.count(30_000, 120_000) };
  },
  async (c, r) => {
    // An event timed past any number (1e400 reads as Infinity) holding the ID: replayed, and said.
    const id = `T-${uuid(c.random)}`;
    const time = pick(c.random, ["1e400", "-1e400", '"0.5"', "null"]);
    const lines = [JSON.stringify({ version: 2, width: 80, height: 24, command: "amp" }), JSON.stringify([0.1, "o", "hello\r\n"]), `[${time},"o",${JSON.stringify(`{"type":"result","session_id":"${id}"}\r\n`)}]`, JSON.stringify([0.2, "o", "bye\r\n"])];
    return { label: `a cast event timed ${time}`, path: file(c, `time-${r}.cast`, `${lines.join("\n")}\n`), args: ["--agent", "amp"], expectId: id, explained: /bad recording event/ };
  },
  async (c) => ({ label: "/dev/zero under a deadline", path: "/dev/zero", args: ["--agent", pick(c.random, AGENTS)], deadlineMs: c.count(3_000, 10_000), endless: true }),
];
