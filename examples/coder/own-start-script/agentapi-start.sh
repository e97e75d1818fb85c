#!/bin/bash
# Start script (the agentapi module's `start_script`) for an agent behind agentapi, with
# sessionpin keeping its session across workspace restarts. The module runs it from the project
# folder as `agentapi-start.sh true <port>`, with AGENTAPI_STATE_FILE exported when
# enable_state_persistence is on. Inputs, from the environment:
#   ARG_AGENT       amp (default), claude or goose: any agent sessionpin has a plugin for works
#   ARG_PROMPT      the task prompt, for a new session only (empty: none)
#   ARG_PROMPT_VIA  sessionpin (default): sessionpin delivers the prompt to a new session, and to
#                     the fresh one it starts if the agent rejects the stored session;
#                   agentapi: agentapi sends it as the first chat message (--initial-prompt),
#                     when `sessionpin plan` says the start is cold
#   ARG_AGENT_ARGS  the agent's own flags, space-separated (default: amp's `--mode smart`)
#   ARG_MODULE_DIR  the module folder (default: the registry's layout, $HOME/.coder-modules/coder/
#                     <module>, e.g. claude-code; a pointer left in the legacy $HOME/.<agent>-module
#                     is moved over once)
set -o errexit -o nounset -o pipefail

port="${2:-3284}"
name="${ARG_AGENT:-amp}"
case "$name" in claude) module=claude-code ;; *) module="$name" ;; esac
module_dir="${ARG_MODULE_DIR:-$HOME/.coder-modules/coder/$module}"
prompt="${ARG_PROMPT:-}"
case "$name" in
  amp) read -r -a flags <<< "${ARG_AGENT_ARGS---mode smart}"; agent=(amp) ;;
  # Goose's conversation is `goose session`; `goose run` is one-shot.
  goose) read -r -a flags <<< "${ARG_AGENT_ARGS:-}"; agent=(goose session) ;;
  *) read -r -a flags <<< "${ARG_AGENT_ARGS:-}"; agent=("$name") ;;
esac
agent+=(${flags[@]+"${flags[@]}"})
mkdir -p "$module_dir"

# The pointer belongs in the module folder, beside agentapi's state file: sessionpin puts it
# there (sessionpin-<agent>.json) by itself when AGENTAPI_STATE_FILE is set; otherwise, say where.
if [ -z "${AGENTAPI_STATE_FILE:-}" ]; then
  export SESSIONPIN_POINTER="${SESSIONPIN_POINTER:-$module_dir/sessionpin-$name.json}"
  pointer="$SESSIONPIN_POINTER"
else
  pointer="$(dirname "$AGENTAPI_STATE_FILE")/sessionpin-$name.json"
fi
# Modules once kept their data in ~/.<agent>-module: a pointer left there moves to the new place
# (with its log), once, so the agent still resumes its session after the module's upgrade.
legacy="$HOME/.$name-module/sessionpin-$name.json"
if [ ! -e "$pointer" ] && [ -f "$legacy" ] && [ "$legacy" != "$pointer" ]; then
  mkdir -p "$(dirname "$pointer")"
  mv "$legacy" "$pointer"
  if [ -f "${legacy%.json}.log" ]; then mv "${legacy%.json}.log" "${pointer%.json}.log"; fi
fi

# Runs nothing; prints {"mode":"cold"|"warm"|"unpinned"|"refused","agent":…,"id":…,"argv":[…],…}.
plan="$(sessionpin plan -- "${agent[@]}")"
echo "sessionpin plan: $plan"

# agentapi's saved chat belongs to the session the agent resumes: on any other start (a new
# session, or a stored one gone from the agent's store) the chat would show a conversation the
# agent does not have, so agentapi does not load it.
case "$plan" in '{"mode":"warm"'*) ;; *) export AGENTAPI_LOAD_STATE=false ;; esac

initial=() # for agentapi: --initial-prompt
typed=()   # for sessionpin run: --prompt-file
if [ -n "$prompt" ] && [ "${ARG_PROMPT_VIA:-sessionpin}" = agentapi ]; then
  # A warm start resumes a session that already holds the prompt: never send it twice.
  case "$plan" in '{"mode":"cold"'* | '{"mode":"unpinned"'*) initial=(--initial-prompt "$prompt") ;; esac
elif [ -n "$prompt" ]; then
  (umask 077 && printf '%s' "$prompt" > "$module_dir/prompt.txt")
  typed=(--prompt-file "$module_dir/prompt.txt")
fi

# --type: agentapi picks its per-agent screen handling from the command's first word, which is
# `sessionpin` here.
exec agentapi server --type "$name" --port "$port" --term-width 67 --term-height 1190 \
  ${initial[@]+"${initial[@]}"} -- sessionpin run ${typed[@]+"${typed[@]}"} -- "${agent[@]}"
