import { spawnSync } from "node:child_process";
import { chmodSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir, userInfo } from "node:os";
import { join } from "node:path";
import { afterEach, expect, it } from "vitest";
import { CLI } from "../helpers/sandbox.js";

/**
 * Homes a container gives: HOME empty, or unset under a uid passwd does not know
 * (`docker run --user 12345`), where Node's os.homedir() throws.
 */
const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function sessionpin(args: readonly string[], env: NodeJS.ProcessEnv, asUid?: number): { status: number | null; stdout: string; stderr: string } {
  const dir = mkdtempSync(join(tmpdir(), "sessionpin-nohome-"));
  dirs.push(dir);
  // The other user starts in it.
  chmodSync(dir, 0o777);
  const argv = [process.execPath, CLI, ...args];
  const command = asUid === undefined ? argv : ["setpriv", `--reuid=${asUid}`, `--regid=${asUid}`, "--clear-groups", ...argv];
  const result = spawnSync(command[0] as string, command.slice(1), { cwd: dir, env: { PATH: process.env["PATH"], ...env }, encoding: "utf8", timeout: 20_000 });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

it("with HOME empty, keeps pointers under the passwd entry's home, not under the folder a run starts in", () => {
  const plan = sessionpin(["plan", "--", "amp"], { HOME: "" });
  expect(plan.stderr).toBe("");
  expect(JSON.parse(plan.stdout)).toMatchObject({ pointer: expect.stringMatching(new RegExp(`^${userInfo().homedir}/\\.local/state/sessionpin/amp/`)) });
});

// setpriv to a uid with no passwd entry needs root, as CI and this machine run.
it.runIf(process.getuid?.() === 0)("under a uid with no home, says in one line what to set, and runs with the XDG folders set", () => {
  for (const args of [["run", "--", "echo", "hi"], ["plan", "--", "amp"], ["sessions"], ["pointer", "show", "--agent", "amp"]]) {
    const result = sessionpin(args, {}, 54321);
    expect(result.stderr, args.join(" ")).toMatch(/^sessionpin: no home folder \(HOME is not an absolute path and user 54321 has none in passwd\): set HOME or XDG_STATE_HOME \(or --pointer\)\n$/);
    expect(result.status, args.join(" ")).toBe(2);
  }
  const xdg = mkdtempSync(join(tmpdir(), "sessionpin-xdg-"));
  dirs.push(xdg);
  chmodSync(xdg, 0o777);
  const run = sessionpin(["run", "--", "echo", "hi"], { XDG_STATE_HOME: join(xdg, "state"), XDG_CONFIG_HOME: join(xdg, "config") }, 54321);
  // The agent runs in a PTY of its own: its newline comes through as CRLF.
  expect(run).toMatchObject({ status: 0, stdout: "hi\r\n", stderr: "" });
  expect(sessionpin(["plugins"], {}, 54321).status).toBe(0);
});
