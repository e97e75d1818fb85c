import { userInfo } from "node:os";
import { isAbsolute } from "node:path";
import { SessionpinError } from "./errors.js";

/**
 * The user's home folder: $HOME when it is an absolute path, else the passwd entry's. Undefined
 * for a container run under a uid with neither (`docker run --user 12345`), where os.homedir()
 * throws; an empty or relative HOME would put state under whatever folder a run starts in.
 */
export function homeOf(env: NodeJS.ProcessEnv): string | undefined {
  const home = env["HOME"];
  if (home !== undefined && isAbsolute(home)) return home;
  try {
    const entry = userInfo().homedir;
    return isAbsolute(entry) ? entry : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Where agents keep their own stores (~/.claude, ~/.codex…): with no home there are none to find,
 * and passwd's convention for a user without a home names a folder that is not there.
 */
export function storeHome(env: NodeJS.ProcessEnv): string {
  return homeOf(env) ?? "/nonexistent";
}

/** A home the caller cannot do without, or a one-line error naming what to set instead. */
export function requireHome(home: string | undefined, instead: string): string {
  if (home !== undefined) return home;
  throw new SessionpinError("usage", `sessionpin: no home folder (HOME is not an absolute path and user ${process.getuid?.() ?? "?"} has none in passwd): set HOME or ${instead}`);
}
