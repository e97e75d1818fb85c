import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { Extractor } from "../../src/engine/extract.js";
import { agents } from "../../src/agents/registry.js";
import { captureAll } from "../../src/engine/capture/pipeline.js";

/**
 * One loop over fixtures/<agent>/<case>/: the recorded output (input.*) through the real capture
 * pipeline and the agent's plugin must end in expected.json. A new edge case is a new folder.
 */
const FIXTURES = join(import.meta.dirname, "../../fixtures");
const AGENTAPI_WIDTH = 67;

const Expected = z.object({
  agent: z.string(),
  id: z.string().nullable(),
  state: z.enum(["provisional", "confirmed"]).nullable(),
  rule: z.string().nullable(),
});

for (const plugin of Object.values(agents)) {
  describe(`fixtures/${plugin.name}`, () => {
    const folder = join(FIXTURES, plugin.name);
    it("exists with cases", () => {
      expect(existsSync(folder), `missing ${folder}`).toBe(true);
      expect(readdirSync(folder).length).toBeGreaterThan(0);
    });
    // Every folder is a case (a version in its name, `stream-2.1.330-hooks`, has dots): README.md is not.
    const cases = existsSync(folder) ? readdirSync(folder, { withFileTypes: true }).filter((entry) => entry.isDirectory()).map((entry) => entry.name) : [];
    for (const name of cases) {
      it(name, async () => {
        const dir = join(folder, name);
        const input = readdirSync(dir).find((file) => file.startsWith("input."));
        expect(input, `${dir} has no input.*`).toBeDefined();
        const expected = Expected.parse(JSON.parse(readFileSync(join(dir, "expected.json"), "utf8")));
        expect(expected.agent).toBe(plugin.name);
        // Replayed at agentapi's width, so rows a TUI wrapped are joined as in a live run.
        const extractor = new Extractor(plugin, undefined, AGENTAPI_WIDTH);
        for (const line of captureAll([readFileSync(join(dir, input as string))])) extractor.line(line);
        const pinned = extractor.tracker.current;
        expect({ id: pinned?.id ?? null, state: pinned?.state ?? null, rule: pinned?.rule ?? null }).toEqual({
          id: expected.id,
          state: expected.state,
          rule: expected.rule,
        });
      });
    }
  });
}
