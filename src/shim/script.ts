/**
 * The text of one shim: a POSIX sh script named like the agent's executable. It is sh, not Node,
 * so that finding the real agent costs no interpreter start, and so that the agent still starts
 * when sessionpin cannot run (removed, a broken install, no Node).
 */

/** A shim's second line: how every shim, of any folder, knows another one (and never runs it as the agent). */
export const SHIM_MARK = "# sessionpin-shim";

/** What a shim stands for: an agent run through sessionpin, or agentapi (see agentapiShim). */
export interface ShimTarget {
  /** The executable name, as callers type it (`amp`, `cursor-agent`). */
  readonly name: string;
  /** The folder the shim is written to: put first on PATH for the agentapi shim's children. */
  readonly dir: string;
  /** The Node and the sessionpin entry (dist/bin/main.js) that `shim install` ran with. */
  readonly node: string;
  readonly main: string;
  readonly version: string;
}

/** Quoted for sh: single quotes, and `'\''` for a quote inside. */
export function shQuote(text: string): string {
  return `'${text.replaceAll("'", `'\\''`)}'`;
}

// Finds the real executable: the first `$name` on PATH that is a regular executable file and not a
// shim. The mark is read from the file, not judged by folder: the shim folder on PATH twice, a
// link to a shim, or another shim folder are all skipped, so shims never run each other in a loop.
// An empty PATH entry is the current folder, as for sh itself; the colon added keeps a trailing
// one, which field splitting would drop. `read` stops at the second newline.
const FIND_REAL = `real=
set -f
IFS=:
entries=$PATH:
for dir in $entries; do
  [ -n "$dir" ] || dir=.
  candidate=$dir/$name
  [ -f "$candidate" ] && [ -x "$candidate" ] || continue
  mark=
  { IFS= read -r _ && IFS= read -r mark; } < "$candidate" 2>/dev/null
  case $mark in ${shQuote(SHIM_MARK)} | ${shQuote(`${SHIM_MARK} `)}*) continue ;; esac
  real=$candidate
  break
done
unset IFS
set +f
if [ -z "$real" ]; then
  printf 'sessionpin shim: %s: no %s on PATH after the shims in %s\\n' "$name" "$name" "$here" >&2
  exit 127
fi
# \`SESSIONPIN_SHIM=which\`: name the real executable and stop (\`sessionpin shim list\` asks so).
if [ "\${SESSIONPIN_SHIM-}" = which ]; then
  printf '%s\\n' "$real"
  exit 0
fi`;

function header(target: ShimTarget, what: string): string {
  return `#!/bin/sh
${SHIM_MARK} ${target.name}
# Written by \`sessionpin shim install\` (sessionpin ${target.version}). ${what}
# \`sessionpin shim remove ${target.name}\` deletes it.
name=${shQuote(target.name)}
here=${shQuote(target.dir)}`;
}

/**
 * The shim of an agent: the real agent through `sessionpin shim exec`, which runs it as
 * `sessionpin run` does, or straight when the call opens no conversation.
 */
export function agentShim(target: ShimTarget): string {
  return `${header(target, `It runs the real ${target.name}, the next one on PATH that is no shim, through sessionpin, so that its session resumes after a restart.`)}
node=${shQuote(target.node)}
main=${shQuote(target.main)}
${FIND_REAL}
# An agent sessionpin runs may call agents by name itself (a sub-agent, a tool): those calls are
# not conversations to pin again.
if [ -n "\${SESSIONPIN_RUN_PID-}" ]; then
  exec "$real" "$@"
fi
[ -x "$node" ] || node=$(command -v node 2>/dev/null) || node=
if [ -n "$node" ] && [ -f "$main" ]; then
  exec "$node" "$main" shim exec "$name" "$real" "$@"
fi
# A shim never stops the agent from starting.
if [ -z "$node" ]; then why='no node on PATH'; else why="$main is gone"; fi
printf 'sessionpin shim: cannot run sessionpin (%s): starting %s without it\\n' "$why" "$name" >&2
exec "$real" "$@"
`;
}

/**
 * The agentapi shim. Coder's agent modules start agentapi from a script that first puts the
 * agent's own install folder at the front of PATH (`export PATH="$HOME/.local/bin:…:$PATH"` in
 * sourcegraph-amp 3.0.0's start.sh), which would put the real agent before the shims. agentapi
 * itself is not in those folders, so this shim runs, and hands agentapi a PATH with the shim
 * folder first again: the agent it starts by name is the shim. It also hands that agent, and only
 * it, the task (SESSIONPIN_AGENTAPI_PROMPT_FILE as SESSIONPIN_PROMPT_FILE).
 */
export function agentapiShim(target: ShimTarget): string {
  return `${header(target, `It runs the real ${target.name} with the shim folder first on PATH, so that the agent it starts by name is a shim.`)}
${FIND_REAL}
export PATH="$here:$PATH"
# A Coder module's task is for the agent agentapi starts, not for one started by hand in a terminal.
if [ -n "\${SESSIONPIN_AGENTAPI_PROMPT_FILE-}" ]; then
  export SESSIONPIN_PROMPT_FILE="$SESSIONPIN_AGENTAPI_PROMPT_FILE"
fi
exec "$real" "$@"
`;
}
