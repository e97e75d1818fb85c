/**
 * From a workspace terminal, which has none of agentapi's environment, `plan`, `doctor` and
 * `pointer show` find the pointer the running `sessionpin run` uses (beside agentapi's state
 * file), read from that process's own flags, environment and folder. Real processes and PTYs,
 * the fake Amp on PATH.
 */
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { Cleanup, cli, exitOf, QUIET, WAIT_MS } from "./support.js";

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
