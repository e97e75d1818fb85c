run "defaults" {
  command = plan

  variables {
    agent_id       = "test-agent"
    agents         = ["amp"]
    install_source = "sessionpin@0.1.0"
  }

  assert {
    condition     = coder_env.path.name == "PATH"
    error_message = "the module must set PATH"
  }

  assert {
    condition     = coder_env.path.value == "$HOME/.coder-modules/sessionpin/sessionpin/shims:$HOME/.coder-modules/sessionpin/sessionpin/npm/bin:$PATH"
    error_message = "PATH must start with the shim folder, then sessionpin's bin, then the PATH the agent has"
  }

  assert {
    condition     = length(coder_env.prompt_file) == 0
    error_message = "no prompt: no SESSIONPIN_AGENTAPI_PROMPT_FILE"
  }

  assert {
    condition     = coder_script.install.run_on_start == true
    error_message = "the install must run at every start"
  }

  assert {
    condition     = strcontains(coder_script.install.script, "sessionpin_install script")
    error_message = "the coder_script must run the install as `script`"
  }

  assert {
    condition     = strcontains(coder_script.install.script, "ARG_AGENTS='amp'") && strcontains(coder_script.install.script, "ARG_SHIM_AGENTAPI='true'") && strcontains(coder_script.install.script, "ARG_OFFLINE='false'")
    error_message = "the install gets the agents, the agentapi shim and online mode"
  }

  assert {
    condition     = strcontains(coder_script.install.script, "ARG_SOURCE='${base64encode("sessionpin@0.1.0")}'")
    error_message = "the source goes to the script base64-encoded"
  }

  assert {
    condition     = strcontains(output.post_install_script, "sessionpin_install post_install ||") && endswith(trimspace(output.post_install_script), "exit 0")
    error_message = "the hook runs the install as post_install and never fails"
  }

  assert {
    condition     = output.shim_dir == "$HOME/.coder-modules/sessionpin/sessionpin/shims"
    error_message = "the default shim folder is in the module folder"
  }
}

run "prompt_and_offline_tarball" {
  command = plan

  variables {
    agent_id       = "test-agent"
    agents         = ["amp", "claude"]
    install_source = "/opt/sessionpin-0.1.0-offline.tgz"
    offline        = true
    prompt         = "Fix the 'build' and \"tests\""
    shim_dir       = "$HOME/.local/share/sessionpin/shims"
  }

  assert {
    condition     = coder_env.prompt_file[0].name == "SESSIONPIN_AGENTAPI_PROMPT_FILE" && coder_env.prompt_file[0].value == "$HOME/.coder-modules/sessionpin/sessionpin/prompt.txt"
    error_message = "a prompt is handed to sessionpin as a file in the module folder"
  }

  assert {
    condition     = strcontains(coder_script.install.script, "ARG_PROMPT='${base64encode("Fix the 'build' and \"tests\"")}'")
    error_message = "the prompt goes to the script base64-encoded, quotes and all"
  }

  assert {
    condition     = strcontains(coder_script.install.script, "ARG_AGENTS='amp claude'") && strcontains(coder_script.install.script, "ARG_OFFLINE='true'")
    error_message = "every agent is shimmed, offline"
  }

  assert {
    condition     = startswith(coder_env.path.value, "$HOME/.local/share/sessionpin/shims:")
    error_message = "a chosen shim folder comes first on PATH"
  }
}

run "no_agentapi_shim" {
  command = plan

  variables {
    agent_id       = "test-agent"
    agents         = ["goose"]
    install_source = "https://example.com/sessionpin-0.1.0.tgz"
    shim_agentapi  = false
  }

  assert {
    condition     = strcontains(coder_script.install.script, "ARG_SHIM_AGENTAPI='false'")
    error_message = "the agentapi shim can be left out"
  }
}

run "bad_agent_name" {
  command = plan

  variables {
    agent_id       = "test-agent"
    agents         = ["amp; rm -rf ~"]
    install_source = "sessionpin@0.1.0"
  }

  expect_failures = [var.agents]
}

run "relative_shim_dir" {
  command = plan

  variables {
    agent_id       = "test-agent"
    agents         = ["amp"]
    install_source = "sessionpin@0.1.0"
    shim_dir       = "shims"
  }

  expect_failures = [var.shim_dir]
}
