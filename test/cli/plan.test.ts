/** `sessionpin plan` through the built CLI, in a sandbox: what it says the next start would do, writing nothing. */
import { createHash } from "node:crypto";
import { existsSync } from "node:fs";
import { dirname } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { Cleanup, cli, eventsOf } from "../e2e/support.js";

const cleanup = new Cleanup();
afterEach(() => cleanup.run());

describe("plan", () => {
  it("reports a cold start with the user's argv when there is no pointer, and writes nothing", () => {
    const sb = cleanup.sandbox();
    const result = cli(sb, ["plan", "--pointer", sb.pointer, "--prompt", "p", "--", "amp", "--mode", "smart"]);
    expect(result.status).toBe(0);
    // The launch resumes the thread the up-front step creates; the command as given if that fails.
    expect(JSON.parse(result.stdout)).toEqual({
      agent: "amp", pointer: sb.pointer, mode: "cold", id: null, reason: "no pointer",
      argv: ["amp", "--mode", "smart", "threads", "continue", "{id}"],
      steps: [
        { step: "upfront", argv: ["amp", "--mode", "smart", "threads", "new"] },
        { step: "launch", argv: ["amp", "--mode", "smart", "threads", "continue", "{id}"], ifUpfrontFails: ["amp", "--mode", "smart"] },
      ],
      deliver: { what: "task", via: "pty", sha256: createHash("sha256").update("p").digest("hex") },
    });
    expect(existsSync(dirname(sb.pointer))).toBe(false);
    expect(eventsOf(sb, "start")).toEqual([]);
  });
});
