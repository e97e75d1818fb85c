# Amp in a Coder workspace behind agentapi, with a start script of the template's own
# (agentapi-start.sh, beside this file) that calls `sessionpin run` itself, instead of the shims
# the parent folder's main.tf relies on. What this buys: agentapi's own state persistence next to
# sessionpin's pointer, with the chat loaded only when `sessionpin plan` says the start resumes (the
# registry's sourcegraph-amp 3.0.0 pins the agentapi module 2.0.0, which has no state file). What it
# costs: the template owns the agent's install and start instead of the registry's Amp module.
# A snippet for a template that already has `coder_agent.main`.
#
# enable_state_persistence makes the agentapi module export
# AGENTAPI_STATE_FILE=$HOME/.coder-modules/coder/amp/agentapi-state.json (with agentapi >= v0.12.0),
# and sessionpin keeps its pointer beside it, as sessionpin-amp.json. Keep $HOME on a persistent
# volume and both survive a restart together. A pointer left in the older $HOME/.amp-module is
# moved over once. For Claude Code or Goose: ARG_AGENT=claude / goose, module_dir_name
# ".coder-modules/coder/claude-code" / ".coder-modules/coder/goose", and that agent's install script.

terraform {
  required_providers {
    coder = {
      source  = "coder/coder"
      version = ">= 2.13" # data "coder_task"
    }
  }
}

variable "sessionpin_source" {
  description = "Where the workspace installs sessionpin from: the URL or the in-image path of the tarball `npm run pack:offline` writes (sessionpin-<version>-offline.tgz), or an npm spec."
  type        = string
}

variable "amp_api_key" {
  description = "Amp's API key: every thread operation needs it, `amp threads new` included."
  type        = string
  sensitive   = true
}

data "coder_workspace" "me" {}
data "coder_task" "me" {}

# sessionpin only, on PATH: no shims (agents = []), the start script names sessionpin itself.
module "sessionpin" {
  count = data.coder_workspace.me.start_count
  # `coder templates push` uploads the template's folder only: copy the module folder next to the
  # template, or point a git:: source at sessionpin's repository.
  source = "../../../registry/sessionpin/modules/sessionpin"

  agent_id       = coder_agent.main.id
  agents         = []
  install_source = var.sessionpin_source
  offline        = true
}

module "agentapi" {
  count = data.coder_workspace.me.start_count
  # 2.2.0 was the first with enable_state_persistence; 2.4.0 is the newest release (boundary, web_app).
  source  = "registry.coder.com/coder/agentapi/coder"
  version = "2.4.0"

  agent_id             = coder_agent.main.id
  folder               = "/home/coder/project"
  web_app_slug         = "amp"
  web_app_display_name = "Amp"
  web_app_icon         = "/icon/sourcegraph-amp.svg"
  cli_app_slug         = "amp-cli"
  cli_app_display_name = "Amp CLI"
  module_dir_name      = ".coder-modules/coder/amp"

  enable_state_persistence = true
  agentapi_version         = "v0.12.1" # the newest agentapi release; state persistence needs >= v0.12.0

  # Waits for the sessionpin module's install, so that `sessionpin` is there when the start script runs.
  post_install_script = one(module.sessionpin[*].post_install_script)

  install_script = <<-EOT
    #!/bin/bash
    set -o errexit -o pipefail
    # Into a prefix of the user's own, as the sessionpin module installs sessionpin.
    npm install --global --prefix "$HOME/.npm-global" @ampcode/cli@0.0.1790142911-g7618fb # the version sessionpin's interop suite runs
  EOT

  # The module runs this as `agentapi-start.sh true <port>` from `folder`, with AGENTAPI_STATE_FILE
  # exported; it ends in `agentapi server --type amp … -- sessionpin run … -- amp …`.
  start_script = <<-EOT
    #!/bin/bash
    set -o errexit -o pipefail
    export PATH="$HOME/.npm-global/bin:$PATH"
    echo -n '${base64encode(file("${path.module}/agentapi-start.sh"))}' | base64 -d > "$HOME/.coder-modules/coder/amp/scripts/sessionpin-agentapi-start.sh"
    chmod +x "$HOME/.coder-modules/coder/amp/scripts/sessionpin-agentapi-start.sh"
    ARG_PROMPT="$(echo -n '${base64encode(data.coder_task.me.prompt)}' | base64 -d)" \
    ARG_AGENT='amp' \
    ARG_PROMPT_VIA='sessionpin' \
    ARG_AGENT_ARGS='--mode smart' \
    exec "$HOME/.coder-modules/coder/amp/scripts/sessionpin-agentapi-start.sh" "$@"
  EOT
}

# Amp needs its key for every thread operation, `amp threads new` included.
resource "coder_env" "amp_api_key" {
  agent_id = coder_agent.main.id
  name     = "AMP_API_KEY"
  value    = var.amp_api_key
}

resource "coder_ai_task" "task" {
  count  = data.coder_workspace.me.start_count
  app_id = module.agentapi[count.index].task_app_id
}
