import { randomUUID } from "node:crypto";
import { readPointer } from "../pointer/store.js";
import { planStart, refuseNewer } from "../resume/plan.js";
import { SessionpinError } from "../errors.js";
import { AGENT_OPTIONS, choosePlugin, parseWithCommand, pointerPathFor, readPrompt, userPlugins } from "./options.js";

export const PLAN_USAGE = `Usage: sessionpin plan [options] -- <agent> [args…]

Runs nothing. Prints what \`sessionpin run\` would start, as one JSON object:
{"mode":"cold"|"warm","agent":…,"id":…|null,"argv":[…],"pointer":…}

Options: --agent NAME, --plugin FILE, --pointer PATH, --prompt TEXT, --prompt-file PATH,
--resume-prompt TEXT, -h/--help (as for run)`;

export async function planCommand(argv: readonly string[]): Promise<number> {
  const { values, command } = parseWithCommand(argv, AGENT_OPTIONS, PLAN_USAGE);
  if (values.help) {
    process.stdout.write(`${PLAN_USAGE}\n`);
    return 0;
  }
  const [executable, ...args] = command;
  if (executable === undefined) throw new SessionpinError("usage", `sessionpin plan: no agent command given\n${PLAN_USAGE}`);
  const user = await userPlugins(values.plugin, process.env, process.cwd());
  for (const problem of user.problems) process.stderr.write(`sessionpin: ${problem} (skipped)\n`);
  const plugin = choosePlugin(values.agent, executable, user.plugins.map((u) => u.plugin));
  if (plugin === undefined) {
    throw new SessionpinError("unknown-agent", `sessionpin plan: no plugin for ${JSON.stringify(executable)}; use --agent NAME`);
  }
  const cwd = process.cwd();
  const pointer = pointerPathFor(values.pointer, plugin.name, process.env, cwd);
  const read = await readPointer(pointer);
  refuseNewer(pointer, read);
  const plan = planStart(plugin, args, read, {
    cwd,
    prompt: readPrompt(values),
    resumePrompt: values["resume-prompt"],
    fresh: randomUUID,
  });
  const result = { mode: plan.mode, agent: plugin.name, id: plan.id, argv: [executable, ...plan.args], pointer };
  process.stdout.write(`${JSON.stringify(result)}\n`);
  return 0;
}
