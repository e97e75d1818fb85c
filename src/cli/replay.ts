import { pluginNamed, pluginNames } from "../agents/registry.js";
import { errnoCode, EXIT, reasonOf, SessionpinError } from "../errors.js";
import { jsonForTerminal } from "../explain/escape.js";
import { formatTrace } from "../explain/format.js";
import { replay, type ReplayResult } from "../replay/replay.js";
import { parallelReader } from "../fast/replay/reader.js";
import { FORMATS, openSource, type Format, type Source } from "../replay/sources.js";
import { choosePlugin, flagError, fromEnvironment, userPlugins } from "./options.js";
import { parseArgs } from "node:util";

const COMMON = `Options:
  --agent NAME     the agent (default: from a cast's command, else every plugin is tried)
  --format F       auto (default), cast (asciicast v2 or v3), raw (PTY bytes, e.g. a \`script\` typescript), jsonl
                   (--stream-json / --json output) or agentapi-state (agentapi's saved conversation)
  --width N        terminal width the output was made for (default: the cast's), to rejoin
                   rows the terminal wrapped
  --plugin FILE    load a user plugin (repeatable)`;

const TAIL = `  -h, --help       show this help
  FILE… or -       recordings to read (- is stdin)`;

const FROM_ENV = "Every option can also come from SESSIONPIN_<OPTION> (--format → SESSIONPIN_FORMAT); the command line wins.";

export const REPLAY_USAGE = `Usage: sessionpin replay [options] FILE…|-

Runs recorded agent output through the same capture pipeline and plugins as \`run\` and prints,
per file: agent, ID, provisional/confirmed, the rule that took it, line, byte offset and time in
the recording. A file over 64 MiB shows a progress line on stderr when it is a terminal. Exit 0
when every file gave an ID, 1 when one gave none, 2 on a usage error or when a file could not be
read (one line on stderr; the other files are still replayed).

${COMMON}
  --json           one JSON object per file
  --jobs N         threads that read one large file at once (default: one per CPU, up to 8,
                   each with 16 MB or more); used for one agent's JSON rules
${TAIL}

${FROM_ENV}`;

export const EXPLAIN_USAGE = `Usage: sessionpin explain [options] FILE…|-

Shows, line by line, every line a rule looked at and the outcome: taken (provisional or
confirmed), or refused and why (grammar mismatch, look-alike field, superseded by a later ID,
wrong agent, line too long, invalid JSON), and a recording line that is no event ("bad recording
event"). Exit codes as replay.

${COMMON}
  --json           one JSON object per event, with its "file"
  --jobs N         accepted as for replay; explain reads every line, on one thread
${TAIL}

${FROM_ENV}`;

export const REPLAY_OPTIONS = {
  agent: { type: "string" },
  format: { type: "string" },
  width: { type: "string" },
  jobs: { type: "string" },
  plugin: { type: "string", multiple: true },
  json: { type: "boolean" },
  help: { type: "boolean", short: "h" },
} as const;

const PROGRESS_FROM_BYTES = 64 * 1024 * 1024;

export const replayCommand = (argv: readonly string[]): Promise<number> => command(argv, false);
export const explainCommand = (argv: readonly string[]): Promise<number> => command(argv, true);

async function command(argv: readonly string[], explain: boolean): Promise<number> {
  const usage = explain ? EXPLAIN_USAGE : REPLAY_USAGE;
  let parsed;
  try {
    parsed = parseArgs({ args: [...argv], options: REPLAY_OPTIONS, allowPositionals: true, strict: true });
  } catch (error) {
    throw flagError(error, usage);
  }
  const values = fromEnvironment(parsed.values, REPLAY_OPTIONS);
  const files = parsed.positionals;
  if (values.help) {
    process.stdout.write(`${usage}\n`);
    return EXIT.ok;
  }
  if (files.length === 0) throw new SessionpinError("usage", `sessionpin: no recording given\n${usage}`);
  const format = (values.format ?? "auto") as Format | "auto";
  if (format !== "auto" && !FORMATS.includes(format)) {
    throw new SessionpinError("usage", `sessionpin: --format ${format}: expected auto, ${FORMATS.join(", ")}`);
  }
  const width = values.width === undefined ? undefined : Number(values.width);
  if (width !== undefined && !(Number.isInteger(width) && width > 0)) throw new SessionpinError("usage", `sessionpin: --width ${values.width}: expected a whole number of columns`);
  const jobs = values.jobs === undefined ? undefined : Number(values.jobs);
  if (jobs !== undefined && !(Number.isInteger(jobs) && jobs > 0 && jobs <= 256)) throw new SessionpinError("usage", `sessionpin: --jobs ${values.jobs}: expected a whole number from 1 to 256`);
  const reader = parallelReader(jobs);
  const user = await userPlugins(values.plugin, process.env, process.cwd());
  for (const problem of user.problems) process.stderr.write(`sessionpin: ${problem} (skipped)\n`);
  const extra = user.plugins.map((u) => u.plugin);
  const agent = values.agent === undefined ? undefined : choosePlugin(values.agent, values.agent, extra);
  const plugins = pluginNames(extra).map((name) => pluginNamed(name, extra)).filter((p) => p !== undefined);
  const color = process.stdout.isTTY === true && !process.env["NO_COLOR"];
  let found = true;
  let failed = false;
  for (const file of files) {
    let shown: Progress | undefined;
    try {
      const source = await openSource(file, format);
      const progress = (shown = new Progress(file, source));
      const result = await replay(source, {
        ...(agent ? { agent } : {}),
        plugins,
        ...(width !== undefined ? { width } : {}),
        ...(reader !== undefined ? { reader } : {}),
        ...(explain ? { trace: (event) => void progress.out(`${values.json ? jsonForTerminal({ file, ...event }) : formatTrace(event, color)}\n`) } : {}),
      });
      found &&= result.id !== null;
      if (!explain || !values.json) progress.out(`${values.json ? jsonForTerminal({ file, ...result }) : summary(file, result)}\n`);
    } catch (error) {
      // One file that cannot be read (missing, a folder, not a recording) is one line; the others
      // are still replayed, and the exit code says that one failed.
      if (!(error instanceof SessionpinError) && errnoCode(error) === undefined) throw error;
      shown?.clear();
      failed = true;
      process.stderr.write(`${error instanceof SessionpinError ? error.message : `sessionpin: cannot read ${file}: ${reasonOf(error)}`}\n`);
    } finally {
      shown?.stop();
    }
  }
  return failed ? EXIT.usage : found ? EXIT.ok : EXIT.failure;
}

function summary(file: string, r: ReplayResult): string {
  if (r.id === null) return `${file}: no ID found (${r.format}${r.agent ? `, agent ${r.agent}` : ", no plugin matched"})`;
  // An ID from a cast's marker (Amp's up-front thread) has a time but no line or byte.
  const at = [r.line !== null ? `line ${r.line}` : "", r.offset !== null ? `byte ${r.offset}` : "", r.time !== null ? `${r.time.toFixed(2)} s into the recording` : ""].filter(Boolean).join(", ");
  return `${file}: ${r.agent} ${r.id} ${r.state} (rule ${r.rule}, ${at}; ${r.format})`;
}

/**
 * A progress line on stderr for large inputs, when stderr is a terminal: shown at once, updated
 * twice a second, and taken off the screen before anything goes to stdout, which is often the
 * same terminal; written over, the result line once ran on from the end of "42% (…)".
 */
class Progress {
  readonly #timer: NodeJS.Timeout | undefined;
  #shown = false;

  constructor(
    private readonly file: string,
    private readonly source: Source,
  ) {
    const size = source.size;
    if (!process.stderr.isTTY || size === undefined || size < PROGRESS_FROM_BYTES) return;
    this.#show(size);
    this.#timer = setInterval(() => this.#show(size), 500);
  }

  /** Writes `text` to stdout, the progress line out of its way. */
  out(text: string): void {
    this.clear();
    process.stdout.write(text);
  }

  clear(): void {
    if (this.#shown) process.stderr.write("\r\x1b[K");
    this.#shown = false;
  }

  stop(): void {
    clearInterval(this.#timer);
    this.clear();
  }

  #show(size: number): void {
    const done = this.source.bytesRead();
    process.stderr.write(`\r\x1b[K${this.file}: ${Math.floor((done / size) * 100)}% (${(done / 1e6).toFixed(0)} of ${(size / 1e6).toFixed(0)} MB)`);
    this.#shown = true;
  }
}
