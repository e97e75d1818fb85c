# Amp in a Coder workspace, behind agentapi, with sessionpin keeping the Amp thread across
# workspace restarts. A snippet for a template that already has `coder_agent.main`.
#
# enable_state_persistence makes the agentapi module export
# AGENTAPI_STATE_FILE=$HOME/.coder-modules/coder/amp/agentapi-state.json (with agentapi >= v0.12.0),
# so agentapi restores the chat it shows (the start script turns that off when the start is not
# warm); sessionpin keeps its pointer beside that file, as sessionpin-amp.json, so Amp itself
# resumes the same thread. Both live in the module folder, the registry's layout
# ($HOME/.coder-modules/<namespace>/<module>): keep $HOME on a persistent volume and both survive a
# restart together. A pointer left in the older $HOME/.amp-module is moved over once.
#
# For Claude Code or Goose: ARG_AGENT=claude / goose, module_dir_name
# ".coder-modules/coder/claude-code" / ".coder-modules/coder/goose", and that agent's install script.

variable "sessionpin_tarball" {
  type        = string
  description = "URL or path of sessionpin-<version>.tgz, as `npm pack` writes it in a clone of sessionpin."
}

data "coder_parameter" "ai_prompt" {
  name        = "AI Prompt"
  type        = "string"
  default     = ""
  mutable     = true
  description = "The task for Amp. Sent once, to a new thread; a restart resumes the thread without it."
}

module "agentapi" {
  # Pinned: 2.2.0 has enable_state_persistence and runs the start_script, which starts agentapi
  # itself (as agentapi-start.sh does). Check a newer version's README before moving.
  source  = "registry.coder.com/coder/agentapi/coder"
  version = "2.2.0"

  agent_id             = coder_agent.main.id
  folder               = "/home/coder/project"
  web_app_slug         = "amp"
  web_app_display_name = "Amp"
  web_app_icon         = "/icon/amp.svg"
  cli_app_slug         = "amp-cli"
  cli_app_display_name = "Amp CLI"
  module_dir_name      = ".coder-modules/coder/amp"

  enable_state_persistence = true
  agentapi_version         = "v0.12.2" # state persistence needs >= v0.12.0

  pre_install_script = <<-EOT
    #!/bin/bash
    set -o errexit -o pipefail
    # Not on the npm registry: the tarball `npm pack` makes (sessionpin's README, "Install"),
    # from wherever the workspace can read it. Nothing is compiled; no install script runs.
    npm install --global --ignore-scripts "${var.sessionpin_tarball}"
  EOT

  install_script = <<-EOT
    #!/bin/bash
    set -o errexit -o pipefail
    npm install --global @ampcode/cli@0.0.1790142911-g7618fb # the version sessionpin's interop suite runs
  EOT

  # The module runs this as `agentapi-start.sh true <port>` from `folder`, with AGENTAPI_STATE_FILE
  # exported; it ends in `agentapi server --type amp … -- sessionpin run … -- amp …`.
  start_script = <<-EOT
    #!/bin/bash
    set -o errexit -o pipefail
    echo -n '${base64encode(file("${path.module}/agentapi-start.sh"))}' | base64 -d > /tmp/sessionpin-agentapi-start.sh
    chmod +x /tmp/sessionpin-agentapi-start.sh
    ARG_PROMPT="$(echo -n '${base64encode(data.coder_parameter.ai_prompt.value)}' | base64 -d)" \
    ARG_AGENT='amp' \
    ARG_PROMPT_VIA='sessionpin' \
    ARG_AGENT_ARGS='--mode smart' \
    exec /tmp/sessionpin-agentapi-start.sh "$@"
  EOT
}

# Amp needs its key for every thread operation, `amp threads new` included.
resource "coder_env" "amp_api_key" {
  agent_id = coder_agent.main.id
  name     = "AMP_API_KEY"
  value    = var.amp_api_key
}

variable "amp_api_key" {
  type      = string
  sensitive = true
}
