terraform {
  required_version = ">= 1.0"

  required_providers {
    coder = {
      source = "coder/coder"
      # coder_env and coder_script; the agent modules this composes with ask >= 2.12 as well.
      version = ">= 2.12"
    }
  }
}

variable "agent_id" {
  description = "The ID of a Coder agent."
  type        = string
}

variable "agents" {
  description = "The agents whose executables get a shim, by sessionpin's names for them (`sessionpin plugins`): amp, claude, codex, goose, gemini, copilot, cursor, opencode, auggie, q, kiro, aider, qwen, pi, omp. Empty: no shim at all (not even agentapi's), sessionpin only on PATH, for a start script that runs `sessionpin run` itself."
  type        = list(string)

  validation {
    condition     = alltrue([for agent in var.agents : can(regex("^[a-z0-9][a-z0-9._-]*$", agent))])
    error_message = "agents must be sessionpin's names of agents, in lowercase letters, digits, '.', '_' or '-' (e.g. [\"amp\"])."
  }
}

variable "install_source" {
  description = "Where npm installs sessionpin from: an npm spec (\"sessionpin@0.1.0\", from the registry npm is set up with), an http(s) URL of its tarball, or the tarball's path in the workspace (\"/opt/sessionpin-0.1.0-offline.tgz\", \"$HOME/…\"). Air-gapped: the tarball `npm run pack:offline` writes, with offline = true."
  type        = string

  validation {
    condition     = trimspace(var.install_source) != ""
    error_message = "install_source must name an npm spec, a URL or a path."
  }
}

variable "offline" {
  description = "Install without the network (npm --offline): for the offline tarball, which carries every dependency. A URL is still downloaded first, from wherever the workspace can reach it."
  type        = bool
  default     = false
}

variable "shim_agentapi" {
  description = "Also shim agentapi, so that the agent it starts by name is the shim even when the agent module's start script puts the agent's own folder first on PATH (coder-labs/sourcegraph-amp, coder/claude-code 4.x do)."
  type        = bool
  default     = true
}

variable "shim_dir" {
  description = "The shim folder, put first on PATH. Default: shims/ in the module folder, $HOME/.coder-modules/sessionpin/sessionpin/shims."
  type        = string
  default     = ""

  validation {
    condition     = var.shim_dir == "" || can(regex("^(/|\\$HOME/)[A-Za-z0-9_./-]*$", var.shim_dir))
    error_message = "shim_dir must be an absolute path or start with $HOME/, in letters, digits, '_', '.', '/' and '-'."
  }
}

variable "prompt" {
  description = "The task sessionpin types into the new conversation of the agent agentapi starts, and never into a resumed one (SESSIONPIN_AGENTAPI_PROMPT_FILE, which the agentapi shim hands on as SESSIONPIN_PROMPT_FILE). Give it here instead of to the agent module, whose prompt would be sent at every start. Empty: none."
  type        = string
  default     = ""
}

variable "install_timeout" {
  description = "Seconds the download, npm, and the post_install_script's wait for a running install may each take."
  type        = number
  default     = 300

  validation {
    condition     = var.install_timeout >= 10
    error_message = "install_timeout must be at least 10 seconds."
  }
}

variable "icon" {
  description = "The icon of the install script in the Coder UI."
  type        = string
  default     = "/icon/terminal.svg"
}

locals {
  # The registry's layout for a module's runtime data: $HOME/.coder-modules/<namespace>/<module>.
  module_dir  = "$HOME/.coder-modules/sessionpin/sessionpin"
  shim_dir    = var.shim_dir != "" ? var.shim_dir : "${local.module_dir}/shims"
  bin_dir     = "${local.module_dir}/npm/bin"
  prompt_file = "${local.module_dir}/prompt.txt"

  # One bash function, for the coder_script and for the hook: writes scripts/install.sh (through a
  # rename, as the other one may be running it) and runs it. Bash expands $HOME at run time.
  install_function = <<-EOT
    sessionpin_install() {
      local dir="${local.module_dir}" script
      mkdir -p "$dir/scripts"
      script="$(mktemp "$dir/scripts/.install.sh.XXXXXX")"
      echo -n '${base64encode(file("${path.module}/scripts/install.sh"))}' | base64 -d > "$script"
      chmod 755 "$script"
      mv -f "$script" "$dir/scripts/install.sh"
      ARG_CALLER="$1" \
      ARG_MODULE_DIR="$dir" \
      ARG_SHIM_DIR="${local.shim_dir}" \
      ARG_SOURCE='${base64encode(var.install_source)}' \
      ARG_OFFLINE='${var.offline}' \
      ARG_AGENTS='${join(" ", var.agents)}' \
      ARG_SHIM_AGENTAPI='${var.shim_agentapi}' \
      ARG_PROMPT='${base64encode(var.prompt)}' \
      ARG_TIMEOUT='${var.install_timeout}' \
      "$dir/scripts/install.sh"
    }
  EOT
}

# First on PATH for every script, app and terminal of the agent. `$PATH` is expanded by the Coder
# agent when it builds each command's environment (os.ExpandEnv), so the image's PATH follows.
resource "coder_env" "path" {
  agent_id = var.agent_id
  name     = "PATH"
  value    = "${local.shim_dir}:${local.bin_dir}:$PATH"
}

resource "coder_env" "prompt_file" {
  count    = var.prompt != "" ? 1 : 0
  agent_id = var.agent_id
  name     = "SESSIONPIN_AGENTAPI_PROMPT_FILE"
  value    = local.prompt_file
}

# Runs at every start, in parallel with the agent module's script (coder_scripts of one agent
# are not ordered): the post_install_script output is what makes the agent wait for it.
resource "coder_script" "install" {
  agent_id     = var.agent_id
  display_name = "sessionpin"
  icon         = var.icon
  run_on_start = true
  script       = <<-EOT
    #!/bin/bash
    set -o errexit -o pipefail
    ${local.install_function}
    sessionpin_install script
  EOT
}

output "post_install_script" {
  description = "For the agent module's post_install_script (sourcegraph-amp, claude-code 4.x, goose, or the agentapi module): installs sessionpin, or waits for the install this module's script runs, before the agent starts. It never fails the agent's start."
  value       = <<-EOT
    #!/bin/bash
    ${local.install_function}
    sessionpin_install post_install || echo "sessionpin: the install did not finish; the agent starts without it"
    exit 0
  EOT
}

output "shim_dir" {
  description = "The shim folder, first on PATH (as written for the workspace: $HOME is expanded there)."
  value       = local.shim_dir
}

output "module_dir" {
  description = "The module's folder in the workspace: logs/install.log, npm/ (sessionpin), shims/, prompt.txt."
  value       = local.module_dir
}
