# Coder Tasks with the registry's own agent module, Amp (coder-labs/sourcegraph-amp 3.0.0) or
# Claude Code (coder/claude-code 4.9.2, the last version that starts Claude behind agentapi), and
# sessionpin composed with it: the agent module is used as it is, and a restart of the workspace
# resumes the agent's own conversation instead of starting a new one. A snippet for a template that
# already has `coder_agent.main`, with Node.js 20.19+ and npm in its image.
#
# How: the sessionpin module (registry/sessionpin/modules/sessionpin in sessionpin's repository)
# installs sessionpin for the workspace user, writes PATH shims named `amp`/`claude` and `agentapi`,
# and puts their folder first on PATH (coder_env). Its post_install_script, given to the agent
# module, makes the agent's first start wait for that install. The start script of the agent module
# then runs `agentapi server … -- amp --mode smart` as it always does, and the `amp` agentapi finds is
# the shim. See the module's README for why each piece is there.

terraform {
  required_providers {
    coder = {
      source  = "coder/coder"
      version = ">= 2.13" # data "coder_task"
    }
  }
}

variable "agent" {
  description = "The agent the tasks run: amp or claude."
  type        = string
  default     = "amp"

  validation {
    condition     = contains(["amp", "claude"], var.agent)
    error_message = "agent must be amp or claude."
  }
}

variable "sessionpin_source" {
  description = "Where the workspace installs sessionpin from: the URL or the in-image path of the tarball `npm run pack:offline` writes in a clone of sessionpin (sessionpin-<version>-offline.tgz), or an npm spec."
  type        = string
}

variable "amp_api_key" {
  description = "Amp's API key: every thread operation needs it, `amp threads new` included."
  type        = string
  default     = ""
  sensitive   = true
}

variable "claude_api_key" {
  description = "Claude Code's API key, for agent = claude."
  type        = string
  default     = ""
  sensitive   = true
}

data "coder_workspace" "me" {}

# The task: its prompt is known from the workspace's first build on (Coder >= 2.28).
data "coder_task" "me" {}

locals {
  workdir = "/home/coder/project"
  # sourcegraph-amp would pipe its ai_prompt into amp at every start; sessionpin types the task into
  # a new thread only. The module's report_tasks wording goes with it, in words of our own.
  amp_task = data.coder_task.me.prompt == "" ? "" : "Report your progress with the coder_report_task tool as you go. The task: ${data.coder_task.me.prompt}"
}

module "sessionpin" {
  count = data.coder_workspace.me.start_count
  # `coder templates push` uploads the template's folder only: copy the module folder next to the
  # template, or point a git:: source at sessionpin's repository.
  source = "../../registry/sessionpin/modules/sessionpin"

  agent_id       = coder_agent.main.id
  agents         = [var.agent]
  install_source = var.sessionpin_source
  offline        = true # the offline tarball carries every dependency: no npm registry needed
  # Amp's task goes to sessionpin; Claude's to the claude-code module, as Claude's argument,
  # which sessionpin leaves out of a resumed start.
  prompt = var.agent == "amp" ? local.amp_task : ""
}

module "amp" {
  count   = var.agent == "amp" ? data.coder_workspace.me.start_count : 0
  source  = "registry.coder.com/coder-labs/sourcegraph-amp/coder"
  version = "3.0.0"

  agent_id    = coder_agent.main.id
  workdir     = local.workdir
  amp_api_key = var.amp_api_key
  ai_prompt   = "" # the task is sessionpin's (above)
  # Its own default agentapi binary (v0.11.1) stays: the module pins the agentapi module 2.0.0,
  # which has no state persistence for a newer binary to turn on.
  post_install_script = one(module.sessionpin[*].post_install_script)
}

module "claude_code" {
  count   = var.agent == "claude" ? data.coder_workspace.me.start_count : 0
  source  = "registry.coder.com/coder/claude-code/coder"
  version = "4.9.2"

  agent_id       = coder_agent.main.id
  workdir        = local.workdir
  claude_api_key = var.claude_api_key
  ai_prompt      = data.coder_task.me.prompt
  # sessionpin decides between a new session and a resumed one; the module's own choice (one
  # fixed session ID for every task, or the folder's most recent session) stays out of it.
  continue = false
  # v0.12.1, the newest agentapi release: >= v0.12.0 turns on the module's enable_state_persistence
  # (default true), so agentapi shows the resumed conversation's chat too.
  agentapi_version    = "v0.12.1"
  post_install_script = one(module.sessionpin[*].post_install_script)
}

resource "coder_ai_task" "task" {
  count  = data.coder_workspace.me.start_count
  app_id = one(concat(module.amp[*].task_app_id, module.claude_code[*].task_app_id))
}
