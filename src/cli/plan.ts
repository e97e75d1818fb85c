import type { Decision, UnpinnedPlan } from "../run/plan.js";
import { SessionpinError } from "../errors.js";
import { jsonForTerminal } from "../explain/escape.js";
import { fingerprint } from "../run/messages.js";
import { AGENT_OPTIONS, agentName, checkedName, choosePlugin, parseWithCommand, runPrompt, userPlugins } from "./options.js";
import { nextStart } from "../run/next-start.js";
import { pointerHere } from "./running.js";

export const PLAN_USAGE = `Usage: sessionpin plan [options] -- <agent> [args…]

Runs nothing. Prints what \`sessionpin run\` would do, as one JSON object, decided by the same code:
{"mode":"cold"|"warm"|"given"|"unpinned"|"repeat"|"refused","agent":…,"pointer":…,"key":…?,"id":…|null,
 "reason":…,"argv":[…],"steps":[{"step":"upfront","argv":[…]}?,{"step":"launch","argv":[…]}],
 "deliver":{"what":"task"|"follow-up"|"resume-prompt","via":"pty"|"argv"|"none","sha256":…}|null,
 "chosen":…?,"setsAside":"unused"|"corrupt"|"gone"?,"heldBy":{"pid":…,"host":…,"startedAt":…}?}
"given": the command already opens its own session (--resume X, --continue, threads continue X): run
starts it as given and pins the session it runs in. "unpinned" with "conversation":false: the command
opens no conversation (--version, a subcommand); a shim runs it straight, without a PTY.
"repeat": a one-shot run whose message the session already had, and no --resume-prompt: run starts
nothing and exits 4 ("argv" is null).
With an up-front step (Amp's \`threads new\`), the launch resumes the ID it prints: "{id}" in argv
stands for it, and "ifUpfrontFails" is launched when it fails. "heldBy": a live run holds the
pointer's lock now; while it does, run exits 75 at once (or, with --wait-lock, waits) and only
then does the above. Exit 0; 3 when run would refuse the
pointer (mode "refused", as run exits 3).

Options: --agent NAME, --plugin FILE, --pointer PATH, --key NAME, --prompt TEXT, --prompt-file PATH,
--resume-prompt TEXT, --message-id ID, --aider-restore-history, -h, --help (as for run; each also from SESSIONPIN_<OPTION>, e.g. SESSIONPIN_KEY);
--json (its output is JSON with or without it, as every command's with it). A one-shot command with
no message in argv takes stdin as its message, as run does.`;

export const PLAN_OPTIONS = { ...AGENT_OPTIONS, json: { type: "boolean" } } as const;

/** Stands for the ID an up-front step prints, in the launch argv `plan` shows. */
const UPFRONT_ID = "{id}";

export async function planCommand(argv: readonly string[]): Promise<number> {
  const { values, command } = parseWithCommand(argv, PLAN_OPTIONS, PLAN_USAGE);
  if (values.help) {
    process.stdout.write(`${PLAN_USAGE}\n`);
    return 0;
  }
  const [executable, ...args] = command;
  if (executable === undefined) throw new SessionpinError("usage", `sessionpin plan: no agent command given\n${PLAN_USAGE}`);
  const env = process.env;
  const cwd = process.cwd();
  const user = await userPlugins(values.plugin, env, cwd);
  for (const problem of user.problems) process.stderr.write(`sessionpin: ${problem} (skipped)\n`);
  const plugin = choosePlugin(values.agent, executable, user.plugins.map((u) => u.plugin));
  const agent = agentName(plugin, executable);
  const { pointer, why } = await pointerHere({ explicit: values.pointer, agent, env, cwd, key: values.key });
  if (why !== undefined) process.stderr.write(`sessionpin: ${why}\n`);
  // As run reads it: for a one-shot command with no message in argv, stdin is the message.
  const prompt = (await runPrompt(values, plugin, args)).text;
  const messageId = checkedName("message-id", values["message-id"]);
  const { decision, heldBy } = await nextStart({
    agent: { command: executable, args, plugin, cwd, env, restoreHistory: values["aider-restore-history"] === true },
    message: { prompt, resumePrompt: values["resume-prompt"], messageId },
    pointer: { path: pointer, explicit: values.pointer !== undefined || Boolean(env["SESSIONPIN_POINTER"]) },
  });
  // "mode" first: start scripts match the line's start (`'{"mode":"cold"'*`).
  const { mode, ...rest } = described(executable, decision, messageId);
  process.stdout.write(`${jsonForTerminal({ mode, agent, pointer, ...(values.key === undefined ? {} : { key: values.key }), ...rest, ...(heldBy === undefined ? {} : { heldBy }) })}\n`);
  return decision.mode === "refused" ? decision.error.exitCode : 0;
}

function described(executable: string, decision: Decision | UnpinnedPlan, messageId: string | undefined): Record<string, unknown> {
  if (decision.mode === "refused") return { mode: "refused", id: null, reason: decision.reason };
  if (decision.mode === "repeat") return { mode: "repeat", id: decision.id, reason: decision.reason, argv: null, steps: [], deliver: null };
  const id = decision.mode === "unpinned" ? null : decision.id;
  const upfront = decision.mode === "unpinned" ? undefined : decision.upfront;
  const launch = [executable, ...(upfront === undefined ? decision.args : upfront.launch(UPFRONT_ID))];
  const delivers = decision.mode === "unpinned" ? (decision.prompt === undefined ? undefined : { kind: "task", sha256: fingerprint(decision.prompt, messageId) }) : decision.delivers;
  return {
    mode: decision.mode,
    id,
    reason: decision.reason,
    argv: launch,
    steps: [
      ...(upfront === undefined ? [] : [{ step: "upfront", argv: [executable, ...upfront.args] }]),
      { step: "launch", argv: launch, ...(upfront === undefined ? {} : { ifUpfrontFails: [executable, ...decision.args] }) },
    ],
    deliver: delivers === undefined ? null : { what: delivers.kind, via: decision.promptVia, sha256: delivers.sha256 },
    ...(decision.mode === "unpinned" ? { conversation: decision.conversation } : {}),
    ...(decision.mode !== "unpinned" && decision.chosen !== undefined ? { chosen: decision.chosen } : {}),
    ...(decision.mode !== "unpinned" && decision.setsAside !== undefined ? { setsAside: decision.setsAside } : {}),
  };
}
