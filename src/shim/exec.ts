import { choosePlugin, fromEnvironment, RUN_OPTIONS, userPlugins } from "../cli/options.js";
import { runCommand } from "../cli/run.js";
import { reasonOf } from "../errors.js";
import { historyFileExists } from "../run/inputs.js";
import { whyUnpinned } from "../run/plan.js";
import { runDirect } from "./direct.js";

/**
 * A shim's call (`sessionpin shim exec NAME REAL [args…]`, as the shim script makes it): the real
 * agent `real`, through `sessionpin run` with the options the environment gives (SESSIONPIN_*,
 * AGENTAPI_STATE_FILE), or straight when the call opens no conversation (`amp --version`, `claude
 * mcp list`: no PTY, no pointer). Whatever keeps sessionpin from starting the agent (a bad
 * SESSIONPIN_* value, a pointer in use by another run, no PTY) is one line on stderr, and the
 * agent runs straight: a shim never stops an agent from starting.
 */
export async function shimExec(name: string, real: string, args: readonly string[]): Promise<number> {
  const env = process.env;
  const cwd = process.cwd();
  try {
    const values = fromEnvironment({}, RUN_OPTIONS, env);
    const user = await userPlugins(values.plugin, env, cwd);
    const plugin = choosePlugin(values.agent, name, user.plugins.map((loaded) => loaded.plugin));
    // Nothing to pin, and nothing run would add (a prompt to type, Aider's history flag): the
    // agent needs no PTY of ours either (an ACP client's JSON-RPC must reach it unchanged).
    const why = whyUnpinned(plugin, name, args);
    const adds = why?.conversation === true && (values.prompt !== undefined || values["prompt-file"] !== undefined || (values["aider-restore-history"] === true && historyFileExists(plugin, cwd)));
    if (why !== undefined && !adds) return await runDirect(real, args);
  } catch (error) {
    return withoutSessionpin(name, real, args, error);
  }
  let started = false;
  try {
    return await runCommand(["--", real, ...args], { onStart: () => (started = true) });
  } catch (error) {
    if (started) throw error;
    return withoutSessionpin(name, real, args, error);
  }
}

function withoutSessionpin(name: string, real: string, args: readonly string[], error: unknown): Promise<never> {
  const reason = reasonOf(error).replace(/^sessionpin: /, "").split("\n", 1)[0];
  process.stderr.write(`sessionpin: ${reason}; starting ${name} without sessionpin\n`);
  return runDirect(real, args);
}
