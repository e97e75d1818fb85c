import { spawnSync } from "node:child_process";
import { chmodSync, chownSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir, userInfo } from "node:os";
import { join } from "node:path";
import { afterEach, expect, it } from "vitest";
import { CLI, FAKE_AGENTS } from "../helpers/sandbox.js";

/**
 * What containers and shared folders give: HOME empty, or unset under a uid passwd does not know
 * (`docker run --user 12345`), where Node's os.homedir() throws; another user's file in a folder
 * of one's own.
 */
const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function sessionpin(args: readonly string[], env: NodeJS.ProcessEnv, asUid?: number, cwd?: string): { status: number | null; stdout: string; stderr: string } {
  const dir = cwd ?? mkdtempSync(join(tmpdir(), "sessionpin-nohome-"));
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
  expect(run).toMatchObject({ status: 0, stdout: "hi\n", stderr: "" });
  expect(sessionpin(["plugins"], {}, 54321).status).toBe(0);
});

it.runIf(process.getuid?.() === 0)("a pointer another user owns, which the kernel will not let it move aside: one line, the file left, no agent started", () => {
  const dir = mkdtempSync(join(tmpdir(), "sessionpin-foreign-"));
  const state = join(dir, "state");
  mkdirSync(state);
  chownSync(dir, 54321, 54321);
  chownSync(state, 54321, 54321);
  // Root's, unreadable to the run's user: cold, and set aside as corrupt (protected_hardlinks refuses the link).
  const pointer = join(state, "pointer.json");
  writeFileSync(pointer, "{ junk", { mode: 0o600 });
  const result = sessionpin(["run", "--pointer", pointer, "--", "claude", "-p", "--output-format", "stream-json", "--verbose", "hi"], { PATH: `${FAKE_AGENTS}:${process.env["PATH"] ?? ""}`, HOME: dir }, 54321, dir);
  expect([result.status, result.stdout, result.stderr]).toEqual([1, "", `sessionpin: cannot move ${pointer} aside (operation not permitted): left as it is, and no new session started; move it or remove it by hand\n`]);
  expect(readFileSync(pointer, "utf8")).toBe("{ junk");
});
