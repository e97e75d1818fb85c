#!/bin/bash
# Start script (the agentapi module's `start_script`) for Goose behind agentapi, with sessionpin
# keeping the Goose session across workspace restarts. The module runs it from the project folder
# as `agentapi-start.sh true <port>`, with AGENTAPI_STATE_FILE exported when
# enable_state_persistence is on. Inputs, from the environment:
#   ARG_PROMPT      the task prompt, for a new session only (empty: none)
#   ARG_PROMPT_VIA  sessionpin (default): sessionpin types the prompt into a new session, and
#                     into the fresh one it starts if Goose rejects the stored session;
#                   agentapi: agentapi sends it as the first chat message (--initial-prompt),
#                     when `sessionpin plan` says the start is cold
#   ARG_AGENT_ARGS  flags for `goose session`, space-separated (default: none)
#   ARG_MODULE_DIR  the module folder (default: $HOME/.goose-module)
set -o errexit -o nounset -o pipefail

port="${2:-3284}"
module_dir="${ARG_MODULE_DIR:-$HOME/.goose-module}"
prompt="${ARG_PROMPT:-}"
read -r -a flags <<< "${ARG_AGENT_ARGS:-}"
agent=(goose session ${flags[@]+"${flags[@]}"})
mkdir -p "$module_dir"

# The pointer belongs in the module folder, beside agentapi's state file: sessionpin puts it
# there (sessionpin-goose.json) by itself when AGENTAPI_STATE_FILE is set; otherwise, say where.
if [ -z "${AGENTAPI_STATE_FILE:-}" ]; then
  export SESSIONPIN_POINTER="${SESSIONPIN_POINTER:-$module_dir/sessionpin-goose.json}"
fi

# Runs nothing; prints {"mode":"cold"|"warm","agent":…,"id":…,"argv":[…],"pointer":…}.
plan="$(sessionpin plan -- "${agent[@]}")"
echo "sessionpin plan: $plan"

initial=() # for agentapi: --initial-prompt
typed=()   # for sessionpin run: --prompt-file
if [ -n "$prompt" ] && [ "${ARG_PROMPT_VIA:-sessionpin}" = agentapi ]; then
  # A warm start resumes a session that already holds the prompt: never send it twice.
  case "$plan" in '{"mode":"cold"'*) initial=(--initial-prompt "$prompt") ;; esac
elif [ -n "$prompt" ]; then
  (umask 077 && printf '%s' "$prompt" > "$module_dir/prompt.txt")
  typed=(--prompt-file "$module_dir/prompt.txt")
fi

# --type goose: agentapi picks its per-agent screen handling from the command's first word, which
# is `sessionpin` here.
exec agentapi server --type goose --port "$port" --term-width 67 --term-height 1190 \
  ${initial[@]+"${initial[@]}"} -- sessionpin run ${typed[@]+"${typed[@]}"} -- "${agent[@]}"
