#!/bin/bash
# Installs sessionpin for the workspace user and writes its PATH shims. Run by the module's
# coder_script at every workspace start, and by the agent module's post_install_script hook (the
# module's `post_install_script` output), which the agentapi module runs after installing the agent
# and before starting it: whichever comes first installs, the other waits for it (a lock), so the
# agent's first start already runs through the shims. Both may run it at once, at every start.
#
# Nothing needs root or a compiler: npm installs into a prefix in the module folder with install
# scripts off (sessionpin and its dependencies have none; node-pty's binaries are prebuilt).
#
# Inputs (environment; main.tf sets them):
#   ARG_MODULE_DIR    the module folder, $HOME/.coder-modules/sessionpin/sessionpin
#   ARG_SOURCE        base64 of where sessionpin comes from: an npm spec (sessionpin@0.1.0), an
#                     http(s) URL of a tarball, or a tarball's path in the workspace (/…, ~/…, $HOME/…)
#   ARG_OFFLINE       true: npm may not use the network (air-gapped; the tarball
#                     `npm run pack:offline` writes carries every dependency)
#   ARG_AGENTS        the agents to shim, space-separated (amp claude …); none: sessionpin only,
#                     for a start script that runs `sessionpin run` itself
#   ARG_SHIM_AGENTAPI true: also the agentapi shim, for start scripts that put the agent's own
#                     folder first on PATH (sourcegraph-amp, claude-code 4.x)
#   ARG_SHIM_DIR      the shim folder (coder_env puts it first on PATH)
#   ARG_PROMPT        base64 of the task prompt sessionpin types into a new conversation, or empty
#   ARG_TIMEOUT       seconds: the bound on the download, on npm, and on waiting for the lock
#   ARG_CALLER        script (the module's coder_script) or post_install (the hook: it never fails,
#                     so that the agent starts whatever happened here)
set -o nounset -o pipefail

module_dir="${ARG_MODULE_DIR:?ARG_MODULE_DIR is not set}"
shim_dir="${ARG_SHIM_DIR:-$module_dir/shims}"
caller="${ARG_CALLER:-script}"
timeout_s="${ARG_TIMEOUT:-300}"
source_spec="$(printf '%s' "${ARG_SOURCE:-}" | base64 -d)"
prompt="$(printf '%s' "${ARG_PROMPT:-}" | base64 -d)"
read -r -a agents <<< "${ARG_AGENTS:-}"

prefix="$module_dir/npm"
log="$module_dir/logs/install.log"
stamp="$module_dir/installed"
lock="$module_dir/install.lock"
mkdir -p "$module_dir/logs" "$module_dir/scripts"

say() { printf '%s\n' "sessionpin ($caller): $*" | tee -a "$log"; }
# Ends the run. The hook exits 0 whatever happened: main.sh of the agentapi module must go on to
# start the agent, which then runs straight when there are no shims or no sessionpin.
finish() {
  [ "$caller" = post_install ] && exit 0
  exit "$1"
}
fail() {
  say "$*" >&2
  if [ -f "$stamp" ] && [ -x "$prefix/bin/sessionpin" ]; then
    say "the sessionpin installed before ($(cat "$stamp")) stays in use" >&2
  else
    say "the agents start without sessionpin: with no shims on PATH, each runs as it would without this module" >&2
  fi
  finish 1
}

printf '\n%s\n' "--- $(date -u +%Y-%m-%dT%H:%M:%SZ) pid $$ ($caller)" >> "$log"

[ -n "$source_spec" ] || fail "no install_source given: nothing to install"

# The prompt first, whatever fails later: an agent started with SESSIONPIN_PROMPT_FILE set (by the
# agentapi shim) and no file there runs without sessionpin. A temp file of this run's own, renamed: both callers write it.
if [ -n "$prompt" ]; then
  part="$(mktemp "$module_dir/.prompt.txt.XXXXXX")" \
    && printf '%s' "$prompt" > "$part" && chmod 600 "$part" && mv -f "$part" "$module_dir/prompt.txt"
else
  rm -f "$module_dir/prompt.txt"
fi

# Node: on PATH, else nvm's (coder_scripts run no login shell, so ~/.bashrc's nvm line is not read).
if ! command -v node > /dev/null 2>&1 && [ -f "$HOME/.nvm/nvm.sh" ]; then
  # shellcheck source=/dev/null
  . "$HOME/.nvm/nvm.sh" > /dev/null 2>&1
fi
if ! command -v node > /dev/null 2>&1; then
  fail "sessionpin needs Node.js 20.19+ and npm on PATH, and this workspace has no node"
elif ! command -v npm > /dev/null 2>&1; then
  fail "sessionpin needs Node.js 20.19+ and npm on PATH, and this workspace has no npm"
fi
node -e 'const [a, b] = process.versions.node.split(".").map(Number); process.exit(a > 20 || (a === 20 && b >= 19) ? 0 : 1)' \
  || fail "sessionpin needs Node.js 20.19+, and $(command -v node) is $(node --version)"

# The one lock for the coder_script and the hook: a symbolic link whose target is the owner's pid
# and start time, made in one step (ln -s fails when the link is there). A lock left by a
# workspace that stopped mid-install names a pid that is gone, or one a new process took after
# the restart (another start time): it is taken over, not waited for.
started_at() {
  local stat
  stat="$(cat "/proc/$1/stat" 2> /dev/null)" || return 0
  stat="${stat##*) }"
  # Field 22 of /proc/<pid>/stat; the first two (pid, comm) were cut above.
  # shellcheck disable=SC2086 # split into fields on purpose
  set -- $stat
  printf '%s' "${20:-}"
}
deadline=$((SECONDS + timeout_s))
waited=false
unreadable=0
pid=
until ln -s "$$ $(started_at $$)" "$lock" 2> /dev/null; do
  [ "$SECONDS" -lt "$deadline" ] || fail "the lock $lock is still held after ${timeout_s}s${pid:+ (pid $pid)}: giving up on it"
  if ! owner="$(readlink "$lock" 2> /dev/null)"; then
    # No link to read: gone in between (try again), or none can be made here.
    unreadable=$((unreadable + 1))
    [ "$unreadable" -lt 3 ] || fail "cannot make the lock $lock with ln -s"
    continue
  fi
  unreadable=0
  read -r pid start <<< "$owner"
  if ! kill -0 "${pid:-0}" 2> /dev/null || [ "$(started_at "$pid")" != "${start:-}" ]; then
    say "taking over a lock left by an install that is gone (pid ${pid:-?})"
    # Only the lock that was looked at: another waiter may have taken it over already.
    [ "$(readlink "$lock" 2> /dev/null)" = "$owner" ] && rm -f "$lock"
    continue
  fi
  if [ "$waited" = false ]; then
    say "another install is running (pid $pid): waiting for it, at most ${timeout_s}s"
    waited=true
  fi
  sleep 1
done
trap 'rm -f "$lock"' EXIT

bounded() {
  if command -v timeout > /dev/null 2>&1; then timeout "$timeout_s" "$@"; else "$@"; fi
}
sha256() {
  node -e 'const h = require("node:crypto").createHash("sha256"); require("node:fs").createReadStream(process.argv[1]).on("data", (d) => h.update(d)).on("end", () => console.log(h.digest("hex")))' "$1"
}

# The kind of source. A path may be written as ~/… or $HOME/… (literally: the template cannot
# know the workspace's HOME).
# shellcheck disable=SC2016,SC2088
case "$source_spec" in
  http://* | https://*) kind="url" ;;
  /* | "~/"* | '$HOME/'* | file:*) kind="file" ;;
  *) kind="spec" ;;
esac

# What to install, and what identifies it: a tarball by its content, an npm spec by its text.
case "$kind" in
  url)
    mkdir -p "$module_dir/downloads"
    name="${source_spec%%[?#]*}"
    name="${name##*/}"
    case "$name" in *.tgz | *.tar.gz) ;; *) name=sessionpin.tgz ;; esac
    tarball="$module_dir/downloads/$name"
    rm -f "$tarball.part"
    # curl when there is one (it follows the workspace's proxy settings), else Node's fetch.
    if command -v curl > /dev/null 2>&1; then
      why="$(curl --fail --silent --show-error --location --max-time "$timeout_s" --output "$tarball.part" "$source_spec" 2>&1)"
    else
      # shellcheck disable=SC2016 # JavaScript, not shell
      why="$(node -e '
        const [url, file, seconds] = process.argv.slice(1);
        fetch(url, { signal: AbortSignal.timeout(seconds * 1000) })
          .then(async (r) => { if (!r.ok) throw new Error(`HTTP ${r.status}`); require("node:fs").writeFileSync(file, Buffer.from(await r.arrayBuffer())); })
          .catch((e) => { console.error(e.cause?.message ?? e.message); process.exit(1); });
      ' "$source_spec" "$tarball.part" "$timeout_s" 2>&1)"
    fi
    [ -s "$tarball.part" ] || fail "cannot download $source_spec: ${why:-nothing came}"
    mv -f "$tarball.part" "$tarball"
    spec="$tarball"
    identity="$source_spec sha256:$(sha256 "$tarball")"
    ;;
  file)
    spec="${source_spec#file:}"
    # shellcheck disable=SC2016,SC2088
    case "$spec" in "~/"*) spec="$HOME/${spec#"~/"}" ;; '$HOME/'*) spec="$HOME/${spec#'$HOME/'}" ;; esac
    [ -f "$spec" ] || fail "$spec: no such file in this workspace (install_source names a tarball's path)"
    identity="$spec sha256:$(sha256 "$spec")"
    ;;
  *)
    spec="$source_spec"
    identity="$source_spec"
    ;;
esac

# An exact version, a URL or a file installed before is not installed again. A range or a tag
# (sessionpin@latest) is asked of the registry at every start.
exact=true
if [ "$kind" = spec ] && ! [[ "$source_spec" =~ @[0-9]+\.[0-9]+\.[0-9]+(-[0-9A-Za-z.-]+)?$ ]]; then
  exact=false
fi
if [ "$exact" = true ] && [ -x "$prefix/bin/sessionpin" ] && [ "$(cat "$stamp" 2> /dev/null)" = "$identity" ]; then
  say "already installed: $identity"
else
  offline=()
  [ "${ARG_OFFLINE:-false}" = true ] && offline=(--offline)
  say "installing from $identity${offline[*]:+ (offline)} into $prefix"
  # --global with --prefix: a user's own prefix (bin/, lib/node_modules/), never the system's.
  if ! bounded npm install --global --prefix "$prefix" --ignore-scripts --no-audit --no-fund \
    --loglevel=error --update-notifier=false ${offline[@]+"${offline[@]}"} "$spec" > "$module_dir/logs/npm.log" 2>&1; then
    why="$(grep -E '^npm (ERR|error)' "$module_dir/logs/npm.log" | grep -v -E 'A complete log|^npm (ERR|error) *$' | head -n 3 | tr '\n' ' ')"
    [ -n "$why" ] || why="$(tail -n 3 "$module_dir/logs/npm.log" | tr '\n' ' ')"
    fail "npm could not install sessionpin from $source_spec: ${why:-it was stopped after ${timeout_s}s} (all of npm's output: $module_dir/logs/npm.log)"
  fi
  [ -x "$prefix/bin/sessionpin" ] || fail "npm installed $source_spec, but it has no sessionpin command: is it sessionpin's tarball?"
  printf '%s\n' "$identity" > "$stamp"
fi
say "ready: $(node "$prefix/bin/sessionpin" --version 2>&1) ($prefix/bin/sessionpin)"

# The shims, written again at every start: they name the Node and the sessionpin they run, which
# an update or another Node changes. Idempotent; a file of that name that is no shim is left alone.
targets=(${agents[@]+"${agents[@]}"})
if [ "${#targets[@]}" -eq 0 ]; then
  # `shim install` with no names would shim every agent sessionpin knows.
  say "no agents to shim: sessionpin is on PATH, nothing else"
  finish 0
fi
if [ "${ARG_SHIM_AGENTAPI:-true}" = true ]; then targets+=(agentapi); fi
if out="$(node "$prefix/bin/sessionpin" shim install "${targets[@]}" --dir "$shim_dir" 2>&1)"; then
  say "shims in $shim_dir: $(printf '%s' "$out" | sed 's|^[a-z]* .*/||' | tr '\n' ' ')"
else
  fail "cannot write the shims: $(printf '%s' "$out" | tr '\n' ' ')"
fi
finish 0
