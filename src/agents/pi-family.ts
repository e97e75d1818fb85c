import { join } from "node:path";
import { callerPick, hasOption, optionValue, positionals, render, tokenize, withoutOptions, type ArgvSpec, type SessionPicks, type Token } from "./argv.js";
import type { DeclarativePlugin } from "./declarative.js";
import type { AgentPlugin, CarryFiles, ColdStart, RunContext, SessionStore } from "./types.js";
import { storeHome } from "../home.js";
import { literal } from "../state/carry-files.js";
import { UUID } from "./grammar.js";

/**
 * What pi (@mariozechner/pi-coding-agent) and its fork omp (@oh-my-pi/pi-coding-agent) share:
 * the session header, the session file names, the `--session-dir`/`--session` resume and the
 * texts of their shared provider layer. Facts seen from pi 0.73.1 and omp 18.2.3 against a fake
 * OpenAI Chat Completions API on 127.0.0.1 (test/interop/omp.interop.ts, pi.interop.ts).
 *
 * Chosen up front by folder: sessionpin gives each of them a session folder of its own, so the
 * only sessions that appear there are ones sessionpin started, and resumes with `--session <id>`
 * (never `-c`, which takes whichever session is newest: two writers on one file).
 */

// pi 0.73.1 and omp 18.2.3 mint UUIDv7 session IDs; older omp builds minted 21-character nanoids.
// A leading `-` is refused: `--session -abc…` would be read as a bare `--session`.
export const SESSION_ID = `(?:${UUID}|[A-Za-z0-9_][A-Za-z0-9_-]{20})`;
const WHOLE_ID = new RegExp(`^${SESSION_ID}$`);

/**
 * `--mode json`, line 1 of stdout in both, before any event:
 * `{"type":"session","version":3,"id":"01a2145a-d031-74f3-…","timestamp":…,"cwd":…}`. Its
 * `parentSession` and every entry's 8-character `id`/`parentId` are never read. Provisional: the
 * session file is written only once the first assistant message exists.
 */
export const SESSION_HEADER: NonNullable<DeclarativePlugin["json"]>[number] = { name: "session-header", field: "id", when: { type: ["session"] }, state: "provisional" };

/**
 * Failures of the provider, printed by `-p` before the process exits 1: they say nothing about
 * the session, which both look up (and refuse) before any request.
 */
export const PROVIDER_FAILURES: readonly string[] = [
  // The HTTP status first, then the provider's own message: pi 0.73.1 and omp 18.2.3 print
  // `401 fake chat API: refused` for a 401 from an OpenAI-compatible API.
  "^(?:Error: )?[45]\\d\\d \\S",
];

/**
 * `--mode json` exits 0 when the provider fails; the turn's end says so. pi 0.73.1 against a 401:
 * `{"type":"turn_end","message":{"role":"assistant",…,"stopReason":"error",…,"errorMessage":"401 …"}}`.
 */
export const TURN_FAILED: readonly string[] = ['^\\{"type":"turn_end",.*"stopReason":"error"'];

/** The session folder sessionpin gives the agent for this working folder, under `~/<dot>/agent/sessionpin`. */
export function familySessionDir(dot: string, context: Pick<RunContext, "home" | "cwd">): string {
  const encoded = context.cwd.replace(/^[/\\]+/, "").replace(/[/\\:]/g, "-");
  return join(context.home, dot, "agent", "sessionpin", `--${encoded}--`);
}

/**
 * The session header among the first lines of a session file. pi 0.73.1 writes it on line 1;
 * omp 18.2.3 writes a fixed-width title line first, the header on line 2:
 *
 *   {"type":"title","v":1,"title":"","updatedAt":"…","pad":"<170 spaces>"}
 *   {"type":"session","version":3,"id":"01a2145a-…","timestamp":"…","cwd":"/work/p"}
 *
 * Lines before it may only be title lines; anything else first means no header.
 */
export function sessionHeaderOf(head: string): Record<string, unknown> | undefined {
  for (const line of head.split("\n", 8)) {
    let entry: unknown;
    try {
      entry = JSON.parse(line);
    } catch {
      return undefined; // a torn first line, or not a session file
    }
    if (typeof entry !== "object" || entry === null) return undefined;
    const type = (entry as Record<string, unknown>)["type"];
    if (type === "session") return entry as Record<string, unknown>;
    if (type !== "title") return undefined;
  }
  return undefined;
}

/** The session files in the folder sessionpin gives the agent: `<ISO time, : and . as ->_<id>.jsonl`. */
export function familyStore(dot: string): SessionStore {
  return {
    rule: "session-file",
    where: (context) => [{ dir: familySessionDir(dot, context), depth: 0 }],
    movedBy: ["--session-dir"],
    name: new RegExp(`^\\d{4}-\\d{2}-\\d{2}T\\d{2}-\\d{2}-\\d{2}-\\d{3}Z_(?<id>${SESSION_ID})\\.jsonl$`),
    wholeId: true,
    belongs(head, context) {
      const header = sessionHeaderOf(head);
      return header !== undefined && header["cwd"] === context.cwd;
    },
  };
}

/**
 * How a session of the family travels: its file, from the folder sessionpin gives the old folder
 * to the one it gives the new. Its header names the folder, and both refuse a session whose folder
 * is not theirs: pi 0.73.1 `Stored session working directory does not exist: /old` (exit 1), omp
 * 18.2.3 `Session "…" belongs to a directory that no longer exists (/old); run interactively to
 * move it into the current project.`; with the header's `"cwd"` made the new folder both resume
 * it (test/interop/carry.interop.ts). omp's title line is rewritten in place: not a turn.
 */
export function familyCarry(dot: string): CarryFiles {
  return {
    kind: "files",
    says: `its session file in the folder sessionpin gives ${dot}/agent/sessionpin/--<folder>--/, moved to the new folder's; the header's folder rewritten (refused otherwise)`,
    root: (context) => familySessionDir(dot, context),
    files: (_id, _root, entry) => [{ path: entry, transcript: true }],
    owns: (path, id) => new RegExp(`^\\d{4}-\\d{2}-\\d{2}T\\d{2}-\\d{2}-\\d{2}-\\d{3}Z_${literal(id)}\\.jsonl$`).test(path),
    folderNames: (cwd) => [cwd],
    notTurn: (line) => line.startsWith('{"type":"title"'),
  };
}

/** A table row: options, and why an invocation with one of them is what it is. */
export interface FamilyOptions {
  readonly names: readonly string[];
  readonly why: string;
}

/** How one member of the family reads its argv. */
export interface FamilyArgv {
  readonly name: string;
  /** The agent's folder under $HOME (`.omp`, `.pi`). */
  readonly dot: string;
  readonly spec: ArgvSpec;
  /** Options that pick a session: dropped from warm starts; in the caller's command, callerSession. */
  readonly sessionPicks: SessionPicks;
  /** Options that make the command open no conversation (help, version, an export). */
  readonly noConversation: readonly FamilyOptions[];
  /** Options of a conversation that cannot be pinned (`--no-session`). */
  readonly unpinned: readonly FamilyOptions[];
  /** `--mode` values whose client drives the agent over stdio and owns the session. */
  readonly protocolModes: readonly string[];
  /** Commands that open no conversation. */
  readonly subcommands: ReadonlySet<string>;
  /** Commands whose conversation belongs to someone else (omp's `acp` client, `join`'s host), and why. */
  readonly foreignCommands?: ReadonlyMap<string, string>;
  /** Whether a subcommand counts only as the very first argument (pi's), not the first word after options (omp's). */
  readonly subcommandFirst: boolean;
  /** A first word that only names the plain start (omp's `launch`). */
  readonly launch?: string;
  /** Whether the agent reads `--` as the end of its options (omp does, pi 0.73.1 does not). */
  readonly separator: boolean;
}

// argv rewriting gets no RunContext (a core gap): the same home and cwd the core builds it from.
const here = (): Pick<RunContext, "home" | "cwd"> => ({ home: storeHome(process.env), cwd: process.cwd() });

/** `-p`/`--print` and `--mode json` answer once and exit (both, in pi 0.73.1 and omp 18.2.3). */
const answersOnce = (tokens: readonly Token[]): boolean => hasOption(tokens, ["-p", "--print"]) || optionValue(tokens, ["--mode"]) === "json";

/** noConversation, unpinned, callerSession, invocation, coldArgs and warmArgs of one member of the family. */
export function familyArgv(f: FamilyArgv): Pick<AgentPlugin, "noConversation" | "unpinned" | "callerSession" | "invocation" | "coldArgs" | "warmArgs"> {
  const parse = (args: readonly string[]) => {
    const tokens = tokenize(args, f.spec);
    const words = positionals(tokens);
    const launch = f.launch !== undefined && words[0] === f.launch;
    const command = launch ? undefined : words[0];
    // `@file` words attach files to the prompt; the rest are messages.
    const messages = words.slice(launch ? 1 : 0).filter((word) => !word.startsWith("@"));
    // The word read as a command: pi reads only its very first argument so.
    const first = f.subcommandFirst ? (args[0] === command ? command : undefined) : command;
    return { tokens, first, messages };
  };
  const why = (tokens: readonly Token[], table: readonly FamilyOptions[]) => table.find(({ names }) => hasOption(tokens, names))?.why;
  /** The user's own `--session-dir`, else the one sessionpin gives the agent. */
  const sessionDir = (tokens: readonly Token[]): string => optionValue(tokens, ["--session-dir"]) ?? familySessionDir(f.dot, here());
  return {
    noConversation(args) {
      const { tokens, first } = parse(args);
      const option = why(tokens, f.noConversation);
      if (option !== undefined) return option;
      return first !== undefined && f.subcommands.has(first) ? `\`${f.name} ${first}\` is a subcommand, not a conversation` : undefined;
    },
    unpinned(args) {
      const { tokens, first } = parse(args);
      const option = why(tokens, f.unpinned);
      if (option !== undefined) return option;
      const foreign = first === undefined ? undefined : f.foreignCommands?.get(first);
      if (foreign !== undefined) return `\`${f.name} ${first}\` ${foreign}`;
      const mode = optionValue(tokens, ["--mode"]);
      if (mode !== undefined && f.protocolModes.includes(mode)) return `\`${f.name} --mode ${mode}\` is driven by its client, which owns the session`;
      return undefined;
    },
    callerSession: (args) => callerPick(parse(args).tokens, f.sessionPicks, WHOLE_ID),
    // `-p`/`--print` and `--mode json` answer once and exit; `@file` words are not the message.
    invocation(args) {
      const { tokens, messages } = parse(args);
      return { message: messages.length > 0 ? messages.join(" ") : undefined, oneShot: answersOnce(tokens) };
    },
    // `<agent> --session-dir <dir> [args…] [prompt]`: first, so a `--` in the user's args cannot
    // swallow it. `-c` goes: in a shared folder it would continue whichever session is newest.
    coldArgs(args, prompt): ColdStart {
      const { tokens, messages } = parse(args);
      const rest = render(withoutOptions(tokens, ["-c", "--continue"]));
      const own = hasOption(tokens, ["--session-dir"]) ? rest : ["--session-dir", sessionDir(tokens), ...rest];
      if (prompt === undefined) return { args: own, promptVia: "pty" };
      if (messages.length > 0) return { args: own, promptVia: "none" };
      // Both send their positional messages as the first prompt, in the TUI and in print/json modes.
      const separated = tokens.some((t) => t.kind === "separator") || (!prompt.startsWith("-") && !prompt.startsWith("@"));
      if (separated) return { args: [...own, prompt], promptVia: "argv" };
      if (f.separator) return { args: [...own, "--", prompt], promptVia: "argv" };
      // pi 0.73.1 has no `--`, and after `-p` or among positionals it takes no word starting with
      // `-` or `@` as a message (dist/cli/args.js). Its TUI gets such a prompt typed. A one-shot
      // run reads nothing typed: 0.73.1's `pi -p --session <id>` with the prompt typed exited 0
      // at once, without a turn, reprinting the session's last answer. So one-shot runs get it
      // with one space in front, which pi sends as it is (it does not trim).
      if (answersOnce(tokens)) return { args: [...own, ` ${prompt}`], promptVia: "argv" };
      return { args: own, promptVia: "pty" };
    },
    // `<agent> [options] --session-dir <dir> --session <id>`: no prompt, no `@file`, no other session pick.
    warmArgs(args, id) {
      const { tokens } = parse(args);
      const picks = [...f.sessionPicks.named, ...(f.sessionPicks.other ?? [])];
      const options = render(withoutOptions(tokens, [...picks, "--session-dir"]).filter((t) => t.kind === "option"));
      return [...options, "--session-dir", sessionDir(tokens), "--session", id];
    },
  };
}
