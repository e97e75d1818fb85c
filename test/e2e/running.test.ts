/**
 * From a workspace terminal, which has none of agentapi's environment, `plan`, `doctor` and
 * `pointer show` find the pointer the running `sessionpin run` uses (beside agentapi's state
 * file), read from that process's own flags, environment and folder. Real processes and PTYs,
 * the fake Amp on PATH.
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { resolvePointerPath } from "../../src/pointer/path.js";
import { writePointer } from "../../src/pointer/store.js";
import type { Sandbox } from "../helpers/sandbox.js";
import { keepInModule, pointerFor } from "../pointer/module-home.js";
import { Cleanup, cli, cwdOf, exitOf, newThreadId, QUIET, WAIT_MS } from "./support.js";

const cleanup = new Cleanup();
afterEach(() => cleanup.run());

describe("the pointer of the running sessionpin", () => {
  it("is the one plan, doctor and pointer show use when none is named", async () => {
    const sb = cleanup.sandbox();
    const state = join(sb.dir, "module", "agentapi-state.json");
    const running = cleanup.driver(sb.sessionpin(["run", "--prompt-quiet", QUIET, "--", "amp", "--mode", "smart"], { env: { ...sb.env, AGENTAPI_STATE_FILE: state } }));
    await running.waitFor(/new thread/, WAIT_MS);
    const expected = join(sb.dir, "module", "sessionpin-amp.json");

    const shown = cli(sb, ["pointer", "show", "--agent", "amp", "--json"]);
    expect(JSON.parse(shown.stdout)).toMatchObject({ pointer: expected, kind: "ok", next: { mode: "warm" } });
    expect(shown.stderr).toMatch(/using the pointer of the running sessionpin run \(pid \d+, in /);

    const plan = cli(sb, ["plan", "--", "amp", "--mode", "smart"]);
    expect(JSON.parse(plan.stdout)).toMatchObject({ mode: "warm", pointer: expected });

    const doctor = JSON.parse(cli(sb, ["doctor", "--json", "--", "amp"]).stdout) as { pointer: string; checks: Array<{ name: string }> };
    expect(doctor.pointer).toBe(expected);
    expect(doctor.checks.map((c) => c.name)).toContain("pointer-of");

    // A named pointer, or another key, is never replaced by the running one.
    expect(JSON.parse(cli(sb, ["plan", "--pointer", sb.pointer, "--", "amp"]).stdout)).toMatchObject({ pointer: sb.pointer });
    expect(JSON.parse(cli(sb, ["plan", "--key", "other", "--", "amp"]).stdout).pointer).not.toBe(expected);

    running.write("\x03");
    expect((await exitOf(running)).exitCode).toBe(0);
    // Once it has ended, the terminal's own default is back.
    expect(JSON.parse(cli(sb, ["plan", "--", "amp"]).stdout).pointer).not.toBe(expected);
  });

  it("is read with that run's own SESSIONPIN_* settings, not the terminal's", async () => {
    const sb = cleanup.sandbox();
    const state = join(sb.dir, "module", "agentapi-state.json");
    const env = { ...sb.env, AGENTAPI_STATE_FILE: state, SESSIONPIN_KEY: "thread-1" };
    const running = cleanup.driver(sb.sessionpin(["run", "--prompt-quiet", QUIET, "--", "amp", "--mode", "smart"], { env }));
    await running.waitFor(/new thread/, WAIT_MS);
    const keyed = JSON.parse(cli(sb, ["plan", "--key", "thread-1", "--", "amp", "--mode", "smart"]).stdout) as { pointer: string };
    expect(keyed.pointer).toMatch(new RegExp(`^${join(sb.dir, "module", "sessionpin-amp-")}[0-9a-f]{16}\\.json$`));
    const shown = cli(sb, ["pointer", "show", "--agent", "amp", "--key", "thread-1", "--json"]);
    expect(JSON.parse(shown.stdout)).toMatchObject({ pointer: keyed.pointer, kind: "ok" });
    running.write("\x03");
    expect((await exitOf(running)).exitCode).toBe(0);
  });
});

/**
 * With agentapi stopped there is no running run to ask: the pointer `run` kept beside agentapi's
 * state, in a Coder module folder under HOME, is the one meant when the terminal's own default is
 * not there. Built CLI, temp HOME of real files.
 */
describe("the pointer kept in a Coder module folder, agentapi stopped", () => {
  const defaultOf = (sb: Sandbox, agent: string, key?: string): string => resolvePointerPath({ env: sb.env, agent, cwd: cwdOf(sb), home: sb.home, key });

  it("is the one plan, doctor and pointer show use, and each says so in one line", async () => {
    const sb = cleanup.sandbox();
    const kept = await keepInModule(sb.home, ".coder-modules/coder/claude-code", { agent: "claude", cwd: cwdOf(sb) });
    const said = `sessionpin: no pointer at the default place (${defaultOf(sb, "claude")}): using claude's for ${cwdOf(sb)} kept in a Coder module folder: ${kept}\n`;

    const shown = cli(sb, ["pointer", "show", "--agent", "claude", "--json"]);
    expect([shown.status, shown.stderr]).toEqual([0, said]);
    expect(JSON.parse(shown.stdout)).toMatchObject({ pointer: kept, kind: "ok" });

    const plan = cli(sb, ["plan", "--", "claude"]);
    expect(plan.stderr).toBe(said);
    expect(JSON.parse(plan.stdout)).toMatchObject({ pointer: kept });

    const doctor = JSON.parse(cli(sb, ["doctor", "--json", "--", "claude"]).stdout) as { pointer: string; checks: Array<{ name: string; detail: string }> };
    expect(doctor.pointer).toBe(kept);
    expect(doctor.checks.find((c) => c.name === "pointer-of")?.detail).toBe(said.slice("sessionpin: ".length, -1));
  });

  it("is found in the legacy .<agent>-module folder too, and a keyed one for its key only", async () => {
    const sb = cleanup.sandbox();
    const amp = await keepInModule(sb.home, ".amp-module", { agent: "amp", cwd: cwdOf(sb), id: newThreadId() });
    const keyed = await keepInModule(sb.home, ".coder-modules/coder-labs/codex", { agent: "codex", cwd: cwdOf(sb), key: "thread-1" });
    expect(JSON.parse(cli(sb, ["pointer", "show", "--agent", "amp", "--json"]).stdout)).toMatchObject({ pointer: amp, kind: "ok" });
    expect(JSON.parse(cli(sb, ["plan", "--key", "thread-1", "--", "codex"]).stdout)).toMatchObject({ pointer: keyed });
    const unkeyed = cli(sb, ["pointer", "show", "--agent", "codex", "--json"]);
    expect([unkeyed.status, unkeyed.stderr, JSON.parse(unkeyed.stdout)]).toEqual([1, "", { pointer: defaultOf(sb, "codex"), kind: "missing", next: expect.anything() }]);
  });

  it("is not another folder's, and gives way to the default when that is there, silently", async () => {
    const sb = cleanup.sandbox();
    await keepInModule(sb.home, ".claude-module", { agent: "claude", cwd: join(cwdOf(sb), "other") });
    const other = cli(sb, ["pointer", "show", "--agent", "claude", "--json"]);
    expect([other.status, other.stderr, JSON.parse(other.stdout).pointer]).toEqual([1, "", defaultOf(sb, "claude")]);

    await keepInModule(sb.home, ".coder-modules/coder/claude-code", { agent: "claude", cwd: cwdOf(sb) });
    const own = defaultOf(sb, "claude");
    await writePointer(own, pointerFor({ agent: "claude", cwd: cwdOf(sb) }));
    const shown = cli(sb, ["pointer", "show", "--agent", "claude", "--json"]);
    expect([shown.status, shown.stderr, JSON.parse(shown.stdout).pointer]).toEqual([0, "", own]);
  });

  it("is looked for without hanging or crashing on a FIFO or a symbolic link loop among the module folders", async () => {
    const sb = cleanup.sandbox();
    const modules = join(sb.home, ".coder-modules", "coder");
    mkdirSync(join(sb.home, ".claude-module"), { recursive: true });
    mkdirSync(modules, { recursive: true });
    symlinkSync("loop", join(modules, "loop"));
    symlinkSync(".self-module", join(sb.home, ".self-module"));
    execFileSync("mkfifo", [join(sb.home, ".fifo-module")]);
    execFileSync("mkfifo", [join(sb.home, ".claude-module", "sessionpin-claude.json")]);
    const kept = await keepInModule(sb.home, ".coder-modules/coder/claude-code", { agent: "claude", cwd: cwdOf(sb) });

    const shown = cli(sb, ["pointer", "show", "--agent", "claude", "--json"]);
    expect([shown.status, JSON.parse(shown.stdout).pointer]).toEqual([0, kept]);
    const listed = cli(sb, ["sessions", "--json"]);
    expect(listed.status).toBe(0);
    expect((JSON.parse(listed.stdout) as Array<{ pointer: string; state: string; reason?: string }>).map((row) => [row.pointer, row.state, row.reason])).toEqual([
      [join(sb.home, ".claude-module", "sessionpin-claude.json"), "unreadable", "not a regular file"],
      [kept, "confirmed", undefined],
    ]);
  });

  it("is listed by sessions with its path, beside the state folder's", async () => {
    const sb = cleanup.sandbox();
    const claude = await keepInModule(sb.home, ".coder-modules/coder/claude-code", { agent: "claude", cwd: cwdOf(sb) });
    const amp = await keepInModule(sb.home, ".amp-module", { agent: "amp", cwd: cwdOf(sb), id: newThreadId() });
    const keyed = await keepInModule(sb.home, ".coder-modules/coder-labs/codex", { agent: "codex", cwd: cwdOf(sb), key: "thread-1" });
    const own = defaultOf(sb, "gemini");
    await writePointer(own, pointerFor({ agent: "gemini", cwd: cwdOf(sb) }));
    const listed = cli(sb, ["sessions", "--json"]);
    expect(listed.status).toBe(0);
    const rows = JSON.parse(listed.stdout) as Array<{ agent: string; key: string | null; pointer: string }>;
    expect(rows.map((row) => [row.agent, row.key, row.pointer]).sort()).toEqual([
      ["amp", null, amp], ["claude", null, claude], ["codex", "thread-1", keyed], ["gemini", null, own],
    ].sort());
    // The table shows them too, one row each.
    expect(cli(sb, ["sessions"]).stdout.split("\n").filter(Boolean)).toHaveLength(5);
  });
});
