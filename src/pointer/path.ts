import { dirname, isAbsolute, join, resolve } from "node:path";
import { sha256Hex } from "../digest.js";

export interface PointerPathOptions {
  /** The --pointer flag. */
  explicit?: string;
  env: NodeJS.ProcessEnv;
  agent: string;
  cwd: string;
  home: string;
  /** `--key`: one pointer per external conversation (a chat thread) in the same folder. */
  key?: string | undefined;
}

/** Where the pointer lives: flag, env, next to agentapi's state, else the XDG state dir. */
export function resolvePointerPath(o: PointerPathOptions): string {
  const chosen = o.explicit || o.env.SESSIONPIN_POINTER;
  if (chosen) return resolve(o.cwd, chosen);
  const keyed = o.key === undefined ? "" : `-${shortHash(o.key)}`;
  // Under agentapi the pointer travels with agentapi's own state file, so both survive together.
  const agentapiState = o.env.AGENTAPI_STATE_FILE;
  if (agentapiState) {
    return join(dirname(resolve(o.cwd, agentapiState)), `sessionpin-${o.agent}${keyed}.json`);
  }
  return join(pointersHome(o.env, o.home), o.agent, `${shortHash(resolve(o.cwd))}${keyed}.json`);
}

/** Where default pointers live: `$XDG_STATE_HOME/sessionpin`, else ~/.local/state/sessionpin. */
export function pointersHome(env: NodeJS.ProcessEnv, home: string): string {
  // The XDG spec says a relative XDG_STATE_HOME is invalid and must be ignored.
  const xdg = env.XDG_STATE_HOME;
  return join(xdg && isAbsolute(xdg) ? xdg : join(home, ".local", "state"), "sessionpin");
}

/**
 * The lock that says which run drives an agent session, whichever pointer or key named it:
 * under the state folder, never beside a pointer, so that every pointer's run finds it.
 */
export function driverLockPath(env: NodeJS.ProcessEnv, home: string, agent: string, id: string): string {
  return join(pointersHome(env, home), ".drivers", `${agent}-${shortHash(id)}`);
}

/** Hashed so deep paths and free-form keys make short, filesystem-safe names. */
function shortHash(text: string): string {
  return sha256Hex(text).slice(0, 16);
}

/** The session log sits beside its pointer. */
export function defaultLogPath(pointerPath: string): string {
  const stem = pointerPath.endsWith(".json") ? pointerPath.slice(0, -".json".length) : pointerPath;
  return `${stem}.log`;
}
