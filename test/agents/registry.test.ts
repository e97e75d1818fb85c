import { describe, expect, it } from "vitest";
import { definePlugin } from "../../src/agents/declarative.js";
import { pluginForCommand, pluginNamed } from "../../src/agents/registry.js";
import { ACME_PLUGIN as base } from "./user/acme.js";

describe("pluginNamed", () => {
  it("takes --agent NAME for the plugin of that name before one that lists NAME among its executables", () => {
    const lister = definePlugin({ ...base, name: "myclaude", names: ["claude", "myclaude"] });
    expect(pluginNamed("claude", [lister])?.name).toBe("claude");
    expect(pluginNamed("myclaude", [lister])).toBe(lister);
    // By executable, the user's plugin still handles `claude`.
    expect(pluginForCommand("/usr/bin/claude", [lister])).toBe(lister);
    // A user plugin with a built-in's name replaces it.
    const replacing = definePlugin({ ...base, name: "claude", names: ["claude"] });
    expect(pluginNamed("claude", [replacing])).toBe(replacing);
  });
});
