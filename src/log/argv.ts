/**
 * An agent's command line as the log shows it: the executable and the names of options, every
 * other word as "…". Prompts (`claude -p "…"`), API keys (`--api-key sk-…`) and tokens in URLs are
 * words of it, and the log is a file that outlives the run: it held them whole. With
 * SESSIONPIN_LOG_ARGV=1 (an interop test, a bug report) the words are logged as they are.
 */
export function argvForLog(argv: readonly string[], env: NodeJS.ProcessEnv = process.env): string {
  return JSON.stringify(wordsForLog(argv, env));
}

/**
 * The same as one line a shell could read, for a recording's header (`amp -x --mode …`): a
 * recording made without --record-input holds nothing typed, and its header held the prompt.
 */
export function commandForLog(argv: readonly string[], env: NodeJS.ProcessEnv = process.env): string {
  return wordsForLog(argv, env).map((word) => (/^[\w@%+=:,./…-]+$/.test(word) ? word : JSON.stringify(word))).join(" ");
}

function wordsForLog(argv: readonly string[], env: NodeJS.ProcessEnv): string[] {
  if (/^(1|true|yes)$/i.test(env["SESSIONPIN_LOG_ARGV"] ?? "")) return [...argv];
  const end = argv.indexOf("--");
  return argv.map((word, i) => (i === 0 ? word : end > 0 && i > end ? HIDDEN : shown(word)));
}

const HIDDEN = "…";

function shown(word: string): string {
  if (word === "--" || /^--?[A-Za-z0-9][\w-]*$/.test(word) && (word.startsWith("--") || word.length === 2)) return word;
  // --name=value, and a short option with its value glued on (-pVALUE).
  const long = /^(--[A-Za-z0-9][\w-]*)=/.exec(word);
  if (long) return `${long[1]}=${HIDDEN}`;
  if (/^-[A-Za-z0-9]./.test(word)) return `${word.slice(0, 2)}${HIDDEN}`;
  return HIDDEN;
}
