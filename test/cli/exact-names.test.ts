/**
 * Keys and message IDs are the bytes they were given. Node decodes the command line and the
 * environment as UTF-8, each byte that is none becoming U+FFFD: two chat threads whose keys
 * differed only there shared one pointer, and a new message was refused as one already had.
 * sessionpin reads its own arguments and environment again from /proc/self (src/cli/options.ts).
 */
import { spawnSync } from "node:child_process";
import { afterEach, expect, it } from "vitest";
import { CLI } from "../helpers/sandbox.js";
import { Cleanup } from "../e2e/support.js";

const cleanup = new Cleanup();
afterEach(() => cleanup.run());

/** `sessionpin plan …` through a shell, which can give a word any bytes (`$(printf '\377')`); its JSON. */
function plan(sb: { dir: string; env: NodeJS.ProcessEnv }, script: string): Record<string, unknown> {
  const result = spawnSync("sh", ["-c", script, "sh", process.execPath, CLI], { cwd: sb.dir, env: sb.env, encoding: "utf8" });
  expect(result.stderr).toBe("");
  return JSON.parse(result.stdout) as Record<string, unknown>;
}

it("gives keys that differ only in bytes that are no UTF-8 a pointer each, from the flag and from SESSIONPIN_KEY", () => {
  const sb = cleanup.sandbox();
  const flag = (octal: string): Record<string, unknown> => plan(sb, `"$1" "$2" plan --key "thread-$(printf '${octal}')" -- amp`);
  const variable = (octal: string): Record<string, unknown> => plan(sb, `SESSIONPIN_KEY="thread-$(printf '${octal}')" exec "$1" "$2" plan -- amp`);
  const pointers = ["\\377", "\\376", "\\300\\257"].map((octal) => flag(octal)["pointer"]);
  expect(new Set(pointers).size).toBe(3);
  // The same bytes name the same pointer, whichever way they came.
  expect(variable("\\377")["pointer"]).toBe(pointers[0]);
  expect(variable("\\376")["pointer"]).toBe(pointers[1]);
  // A key that is UTF-8 names the pointer it always named.
  expect(flag("\\303\\251")).toMatchObject({ key: "thread-é" });
  expect(flag("\\377")).toMatchObject({ key: "thread-\udcff" });
});

it("takes two message IDs that differ only in bytes that are no UTF-8 for two messages", () => {
  const sb = cleanup.sandbox();
  const sha = (octal: string): unknown => (plan(sb, `"$1" "$2" plan --prompt hi --message-id "m-$(printf '${octal}')" -- amp`)["deliver"] as { sha256?: unknown } | undefined)?.sha256;
  const [a, b] = [sha("\\377"), sha("\\376")];
  expect(a).toMatch(/^[0-9a-f]{64}$/);
  expect(a).not.toBe(b);
});
