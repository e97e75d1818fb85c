import { execFile } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterEach, expect, it } from "vitest";
import { CLI, FAKE_AGENTS } from "../helpers/sandbox.js";

const exec = promisify(execFile);
let dir = "";
afterEach(() => rmSync(dir, { recursive: true, force: true }));

async function plan(args: string[], env: NodeJS.ProcessEnv): Promise<{ code: number; out: string; err: string }> {
  const running = exec(process.execPath, [CLI, "plan", ...args], { env: { PATH: `${FAKE_AGENTS}:${process.env["PATH"]}`, HOME: dir, ...env } });
  // An empty stdin, as a script's </dev/null: a one-shot command with no message would take what
  // it holds as the message, as run does.
  running.child.stdin?.end();
  return running.then(
    (r) => ({ code: 0, out: r.stdout, err: r.stderr }),
    (e: { code: number; stdout: string; stderr: string }) => ({ code: e.code, out: e.stdout, err: e.stderr }),
  );
}

it("reads every flag from SESSIONPIN_<FLAG> unless the command line gives it", async () => {
  dir = mkdtempSync(join(tmpdir(), "sessionpin-env-"));
  const pointer = join(dir, "p.json");
  const fromEnv = await plan(["--", "amp", "-x"], { SESSIONPIN_POINTER: pointer, SESSIONPIN_PROMPT: "from the environment" });
  expect(JSON.parse(fromEnv.out)).toMatchObject({ mode: "cold", pointer, argv: ["amp", "-x", "from the environment"] });

  // A --prompt-file on the command line silences SESSIONPIN_PROMPT instead of clashing with it.
  writeFileSync(join(dir, "prompt.txt"), "from the file\n");
  const fromFile = await plan(["--prompt-file", join(dir, "prompt.txt"), "--", "amp", "-x"], { SESSIONPIN_PROMPT: "from the environment" });
  expect(JSON.parse(fromFile.out)).toMatchObject({ argv: ["amp", "-x", "from the file"] });

  const flagWins = await plan(["--prompt", "from the flag", "--", "amp", "-x"], { SESSIONPIN_PROMPT: "from the environment" });
  expect(JSON.parse(flagWins.out)).toMatchObject({ argv: ["amp", "-x", "from the flag"] });

  const agent = await plan(["--", "my-amp-build", "-x"], { SESSIONPIN_AGENT: "amp", SESSIONPIN_POINTER: pointer });
  expect(JSON.parse(agent.out)).toMatchObject({ agent: "amp" });
});

it("says which variable is wrong, and exits 2", async () => {
  dir = mkdtempSync(join(tmpdir(), "sessionpin-env-"));
  const bad = await exec(process.execPath, [CLI, "plugins"], { env: { ...process.env, SESSIONPIN_JSON: "maybe" } }).then(
    () => ({ code: 0, stderr: "" }),
    (e: { code: number; stderr: string }) => e,
  );
  expect(bad.code).toBe(2);
  expect(bad.stderr).toContain("SESSIONPIN_JSON=maybe: expected 1, true, yes, 0, false or no");
});

it("lets replay and explain read their flags from SESSIONPIN_* too", async () => {
  dir = mkdtempSync(join(tmpdir(), "sessionpin-env-"));
  const fixture = join(import.meta.dirname, "../../fixtures/amp/stream-basic/input.jsonl");
  const { stdout } = await exec(process.execPath, [CLI, "replay", fixture], { env: { ...process.env, SESSIONPIN_JSON: "1", SESSIONPIN_AGENT: "amp" } });
  expect(JSON.parse(stdout)).toMatchObject({ agent: "amp", format: "jsonl", state: "confirmed" });
  const asCast = await exec(process.execPath, [CLI, "replay", fixture], { env: { ...process.env, SESSIONPIN_FORMAT: "cast" } }).then(
    () => ({ code: 0, stderr: "" }),
    (e: { code: number; stderr: string }) => e,
  );
  expect(asCast.code).toBe(2);
  expect(asCast.stderr).toContain("not an asciicast v2 or v3 recording");
});
