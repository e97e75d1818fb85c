import { createHash } from "node:crypto";
import { dirname, isAbsolute, join, resolve } from "node:path";

export interface PointerPathOptions {
  /** The --pointer flag. */
  explicit?: string;
  env: NodeJS.ProcessEnv;
  agent: string;
  cwd: string;
  home: string;
}

/** Where the pointer lives: flag, env, next to agentapi's state, else the XDG state dir. */
export function resolvePointerPath(o: PointerPathOptions): string {
  const chosen = o.explicit || o.env.SESSIONPIN_POINTER;
  if (chosen) return resolve(o.cwd, chosen);
  // Under agentapi the pointer travels with agentapi's own state file, so both survive together.
  const agentapiState = o.env.AGENTAPI_STATE_FILE;
  if (agentapiState) {
    return join(dirname(resolve(o.cwd, agentapiState)), `sessionpin-${o.agent}.json`);
  }
  // The XDG spec says a relative XDG_STATE_HOME is invalid and must be ignored.
  const xdg = o.env.XDG_STATE_HOME;
  const stateHome = xdg && isAbsolute(xdg) ? xdg : join(o.home, ".local", "state");
  return join(stateHome, "sessionpin", o.agent, `${cwdHash(resolve(o.cwd))}.json`);
}

/** One pointer per working directory; hashed so deep paths make short, filesystem-safe names. */
function cwdHash(cwd: string): string {
  return createHash("sha256").update(cwd).digest("hex").slice(0, 16);
}

/** The session log sits beside its pointer. */
export function defaultLogPath(pointerPath: string): string {
  const stem = pointerPath.endsWith(".json") ? pointerPath.slice(0, -".json".length) : pointerPath;
  return `${stem}.log`;
}
