import { systemClock } from "../clock.js";
import { SessionpinError } from "../errors.js";
import { fileLogger } from "../log/logger.js";
import { defaultLogPath } from "../pointer/path.js";
import { resolveExecutable } from "../pty/which.js";
import { spawnAgent } from "../pty/host.js";
import { ptyModule } from "../pty/native.js";
import { chooseTransport, PipedOuter, spawnPiped } from "../pty/pipes.js";
import { OuterTerminal, type OuterSide } from "../pty/terminal.js";
import { commandForLog } from "../log/argv.js";
import { CastRecorder, RECORD_MODES } from "../record/asciicast.js";
import { LineFile } from "../record/line-file.js";
import { Notifier, notifyUrls } from "../notify/webhook.js";
import { recordingSink, traceSink, webhookSink } from "../run/report.js";
import { runSession } from "../run/session.js";
import { agentName, checkedName, choosePlugin, parseWithCommand, pointerPathFor, RUN_OPTIONS, runPrompt, seconds, userPlugins } from "./options.js";

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
  --prompt-file PATH        the same, read from a file (\`-\`: stdin)
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
  --pty, --no-pty           run the agent in a PTY, or on pipes (env SESSIONPIN_PTY=1/0); default:
                            a PTY when sessionpin's stdout is a terminal (a person's, agentapi's),
                            pipes otherwise (stdout and stderr apart, stdin the agent's own)
  --on-lost fresh|fail      a warm one-shot run whose session is gone or refused: start a new
                            session, with one line on stderr (fresh, the default), or start none and
                            exit 5 (fail) (env SESSIONPIN_ON_LOST)
  -h, --help                show this help

One-shot runs (claude -p, codex exec, amp -x, gemini -p, opencode run…) resume their session with
the message in their argv, or on stdin when their argv has none (\`echo MSG | sessionpin run --
claude -p\`). A message the session already had (a retried step: the session's last message, by
text; or, by --message-id, one of its last 50) is not sent again: with no --resume-prompt the agent
is not started, and run exits 4.`;


// A spinner that never stops must not hold the prompt back forever.
const PROMPT_MAX_WAIT_MS = 20_000;

/** What a caller other than the command line (a shim) hears of the run. */
export interface RunHooks {
  /** The agent was started: from here on, a failure of sessionpin's is no reason to start it again. */
  readonly onStart?: () => void;
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
  const onLost = ON_LOST.find((choice) => choice === (values["on-lost"] ?? "fresh"));
  if (onLost === undefined) throw new SessionpinError("usage", `sessionpin run: --on-lost ${String(values["on-lost"])}: expected ${ON_LOST.join(" or ")}`);
  const transport = chooseTransport(values.pty, values["no-pty"], process.stdout.isTTY === true);
  if (transport === "pty") ptyModule();
  // The agent's own calls of agents by name (a sub-agent, a tool) are not pinned again: a shim
  // that sees this runs the real agent straight (src/shim/script.ts).
  const env: NodeJS.ProcessEnv = { ...process.env, SESSIONPIN_RUN_PID: String(process.pid) };
  const cwd = process.cwd();
  const piped = transport === "pipes" ? new PipedOuter() : undefined;
  const outer: OuterSide = piped ?? new OuterTerminal();
  // Typed input is read from here on, so nothing typed before the agent is up gets lost. Piped
  // input waits until it is known whether it is the run's message.
  const typed = process.stdin.isTTY === true;
  if (typed) outer.open();
  try {
    resolveExecutable(executable, env, cwd);
    const user = await userPlugins(values.plugin, env, cwd);
    const plugin = choosePlugin(values.agent, executable, user.plugins.map((u) => u.plugin));
    // Every value is checked before a file is opened: a usage error must not cut an earlier
    // run's trace or recording.
    const prompt = await runPrompt(values, plugin, args);
    const checked = {
      waitLockMs: seconds("wait-lock", values["wait-lock"], 0),
      fallbackWindowMs: seconds("fallback-window", values["fallback-window"], 15),
      promptQuietMs: seconds("prompt-quiet", values["prompt-quiet"], 1.5),
      messageId: checkedName("message-id", values["message-id"]),
    };
    if (!typed) outer.open();
    const urls = notifyUrls(values.notify, env);
    const pointerPath = pointerPathFor(values.pointer, agentName(plugin, executable), env, cwd, values.key);
    const log = fileLogger(values.log ?? defaultLogPath(pointerPath));
    // Reported in the log, not on the screen: a bad plugin file never stops the agent.
    for (const problem of user.problems) log.warn(`${problem} (skipped)`);
    const size = outer.size();
    const record = values.record === undefined ? undefined : CastRecorder.open(values.record, {
      width: size.cols,
      height: size.rows,
      command: commandForLog(command),
      // Only what a player needs: other variables can hold secrets.
      env: Object.fromEntries(["TERM", "SHELL"].flatMap((name) => (env[name] ? [[name, env[name]]] : []))),
    }, { log, withInput: values["record-input"] === true, mode: recordMode });
    const trace = values.trace === undefined ? undefined : LineFile.open(values.trace, log);
    const notifier = new Notifier(urls, log);
    try {
      return await runSession({
        agent: { command: executable, args, plugin, cwd, env, restoreHistory: values["aider-restore-history"] === true },
        message: { prompt: prompt.text, resumePrompt: values["resume-prompt"], messageId: checked.messageId },
        pointer: { path: pointerPath, explicit: values.pointer !== undefined || Boolean(env["SESSIONPIN_POINTER"]), key: values.key },
        talk: {
          terminal: outer,
          promptQuietMs: checked.promptQuietMs,
          promptMaxWaitMs: PROMPT_MAX_WAIT_MS,
          spawn: (agentArgv, options) => {
            const agent = piped === undefined ? spawnAgent(agentArgv, options) : spawnPiped(agentArgv, { ...options, stdin: prompt.fromStdin ? "ignore" : "inherit", outer: piped });
            hooks.onStart?.();
            return agent;
          },
        },
        report: {
          log,
          sinks: [
            ...(record !== undefined ? [recordingSink(record)] : []),
            ...(trace !== undefined ? [traceSink(trace)] : []),
            ...(notifier.enabled ? [webhookSink(notifier, { cwd, pointer: pointerPath, key: values.key }, () => new Date())] : []),
          ],
        },
        policy: { waitLockMs: checked.waitLockMs, fallbackWindowMs: checked.fallbackWindowMs, onLost },
        time: { clock: systemClock, now: () => new Date() },
      });
    } finally {
      record?.close();
      trace?.close();
      // Bounded: agentapi sends SIGKILL 5 s after its SIGINT.
      await notifier.settled();
      log.close();
    }
  } finally {
    await outer.flush();
    outer.close();
  }
}

const ON_LOST = ["fresh", "fail"] as const;
