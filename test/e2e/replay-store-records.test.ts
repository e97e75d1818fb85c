/**
 * An agent's own store records given to `sessionpin replay` (issue 45, shape 5): the CLI finds
 * the agent and the session from the file alone, and a file of look-alike records gives nothing.
 */
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { CLI, ROOT } from "../helpers/sandbox.js";

const replay = (file: string) => spawnSync(process.execPath, [CLI, "replay", "--json", join(ROOT, "fixtures", file)], { encoding: "utf8" });

describe("replay of an agent's own store", () => {
  it("reads a Claude transcript and a Copilot events.jsonl, with no --agent, as confirmed sessions", () => {
    const cases = [
      ["claude/store-transcript-2.1.330/input.jsonl", { agent: "claude", id: "e85ccc23-224a-4949-8667-6b4303ef52a2", rule: "transcript-record" }],
      ["copilot/store-events-1-0-102/input.jsonl", { agent: "copilot", id: "2d5a4990-143e-4d49-9007-0af41cdd0cb0", rule: "session-start" }],
    ] as const;
    for (const [file, expected] of cases) {
      const { status, stdout } = replay(file);
      expect(status, file).toBe(0);
      expect(JSON.parse(stdout)).toMatchObject({ format: "jsonl", ...expected, state: "confirmed" });
    }
  });

  it("finds nothing in records that only look like them (exit 1)", () => {
    for (const file of ["claude/store-transcript-lookalikes/input.jsonl", "copilot/store-events-lookalikes/input.jsonl"]) {
      const { status, stdout } = replay(file);
      expect(status, file).toBe(1);
      expect(JSON.parse(stdout)).toMatchObject({ id: null });
    }
  });
});
