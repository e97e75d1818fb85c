import { dirname, isAbsolute, join, resolve } from "node:path";
import { sha256Hex } from "../digest.js";
import { requireHome } from "../home.js";

export interface PointerPathOptions {
  /** The --pointer flag. */
  explicit?: string;
  env: NodeJS.ProcessEnv;
  agent: string;
  cwd: string;
  home: string | undefined;
  /** `--key`: one pointer per external conversation (a chat thread) in the same folder. */
  key?: string | undefined;
}

/**
 * Where the pointer lives: flag, env, next to agentapi's state, else the XDG state dir. A key
 * names its own file in each of them: a bridge that sets SESSIONPIN_POINTER once and passes each
 * chat thread's key would otherwise resume one thread's session for every other.
 */
export function resolvePointerPath(o: PointerPathOptions): string {
  const keyed = o.key === undefined ? "" : `-${shortHash(o.key)}`;
  const chosen = o.explicit || o.env.SESSIONPIN_POINTER;
  if (chosen) {
    const path = resolve(o.cwd, chosen);
    return path.endsWith(".json") ? `${path.slice(0, -".json".length)}${keyed}.json` : `${path}${keyed}`;
  }
  // Under agentapi the pointer travels with agentapi's own state file, so both survive together.
  const agentapiState = o.env.AGENTAPI_STATE_FILE;
  if (agentapiState) {
    return join(dirname(resolve(o.cwd, agentapiState)), besideAgentapiState(o.agent, o.key));
  }
  return join(pointersHome(o.env, o.home), o.agent, `${shortHash(resolve(o.cwd))}${keyed}.json`);
}

/**
 * The pointer's name beside agentapi's state file, `sessionpin-<agent>[-<key hash>].json`: also
 * what the diagnostics look for in Coder's module folders (module-dirs.ts), by this one rule.
 */
export function besideAgentapiState(agent: string, key: string | undefined): string {
  return `sessionpin-${agent}${key === undefined ? "" : `-${shortHash(key)}`}.json`;
}

/** Where default pointers live: `$XDG_STATE_HOME/sessionpin`, else ~/.local/state/sessionpin. */
export function pointersHome(env: NodeJS.ProcessEnv, home: string | undefined): string {
  // The XDG spec says a relative XDG_STATE_HOME is invalid and must be ignored.
  const xdg = env.XDG_STATE_HOME;
  return join(xdg && isAbsolute(xdg) ? xdg : join(requireHome(home, "XDG_STATE_HOME (or --pointer)"), ".local", "state"), "sessionpin");
}

/**
 * The lock that says which run drives an agent session, whichever pointer or key named it:
 * under the state folder, never beside a pointer, so that every pointer's run finds it.
 */
export function driverLockPath(env: NodeJS.ProcessEnv, home: string | undefined, agent: string, id: string): string {
  return join(pointersHome(env, home), ".drivers", `${agent}-${shortHash(id)}`);
}

/**
 * Hashed so deep paths and free-form keys make short, filesystem-safe names; `sessions` matches
 * them to list one folder's or one key's pointers without reading the others.
 */
export function shortHash(text: string): string {
  return sha256Hex(text).slice(0, 16);
}

/** The session log sits beside its pointer. */
export function defaultLogPath(pointerPath: string): string {
  const stem = pointerPath.endsWith(".json") ? pointerPath.slice(0, -".json".length) : pointerPath;
  return `${stem}.log`;
}
