#!/usr/bin/env node
/**
 * fake-amp: a deterministic, offline stand-in for the Amp CLI (0.0.1790142911's `--help`): the
 * built-in demo agent, and the `amp` that PTY tests put on PATH.
 *   amp threads new               prints <AMP_URL or https://ampcode.com/>threads/<id>
 *   amp threads continue <id|url> interactive on it; unknown → "Error: Thread <id> does not
 *                                 exist." exit 1; no id → exit 2 (real Amp opens a picker)
 *   amp -x [msg] [--stream-json]  one turn on a new (or the continued) thread, message from -x
 *                                 or stdin; Claude-Code-shaped JSON lines, or the answer only
 *   amp                           interactive on a new thread; like real Amp it shows no ID
 *   amp --version (-V, -v)        prints the version line 0.0.1790142911 prints, and nothing else
 * Global options (with their values) may stand anywhere. New IDs are T-<random UUID>, or
 * $FAKE_AMP_NEXT_ID verbatim; FAKE_AMP_OFFLINE=1 fails every thread operation as Amp does.
 * The TUI reads input the way agentapi sends it (`x\b`, a bracketed paste, `\r`) and takes
 * `/exit N`, `/die` (SIGKILL), `/size`, Ctrl-C/Ctrl-D (exit 0). SIGWINCH is logged (and shown in
 * the TUI); INT, HUP, QUIT, USR1, USR2 are logged and ignored; TERM exits 143.
 * State: $FAKE_AMP_HOME, else $HOME/.fake-amp: threads/<id>.json, and events.jsonl where every
 * run logs {pid, argv, event, ...} lines (start, thread-new, message, signal, resize, exit; exit
 * is always logged, except after /die) for tests to check.
 */
import { randomUUID } from "node:crypto";
import { appendFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";

const argv = process.argv.slice(2);
// Touch stdout before any SIGWINCH listener of ours: Node refreshes stdout's columns/rows in a
// SIGWINCH listener it adds on first access, and that one must run first.
const stdout = process.stdout;
const home = process.env.FAKE_AMP_HOME || join(process.env.HOME || homedir(), ".fake-amp");
mkdirSync(join(home, "threads"), { recursive: true });

function log(event: string, fields: Record<string, unknown> = {}): void {
  const line = { pid: process.pid, argv, event, ...fields };
  appendFileSync(join(home, "events.jsonl"), `${JSON.stringify(line)}\n`);
}

// Writes to TTYs, pipes and files are synchronous on Linux, so exiting right away loses nothing.
function finish(code: number): never {
  log("exit", { code });
  process.exit(code);
}

function fail(text: string, code: number): never {
  process.stderr.write(`${text}\n`);
  finish(code);
}

// Global options from `amp --help` that take a value: the value must not be read as a command.
const VALUE_OPTS = new Set(["--visibility", "--settings-file", "--log-level", "--log-file",
  "--mcp-config", "-m", "--mode", "--features", "--executor", "--runner-dir", "--attach",
  "--orb-size", "--title", "-l", "--label"]);
// Options with an optional value: the next arg is theirs unless it is an option or a command.
const OPTIONAL_OPTS = new Set(["-x", "--execute", "--project", "--plugin-ready-timeout"]);
const COMMAND_WORDS = new Set(["threads", "new", "continue", "list", "login", "logout", "tools", "mcp"]);

interface Parsed { words: string[]; execute: boolean; message?: string; streamJson: boolean }

function parse(args: readonly string[]): Parsed {
  const p: Parsed = { words: [], execute: false, streamJson: false };
  const rest = [...args];
  for (let a = rest.shift(); a !== undefined; a = rest.shift()) {
    const eq = a.startsWith("--") ? a.indexOf("=") : -1;
    const name = eq > 0 ? a.slice(0, eq) : a;
    const inline = eq > 0 ? a.slice(eq + 1) : undefined;
    if (!a.startsWith("-")) p.words.push(a);
    else if (name === "--stream-json") p.streamJson = true;
    else if (VALUE_OPTS.has(name)) { if (inline === undefined) rest.shift(); }
    else if (OPTIONAL_OPTS.has(name)) {
      const next = rest[0];
      const takes = next !== undefined && !next.startsWith("-") && !COMMAND_WORDS.has(next);
      const value = inline ?? (takes ? rest.shift() : undefined);
      if (name === "-x" || name === "--execute") { p.execute = true; p.message = value; }
    }
    // Any other option is a flag (--fast, --no-tui, --last, ...): nothing to skip.
  }
  return p;
}

interface Thread { id: string; messages: string[] }

// encodeURIComponent keeps an odd FAKE_AMP_NEXT_ID or argument inside threads/.
const threadPath = (id: string): string => join(home, "threads", `${encodeURIComponent(id)}.json`);
const saveThread = (t: Thread): void => writeFileSync(threadPath(t.id), `${JSON.stringify(t)}\n`);

function requireOnline(): void {
  if (process.env.FAKE_AMP_OFFLINE === "1") fail("Error: Cannot reach Amp servers. Are you offline?", 1);
}

function newThread(): Thread {
  requireOnline();
  const t: Thread = { id: process.env.FAKE_AMP_NEXT_ID || `T-${randomUUID()}`, messages: [] };
  saveThread(t);
  log("thread-new", { id: t.id });
  return t;
}

function continueThread(arg: string | undefined): Thread {
  if (arg === undefined) fail("Error: no thread given (the real amp would open a picker)", 2);
  requireOnline();
  // Amp takes a thread URL (https://ampcode.com/threads/T-…) as well as the bare ID.
  const id = arg.replace(/[?#].*$/, "").replace(/\/+$/, "").split("/").pop() || arg;
  if (!existsSync(threadPath(id))) fail(`Error: Thread ${id} does not exist.`, 1);
  return JSON.parse(readFileSync(threadPath(id), "utf8")) as Thread;
}

function addMessage(t: Thread, text: string): number {
  t.messages.push(text);
  saveThread(t);
  log("message", { thread: t.id, text });
  return t.messages.length;
}

// Fixed IDs keep runs byte-identical. The answer names IDs that are NOT the thread (a message id,
// a bare UUID, a T- look-alike) to catch capture code that scans text instead of `session_id`.
const MESSAGE_ID = "M-3c9e5b1a-7f42-4d0e-9a61-5b8d2e7c4f10";
const TOOL_USE_ID = "TU-8a41f0d2-6c3b-4e95-b7d8-1f2a9c6e0b57";
const answer = (n: number): string =>
  `Noted (${n} messages in this thread). Stored as ${MESSAGE_ID}; build 5e2d7c90-1b4a-4f38-` +
  `8c6e-a09f3d2b7e14 and the old thread T-7b0d2f64-9e1c-4a53-8f27-c4e6a1d95b38 are unrelated.`;

function readStdin(): Promise<string> {
  return new Promise((resolve) => {
    let text = "";
    process.stdin.setEncoding("utf8");
    process.stdin.on("data", (chunk: string) => (text += chunk));
    // `echo "$PROMPT" | amp -x` adds one newline that is not part of the prompt.
    process.stdin.on("end", () => resolve(text.replace(/\r?\n$/, "")));
  });
}

async function execute(t: Thread, message: string | undefined, streamJson: boolean): Promise<never> {
  const prompt = message ?? (await readStdin());
  if (prompt === "") fail("Error: execute mode needs a message (after -x or on stdin)", 2);
  const n = addMessage(t, prompt);
  const text = answer(n);
  const sid = { session_id: t.id };
  // Field order follows Amp's published example (which is Claude Code's stream-json shape).
  const lines = !streamJson ? [text] : [
    { type: "system", subtype: "init", cwd: process.cwd(), ...sid, tools: ["Bash", "Read", "oracle"], mcp_servers: [] },
    { type: "user", message: { role: "user", content: [{ type: "text", text: prompt }] }, parent_tool_use_id: null, ...sid },
    { type: "assistant", message: { type: "message", id: MESSAGE_ID, role: "assistant",
      content: [{ type: "text", text }, { type: "tool_use", id: TOOL_USE_ID, name: "Read", input: { path: "README.md" } }],
      stop_reason: "end_turn", usage: { input_tokens: 1200, output_tokens: 42 } }, parent_tool_use_id: null, ...sid },
    { type: "result", subtype: "success", duration_ms: 1500, is_error: false, num_turns: n, result: text, ...sid },
  ].map((event) => JSON.stringify(event));
  stdout.write(`${lines.join("\n")}\n`);
  return finish(0);
}

const PASTE_START = "\x1b[200~";
const PASTE_END = "\x1b[201~";
// One token: a paste marker, another CSI sequence (arrow keys, focus reports), or one character.
const TOKEN = /\x1b\[20[01]~|\x1b\[[0-?]*[ -/]*[@-~]|[\s\S]/gu;
let pending = ""; // an escape sequence or paste marker split across reads
let buffer = ""; // the message being typed
let pasting = false;
let tui = false; // only the TUI reports resizes: in execute mode it would corrupt the JSON lines

const show = (s: string): void => void stdout.write(s.replace(/\r?\n/g, "\r\n"));
const size = (): [number, number] => stdout.isTTY
  ? stdout.getWindowSize() : [stdout.columns ?? 0, stdout.rows ?? 0];

function screen(t: Thread): string {
  const width = 44;
  const edge = (row: number, l: string, r: string): string =>
    `\x1b[${row};1H\x1b[36m${l}${"─".repeat(width - 2)}${r}\x1b[0m`;
  const text = (row: number, style: string, s: string): string =>
    `\x1b[${row};1H\x1b[36m│\x1b[0m ${style}${s.padEnd(width - 4)}\x1b[0m \x1b[36m│\x1b[0m`;
  const state = t.messages.length === 0 ? "new thread" : `continued, ${t.messages.length} messages`;
  // Earlier messages are shown again so that a resumed demo visibly remembers them.
  const history = t.messages.map((m) => `> ${m}\n`).join("");
  return "\x1b[2J\x1b[H" + edge(1, "╭", "╮") + text(2, "\x1b[1;35m", "Amp (fake)") +
    text(3, "\x1b[2m", state) + text(4, "", "Type a message, Enter sends") + edge(5, "╰", "╯") +
    "\x1b[7;1H" + history;
}

function insert(s: string): void {
  buffer += s;
  show(s);
}

function erase(): void {
  if (buffer === "") return;
  buffer = [...buffer].slice(0, -1).join("");
  show("\b \b");
}

function submit(t: Thread): void {
  const text = buffer;
  buffer = "";
  const exit = /^\/exit (\d+)$/.exec(text);
  if (exit) finish(Number(exit[1]));
  else if (text === "/die") process.kill(process.pid, "SIGKILL");
  else if (text === "/size") show(`\r\nsize ${size().join("x")}\r\n`);
  else if (text !== "") {
    const n = addMessage(t, text);
    show(`\r\n> ${text}\r\nAmp: noted (${n} messages in this thread)\r\n`);
  }
}

function key(t: Thread, c: string): void {
  if (c === "\r" || c === "\n") submit(t);
  else if (c === "\x7f" || c === "\b") erase();
  else if (c === "\x03" || c === "\x04") finish(0);
  else if (c >= " ") insert(c); // other control characters and escape sequences are dropped
}

function feed(t: Thread, chunk: string): void {
  // agentapi's paste markers (like any escape sequence) may be split across reads: hold back an
  // unfinished one until the rest arrives.
  const all = pending + chunk;
  const cut = /\x1b(\[[0-?]*[ -/]*)?$/.exec(all)?.index ?? all.length;
  pending = all.slice(cut);
  for (const [token] of all.slice(0, cut).matchAll(TOKEN)) {
    if (token === PASTE_START || token === PASTE_END) pasting = token === PASTE_START;
    else if (pasting) insert(token);
    else key(t, token);
  }
}

function interactive(t: Thread): void {
  tui = true;
  if (process.stdin.isTTY) process.stdin.setRawMode(true);
  show(screen(t));
  process.stdin.setEncoding("utf8");
  process.stdin.on("data", (chunk: string) => feed(t, chunk));
  process.stdin.on("end", () => finish(0));
  // A hung-up PTY fails reads and writes with EIO: leave instead of crashing on it.
  process.stdin.on("error", () => finish(1));
  stdout.on("error", () => finish(1));
}

function watchSignals(): void {
  process.on("SIGWINCH", () => {
    const [cols, rows] = size();
    log("resize", { cols, rows });
    if (tui) show(`resized ${cols}x${rows}\r\n`);
  });
  for (const signal of ["SIGINT", "SIGHUP", "SIGQUIT", "SIGUSR1", "SIGUSR2"] as const) {
    process.on(signal, () => log("signal", { signal }));
  }
  process.on("SIGTERM", () => {
    log("signal", { signal: "SIGTERM" });
    finish(143);
  });
}

function threadsNew(): never {
  const t = newThread();
  const base = (process.env.AMP_URL || "https://ampcode.com/").replace(/\/*$/, "/");
  stdout.write(`${base}threads/${t.id}\n`);
  return finish(0);
}

// What 0.0.1790142911-g7618fb prints for --version, -V and -v: its build, its release time, and
// how long ago that was, floored to one unit (s, m, h, d, mo of 30 days, y of 12 months; a clock
// before the release says 0s). Measured with libfaketime at 1s, 58m, 23h, 29d, 11mo, 2y and the
// steps between, not guessed.
const VERSION = "0.0.1790142911-g7618fb";
const RELEASED = "2026-09-23T05:55:11.000Z";

function releasedAgo(now: number): string {
  const s = Math.max(0, Math.floor((now - Date.parse(RELEASED)) / 1000));
  const m = Math.floor(s / 60);
  const h = Math.floor(m / 60);
  const d = Math.floor(h / 24);
  const mo = Math.floor(d / 30);
  if (s < 60) return `${s}s`;
  if (m < 60) return `${m}m`;
  if (h < 24) return `${h}h`;
  if (d < 30) return `${d}d`;
  return mo < 12 ? `${mo}mo` : `${Math.floor(mo / 12)}y`;
}

async function main(): Promise<void> {
  log("start");
  // Amp answers these before anything else: no thread, no state of its own.
  if (argv.some((a) => a === "--version" || a === "-V" || a === "-v")) {
    stdout.write(`${VERSION} (released ${RELEASED}, ${releasedAgo(Date.now())} ago)\n`);
    finish(0);
  }
  watchSignals();
  const p = parse(argv);
  const [command, sub, target] = p.words;
  let thread: Thread;
  if (command === undefined) thread = newThread();
  else if (command === "threads" && sub === "new") threadsNew();
  else if (command === "threads" && sub === "continue") thread = continueThread(target);
  else fail(`Error: fake amp knows only 'threads new' and 'threads continue', not '${p.words.join(" ")}'`, 2);
  if (p.execute) await execute(thread, p.message, p.streamJson);
  interactive(thread);
}

main().catch((error: unknown) => fail(`fake amp: ${String(error)}`, 1));
