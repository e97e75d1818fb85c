import { systemClock } from "../clock.js";
import { SessionpinError } from "../errors.js";
import { fileLogger } from "../log/logger.js";
import { defaultLogPath } from "../pointer/path.js";
import { resolveExecutable } from "../pty/which.js";
import { OuterTerminal } from "../pty/terminal.js";
import { CastRecorder, RECORD_MODES } from "../record/asciicast.js";
import { LineFile } from "../record/line-file.js";
import { Notifier, notifyUrls } from "../notify/webhook.js";
import { runSession, type SessionOptions } from "../resume/session.js";
import { agentName, checkedName, choosePlugin, parseWithCommand, pointerPathFor, readPrompt, RUN_OPTIONS, seconds, userPlugins } from "./options.js";

export const RUN_USAGE = `Usage: sessionpin run [options] -- <agent> [args…]

Runs the agent in a PTY, invisibly, and pins its session ID; the next start resumes it.

Options:
  --agent NAME              plugin to use (default: chosen by the agent's executable name)
  --plugin FILE             load a user plugin (JSON; repeatable); every *.json in
                            \${XDG_CONFIG_HOME:-~/.config}/sessionpin/plugins/ is loaded too
  --pointer PATH            pointer file (env SESSIONPIN_POINTER; default beside
                            $AGENTAPI_STATE_FILE, else $XDG_STATE_HOME/sessionpin/<agent>/<cwd hash>.json)
  --key NAME                one pinned session per external conversation (a chat thread, a PR, a
                            ticket) in the same folder (env SESSIONPIN_KEY); kept in the pointer
  --log PATH                log file (default: the pointer's path with .log)
  --prompt TEXT             task prompt, delivered on a cold start only (env SESSIONPIN_PROMPT);
                            for a one-shot run, its message when its argv has none
  --prompt-file PATH        the same, read from a file
  --resume-prompt TEXT      delivered on warm starts that bring no new message of their own, the
                            way the agent takes a prompt (env SESSIONPIN_RESUME_PROMPT)
  --message-id ID           a one-shot run's message is this ID (a chat platform's), not its text:
                            the same text under another ID is a new message (env SESSIONPIN_MESSAGE_ID)
  --wait-lock SECS          wait this long for another sessionpin run on the same pointer to end
                            (default 0: refuse at once, exit 75)
  --fallback-window SECS    for an agent whose words for an unknown session are not known (Amp,
                            Goose, Kiro): a warm start that fails within this time counts as a
                            rejected ID (default 15)
  --prompt-quiet SECS       type the prompt once the agent's output was quiet this long (default 1.5)
  --record FILE.cast        record what the agent prints as an asciicast v2 file (0600)
  --record-input            record typed input too (it can hold secrets; the log warns)
  --record-mode MODE        when FILE.cast exists (a restart): append (default; a marker event
                            where each run begins), overwrite, or refuse (record nothing)
  --notify URL              POST pin events (captured, confirmed, resumed, rejected, changed) as
                            JSON; repeatable (env SESSIONPIN_NOTIFY, space-separated)
  --trace FILE              write the explain trace (one JSON object per line a rule looked at) live
  --aider-restore-history   for agents without session IDs (Aider): add their restore-history
                            flag (--restore-chat-history) when their history file exists
  -h, --help                show this help

One-shot runs (claude -p, codex exec, amp -x, gemini -p, opencode run…) resume their session with
the message in their argv. A message the session already had (a retried step; one of its last 50
by text, or by --message-id) is not sent again: with no --resume-prompt the agent is not started,
and run exits 4.`;


// A spinner that never stops must not hold the prompt back forever.
const PROMPT_MAX_WAIT_MS = 20_000;

/** How a caller other than the command line (a shim) starts the agent. */
export interface RunHooks {
  readonly spawn?: SessionOptions["spawn"];
}

export async function runCommand(argv: readonly string[], hooks: RunHooks = {}): Promise<number> {
  const { values, command } = parseWithCommand(argv, RUN_OPTIONS, RUN_USAGE);
  if (values.help) {
    process.stdout.write(`${RUN_USAGE}\n`);
    return 0;
  }
  const [executable, ...args] = command;
  if (executable === undefined) throw new SessionpinError("usage", `sessionpin run: no agent command given\n${RUN_USAGE}`);
  const recordMode = RECORD_MODES.find((mode) => mode === (values["record-mode"] ?? "append"));
  if (recordMode === undefined) throw new SessionpinError("usage", `sessionpin run: --record-mode ${String(values["record-mode"])}: expected ${RECORD_MODES.join(", ")}`);
  // The agent's own calls of agents by name (a sub-agent, a tool) are not pinned again: a shim
  // that sees this runs the real agent straight (src/shim/script.ts).
  const env: NodeJS.ProcessEnv = { ...process.env, SESSIONPIN_RUN_PID: String(process.pid) };
  const cwd = process.cwd();
  // Input is read from here on, so nothing typed before the agent is up gets lost.
  const terminal = new OuterTerminal();
  terminal.open();
  try {
    resolveExecutable(executable, env, cwd);
    // Every value is checked before a file is opened: a usage error must not cut an earlier
    // run's trace or recording.
    const checked = {
      waitLockMs: seconds("wait-lock", values["wait-lock"], 0),
      prompt: readPrompt(values),
      fallbackWindowMs: seconds("fallback-window", values["fallback-window"], 15),
      promptQuietMs: seconds("prompt-quiet", values["prompt-quiet"], 1.5),
      messageId: checkedName("message-id", values["message-id"]),
    };
    const urls = notifyUrls(values.notify, env);
    const user = await userPlugins(values.plugin, env, cwd);
    const plugin = choosePlugin(values.agent, executable, user.plugins.map((u) => u.plugin));
    const pointerPath = pointerPathFor(values.pointer, agentName(plugin, executable), env, cwd, values.key);
    const log = fileLogger(values.log ?? defaultLogPath(pointerPath));
    // Reported in the log, not on the screen: a bad plugin file never stops the agent.
    for (const problem of user.problems) log.warn(`${problem} (skipped)`);
    const size = terminal.size();
    const record = values.record === undefined ? undefined : CastRecorder.open(values.record, {
      width: size.cols,
      height: size.rows,
      command: command.map((word) => (/^[\w@%+=:,./-]+$/.test(word) ? word : JSON.stringify(word))).join(" "),
      // Only what a player needs: other variables can hold secrets.
      env: Object.fromEntries(["TERM", "SHELL"].flatMap((name) => (env[name] ? [[name, env[name]]] : []))),
    }, { log, withInput: values["record-input"] === true, mode: recordMode });
    const trace = values.trace === undefined ? undefined : LineFile.open(values.trace, log);
    const notifier = new Notifier(urls, log);
    try {
      return await runSession({
        command: executable,
        args,
        plugin,
        pointerPath,
        explicitPointer: values.pointer !== undefined || Boolean(env["SESSIONPIN_POINTER"]),
        key: values.key,
        ...checked,
        resumePrompt: values["resume-prompt"],
        promptMaxWaitMs: PROMPT_MAX_WAIT_MS,
        restoreHistory: values["aider-restore-history"] === true,
        cwd,
        env,
        terminal,
        log,
        ...(record !== undefined ? { record } : {}),
        ...(trace !== undefined ? { trace } : {}),
        ...(notifier.enabled ? { notifier } : {}),
        clock: systemClock,
        now: () => new Date(),
        ...(hooks.spawn !== undefined ? { spawn: hooks.spawn } : {}),
      });
    } finally {
      record?.close();
      trace?.close();
      // Bounded: agentapi sends SIGKILL 5 s after its SIGINT.
      await notifier.settled();
      log.close();
    }
  } finally {
    await terminal.flush();
    terminal.close();
  }
}
