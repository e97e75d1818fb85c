import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { expect, it } from "vitest";
import { CLI } from "../helpers/sandbox.js";

it("sessionpin demo pins a thread on the cold start and resumes it on the warm start", async () => {
  const { stdout } = await promisify(execFile)(process.execPath, [CLI, "demo"], { timeout: 60_000 });
  const thread = /threads new\n\s+sessionpin launched: amp --mode smart threads continue (T-[0-9a-f-]{36})/.exec(stdout)?.[1];
  expect(thread, stdout).toBeDefined();
  expect(stdout).toContain(`pinned ${thread} (confirmed, rule threads-new)`);
  // The warm start launched the same thread, and the prompt arrived once in all.
  expect(stdout.split(`sessionpin launched: amp --mode smart threads continue ${thread}`).length - 1).toBe(2);
  expect(stdout).toContain("delivered 1 time(s) across both starts");
  expect(stdout).toContain("Demo passed");
});
