import { readdirSync, readFileSync } from "node:fs";
import { basename } from "node:path";

/** A running process as /proc shows it; `env` only when readable (same user). */
export interface ProcessInfo {
  readonly pid: number;
  readonly argv: readonly string[];
  readonly env?: Readonly<Record<string, string>>;
}

/** An `agentapi server` process and what it was told. */
export interface AgentapiServer {
  readonly pid: number;
  /** `--type`/`-t`, else AGENTAPI_TYPE from its environment; undefined when neither. */
  readonly type: string | undefined;
  readonly typeFrom: "flag" | "env" | undefined;
  /** The agent command after agentapi's flags (`sessionpin run … -- amp …`). */
  readonly command: readonly string[];
}

/** Every process of this machine we may read (Linux /proc); empty elsewhere or on any error. */
export function listProcesses(proc = "/proc"): ProcessInfo[] {
  let pids: number[];
  try {
    pids = readdirSync(proc).filter((name) => /^\d+$/.test(name)).map(Number);
  } catch {
    return [];
  }
  const found: ProcessInfo[] = [];
  for (const pid of pids) {
    const argv = nulSeparated(`${proc}/${pid}/cmdline`);
    if (argv === undefined || argv.length === 0) continue;
    const environ = nulSeparated(`${proc}/${pid}/environ`);
    const env = environ && Object.fromEntries(environ.map((entry) => {
      const eq = entry.indexOf("=");
      return eq < 0 ? [entry, ""] : [entry.slice(0, eq), entry.slice(eq + 1)];
    }));
    found.push({ pid, argv, ...(env ? { env } : {}) });
  }
  return found;
}

function nulSeparated(path: string): string[] | undefined {
  try {
    return readFileSync(path, "utf8").split("\0").filter((part, i, all) => part !== "" || i < all.length - 1);
  } catch {
    // Gone, or another user's: neither is ours to judge.
    return undefined;
  }
}

// agentapi server's flags that take a value (cmd/server/server.go); the rest are booleans.
const VALUE_FLAGS = new Set(["--type", "-t", "--port", "-p", "--chat-base-path", "-c", "--term-width", "-W",
  "--term-height", "-H", "--allowed-hosts", "-a", "--allowed-origins", "-o", "--initial-prompt", "-I"]);

/**
 * The `agentapi server` processes among `processes`. Also found behind an interpreter or sudo
 * (`sh ./agentapi server …`): the word `agentapi` may be argv[0] or argv[1].
 */
export function agentapiServers(processes: readonly ProcessInfo[]): AgentapiServer[] {
  const servers: AgentapiServer[] = [];
  for (const p of processes) {
    const at = [0, 1].find((i) => basename(p.argv[i] ?? "") === "agentapi" && p.argv[i + 1] === "server");
    if (at === undefined) continue;
    const parsed = parseServerArgs(p.argv.slice(at + 2));
    const envType = p.env?.["AGENTAPI_TYPE"] || undefined;
    const type = parsed.type ?? envType;
    servers.push({ pid: p.pid, type, typeFrom: parsed.type !== undefined ? "flag" : envType !== undefined ? "env" : undefined, command: parsed.command });
  }
  return servers;
}

function parseServerArgs(args: readonly string[]): { type: string | undefined; command: string[] } {
  let type: string | undefined;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] as string;
    if (arg === "--") return { type, command: args.slice(i + 1) };
    if (!arg.startsWith("-")) return { type, command: args.slice(i) };
    const eq = arg.indexOf("=");
    const name = eq > 0 ? arg.slice(0, eq) : arg;
    let value = eq > 0 ? arg.slice(eq + 1) : undefined;
    // cobra's glued short form: -tamp
    if (value === undefined && /^-[a-zA-Z]./.test(arg) && VALUE_FLAGS.has(arg.slice(0, 2))) {
      if (arg.slice(0, 2) === "-t") type = arg.slice(2);
      continue;
    }
    if (value === undefined && VALUE_FLAGS.has(name)) value = args[++i];
    if (name === "--type" || name === "-t") type = value;
  }
  return { type, command: [] };
}

/** Whether an agentapi command starts sessionpin (directly, or through npx). */
export function runsSessionpin(command: readonly string[]): boolean {
  const words = basename(command[0] ?? "") === "npx" ? command.slice(1).filter((w) => !w.startsWith("-")) : command;
  return basename(words[0] ?? "") === "sessionpin";
}

/** The agent executable in `sessionpin run [options] -- <agent> …`, when there is a `--`. */
export function agentOfSessionpin(command: readonly string[]): string | undefined {
  const at = command.indexOf("--");
  return at < 0 ? undefined : command[at + 1];
}
