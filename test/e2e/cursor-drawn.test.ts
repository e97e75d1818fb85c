import { chmodSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, expect, it } from "vitest";
import { Cleanup, exitOf, waitUntil } from "./support.js";

const cleanup = new Cleanup();
afterEach(() => cleanup.run());

/**
 * A full-screen TUI draws its rows with cursor moves, never a newline, and then waits for input.
 * Its session ID must be pinned while it waits, not at the next output or at its exit.
 */
it.each([
  ["a row move", String.raw`\033[2J\033[1;1Hframer 1.0\033[3;1HSession: framer-1a2b3c4d\033[5;1H> `],
  ["a carriage return", String.raw`\033[2J\033[1;1Hframer 1.0\033[3;1HSession: framer-1a2b3c4d\r`],
])("pins an ID a TUI drew with cursor moves, ended by %s and no newline, while the TUI waits for input", async (_, frame) => {
  const sb = cleanup.sandbox();
  const bin = join(sb.dir, "bin");
  mkdirSync(bin);
  const framer = join(bin, "framer");
  writeFileSync(framer, [
    "#!/bin/sh",
    `printf '${frame}'`,
    "exec sleep 30",
    "",
  ].join("\n"));
  chmodSync(framer, 0o755);
  const plugin = join(sb.dir, "framer.json");
  writeFileSync(plugin, JSON.stringify({
    name: "framer",
    names: ["framer"],
    grammar: "framer-[0-9a-f]{8}",
    text: [{ name: "frame", pattern: "^Session: (?<id>framer-[0-9a-f]{8})$", state: "confirmed" }],
    resume: ["{args}", "--resume", "{id}"],
  }));

  const driver = cleanup.driver(sb.sessionpin(["run", "--pointer", sb.pointer, "--plugin", plugin, "--", framer]));
  let exited = false;
  void driver.exited.then(() => (exited = true));
  await driver.waitFor(/Session: framer-1a2b3c4d/, 10_000);
  const pinned = await waitUntil(() => sb.readPointer(), "the pointer while the TUI waits", 5_000);
  expect(pinned).toMatchObject({ agent: "framer", id: "framer-1a2b3c4d", state: "confirmed" });
  expect(exited).toBe(false);
  driver.kill("SIGTERM");
  await exitOf(driver);
});
