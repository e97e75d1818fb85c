import { describe, expect, it } from "vitest";
import { aider } from "../../src/agents/aider.js";

describe("aider", () => {
  it("runs every conversation unpinned: Aider has no session IDs", () => {
    for (const args of [[], ["--model", "sonnet", "src/app.py"], ["--restore-chat-history"], ["--message", "--version"]]) {
      expect(aider.noConversation?.(args), args.join(" ")).toBeUndefined();
      expect(aider.unpinned?.(args), args.join(" ")).toMatch(/no resumable session/);
    }
    expect(aider.callerSession).toBeUndefined();
  });

  it("hands help, version and model listings straight through", () => {
    for (const args of [["--version"], ["--help"], ["-h"], ["--list-models", "gpt"], ["--models", "sonnet"]]) {
      expect(aider.noConversation?.(args), args.join(" ")).toMatch(/opens no conversation/);
    }
  });
});
