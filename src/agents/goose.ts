import { callerPick, hasOption, optionValue, positionals, render, tokenize, type ArgvSpec, type Token } from "./argv.js";
import type { AgentPlugin } from "./types.js";
import { UUID } from "./grammar.js";

/**
 * Goose (Block). Facts from ../shared/agents.md and goose's own source and docs (goose-cli
 * cli.rs, session/builder.rs, session/output.rs, docs/guides/goose-cli-commands.md).
 * Sessions live in a SQLite file (no file per session to watch), so only a resume banner confirms.
 */

// Session IDs: YYYYMMDD_N (>= 1.10), YYYYMMDD_HHMMSS before. sessionpin names new sessions
// `sessionpin-<random UUID>` (`-n`), which no goose ID and no user's own name looks like.
const GOOSE_ID = "\\d{8}_\\d+";
const NAME_PREFIX = "sessionpin-";
const NAME = `${NAME_PREFIX}${UUID}`;
const ID = `${GOOSE_ID}|${NAME}`;
// goose 1.0 (January 2025) named a new session's file with 8 random lower-case letters and digits
// (goose-cli commands/session.rs of that time, `random_session_name()`), and resumed a session by
// that name (`goose session --resume --name <name>`, its CLI docs of that time). Such a name is
// taken only from the file paths goose printed (`logging to`, `Recorded to`): any 8-letter word
// elsewhere would pass for one.
const FILE_NAME = "[a-z0-9]{8}";
const STEM = `${ID}|${FILE_NAME}`;
const GRAMMAR = new RegExp(`^(?:${STEM})$`);
// The IDs `--session-id` takes (>= 1.10): a day and a number. A file's stem of earlier goose
// (`20250320_014129`, a random name, sessionpin's own name) is resumed by `-n`, which later goose
// also resolves to a session of that name or ID.
const NUMBERED = /^\d{8}_\d{1,5}$/;

const IDENTIFIER = ["-n", "--name", "--session-id", "--id", "--path", "-p"];
const RESUME = ["-r", "--resume", "--fork"];
const INPUT = ["-i", "--instructions", "-t", "--text", "--recipe"];
// Options `goose session` accepts as well as `goose run`: all a `run` keeps when it is resumed.
const SHARED = ["--debug", "--max-tool-repetitions", "--max-turns", "--container", "--with-extension",
  "--with-remote-extension", "--with-streamable-http-extension", "--with-builtin", "--no-profile"];
const ARGV: ArgvSpec = {
  values: [...IDENTIFIER, ...INPUT, "--system", "--params", "--sub-recipe", "--with-extension", "--with-remote-extension",
    "--with-streamable-http-extension", "--with-builtin", "--max-tool-repetitions", "--max-turns", "--container",
    "--provider", "--model", "--output-format", "--scheduled-job-id"],
};
// clap's `-h, --help` and `-V, --version` (cli.rs `#[command(version)]`; `-v` is `info`'s
// `--verbose`); `run --explain` and `--render-recipe` print the recipe and exit.
const NO_CONVERSATION = ["--explain", "--render-recipe", "-h", "--help", "-V", "--version"];
// `goose session` has the alias `s` (cli.rs `visible_alias = "s"`).
const SESSION = ["session", "s"];

interface GooseArgs {
  readonly tokens: Token[];
  /** `session`, `run`, or undefined for bare `goose` (an interactive session). */
  readonly command: string | undefined;
  /** Words after the command: `session list` and the like. */
  readonly rest: string[];
}

function parse(args: readonly string[]): GooseArgs {
  const tokens = tokenize(args, ARGV);
  const [command, ...rest] = positionals(tokens);
  return { tokens, command, rest };
}

const options = (tokens: readonly Token[], keep: (name: string) => boolean): Token[] =>
  tokens.filter((token) => token.kind === "option" && keep(token.name));

const beforeSeparator = (args: readonly string[], extra: readonly string[]): string[] => {
  const at = args.indexOf("--");
  return at < 0 ? [...args, ...extra] : [...args.slice(0, at), ...extra, ...args.slice(at)];
};

// What a resumed `goose run` leaves behind: the session it named and the input it ran.
const NOT_AGAIN = [...IDENTIFIER, ...RESUME, ...INPUT, "--params", "--sub-recipe", "--explain", "--render-recipe"];

/** `goose run` answers and exits, unless `-s/--interactive` keeps it open after its input. */
const oneShot = (command: string | undefined, tokens: readonly Token[]): boolean => command === "run" && !hasOption(tokens, ["-s", "--interactive"]);

export const goose: AgentPlugin = {
  name: "goose",
  names: ["goose"],
  grammar: GRAMMAR,
  // `goose run --output-format stream-json` events carry no session ID.
  json: [],
  text: [
    // goose banner, on stdout before the first prompt (`resuming session |` when resumed):
    //   starting session | provider: openai model: gpt-4o
    //       session id: 20260222_9
    //       working directory: /home/coder/project
    // A resumed banner means goose found the session: confirmed. The two rows are matched as one.
    { name: "banner-resumed", pattern: new RegExp(`resuming session \\|.*?\\ssession id:\\s*(?<id>${ID})`), state: "confirmed" },
    { name: "banner", pattern: new RegExp(`^\\s*session id:\\s*(?<id>${ID})`), state: "provisional" },
    // goose <= 1.0 named the session file instead (public terminal logs of 2025-03 and 2025-05;
    // `resuming session |` when resumed, then goose had found the file):
    //   starting session | provider: google model: gemini-2.0-flash-lite-001
    //       logging to /Users/me/.local/share/goose/sessions/20250320_014129.jsonl
    { name: "banner-resumed", pattern: new RegExp(`resuming session \\|.*?\\slogging to .*/sessions/(?<id>${STEM})\\.jsonl$`), state: "confirmed" },
    { name: "banner", pattern: new RegExp(`^\\s*logging to .*/sessions/(?<id>${STEM})\\.jsonl$`), state: "provisional" },
    // Newer goose (session/output.rs) prints a status line and the ID on the row below:
    //   ● new session · openai gpt-4o          (`● resuming · …` when resumed)
    //     20260222_9 · /home/coder/project
    { name: "status-resumed", pattern: new RegExp(`● resuming · .*?\\s(?<id>${GOOSE_ID})`), state: "confirmed" },
    { name: "status", pattern: new RegExp(`● new session · .*?\\s(?<id>${GOOSE_ID})`), state: "provisional" },
    // The closing line when the interactive session ends (`exit`, Ctrl-D), at column 0, the ID cyan:
    //   ( O)> exit
    //   Closing session. Session ID: 20260609_3                       goose with numbered IDs
    //   Closing session. Recorded to /Users/me/.local/share/goose/sessions/20250404_150526.jsonl
    //                                                                 goose <= 1.0: the file's stem
    // (session/mod.rs `println!("Closing session. Session ID: {}", style(&self.session_id).cyan())`;
    // a public RHEL walkthrough and public goose 1.0 terminal logs print them so). A name given
    // with `-n` was the file's stem before numbered IDs: `sessionpin-<uuid>.jsonl` is taken too.
    { name: "closing", pattern: new RegExp(`^Closing session\\. Session ID: (?<id>${ID})$`), state: "provisional" },
    { name: "closing", pattern: new RegExp(`^Closing session\\. Recorded to \\S*/(?<id>${STEM})\\.jsonl$`), state: "provisional" },
  ],
  rejected: [
    /Cannot resume session .*no such session exists/,
    /Cannot resume - no previous sessions found/,
    /No session found with name/,
    /No session found to resume/,
    // `goose run --resume --name <unknown>` warns and starts a NEW session instead (agents.md):
    // that is a refusal of the stored ID, not a resume.
    /^(?=.*\bsession\b)(?=.*\b(?:not found|does not exist|doesn't exist|no such session)\b)(?=.*\b(?:new session|starting (?:a )?new|creat(?:e|ed|ing) (?:a )?new)\b)/i,
  ],
  // No provider or model configured: nothing to do with the session, the pointer stays.
  transient: [/No provider configured/, /No model configured/, /run 'goose configure' again/],
  noConversation(args) {
    const { tokens, command, rest } = parse(args);
    if (hasOption(tokens, NO_CONVERSATION)) return "`goose --help/--version/--explain/--render-recipe` opens no conversation";
    if (command !== undefined && !SESSION.includes(command) && command !== "run") return `\`goose ${command}\` is a subcommand, not a conversation`;
    return command !== "run" && rest.length > 0 ? `\`goose ${command} ${rest[0]}\` is a subcommand, not a conversation` : undefined;
  },
  unpinned: (args) => (hasOption(parse(args).tokens, ["--no-session"]) ? "`goose run --no-session` keeps no session" : undefined),
  // `-r/--resume` resumes the session that `-n/--name`, `--session-id` or `--path` names, else the
  // last one (cli.rs, goose's CLI docs); without it, only `--session-id` names one that exists
  // (goose mints the IDs). A name is the ID only when the grammar takes it (sessionpin's own
  // `sessionpin-<uuid>`, or a goose ID); `--fork` copies the session to a new one.
  callerSession(args) {
    const { tokens } = parse(args);
    const resume = tokens.find((t) => t.kind === "option" && (t.name === "-r" || t.name === "--resume"));
    const pick = callerPick(tokens, { named: resume === undefined ? ["--session-id", "--id"] : IDENTIFIER, fork: ["--fork"] }, GRAMMAR);
    if (resume?.kind !== "option") return pick;
    return { ...pick, via: [...resume.words, ...(pick === undefined ? [] : [pick.via])].join(" ") };
  },
  // `-i FILE` and recipes are not read: their message is not in argv.
  invocation(args) {
    const { tokens, command } = parse(args);
    return { message: command === "run" ? optionValue(tokens, ["-t", "--text"]) || undefined : undefined, oneShot: oneShot(command, tokens) };
  },
  // `goose run` needs its input in argv (-i/-t/--recipe); `goose session` reads it from the TUI.
  coldArgs(args, prompt) {
    const { tokens, command } = parse(args);
    if (command !== "run" || prompt === undefined) return { args: [...args], promptVia: "pty" };
    if (hasOption(tokens, INPUT)) return { args: [...args], promptVia: "none" };
    return { args: beforeSeparator(args, ["-t", prompt]), promptVia: "argv" };
  },
  // The name is chosen, the ID is goose's: the banner's ID replaces the name in the pointer (the
  // name stays in its history), and either resumes the session.
  chooseId(args, fresh) {
    const { tokens, command } = parse(args);
    if (hasOption(tokens, [...IDENTIFIER, ...RESUME])) return undefined;
    const name = `${NAME_PREFIX}${fresh}`;
    return { id: name, args: command === undefined ? ["session", "-n", name] : beforeSeparator(args, ["-n", name]) };
  },
  // `goose session -r`; a one-shot `goose run` stays one (`goose run -r -n <name>`, to which
  // coldArgs adds `-t MSG`: goose's CLI docs, unverified here). Its input (`--instructions`
  // file, `-t` text, recipe) is the task prompt, which must not be sent again.
  warmArgs(args, id) {
    const { tokens, command } = parse(args);
    const which = NUMBERED.test(id) ? ["--session-id", id] : ["-n", id];
    if (oneShot(command, tokens)) return ["run", ...render(options(tokens, (name) => !NOT_AGAIN.includes(name))), "-r", ...which];
    const kept = command === "run"
      ? options(tokens, (name) => SHARED.includes(name))
      : options(tokens, (name) => !IDENTIFIER.includes(name) && !RESUME.includes(name));
    return ["session", "-r", ...which, ...render(kept)];
  },
  // Not carried: goose 1.x keeps every session in one SQLite database with its working_dir
  // (~/.local/share/goose/sessions/sessions.db, its docs); goose does not install here.
  carry: { kind: "none", says: "not carried: its sessions live in one SQLite database (~/.local/share/goose/sessions/sessions.db, per its docs), not proven movable here (goose does not install here)" },
};
