/**
 * Each command's --help, as the built CLI prints it, names every option the command's parser
 * accepts, and README's synopsis of the command names them too: help texts once lagged the code
 * (replay without --plugin in README, explain without --jobs, no -h/--help in several).
 */
import { execFileSync, spawnSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { DEMO_OPTIONS } from "../../src/cli/demo.js";
import { DOCTOR_OPTIONS } from "../../src/cli/doctor.js";
import { PLUGINS_OPTIONS } from "../../src/cli/plugins.js";
import { POINTER_OPTIONS } from "../../src/cli/pointer.js";
import { RUN_OPTIONS } from "../../src/cli/options.js";
import { PLAN_OPTIONS } from "../../src/cli/plan.js";
import { REPLAY_OPTIONS } from "../../src/cli/replay.js";
import { SESSIONS_OPTIONS } from "../../src/cli/sessions.js";
import { SHIM_OPTIONS } from "../../src/cli/shim.js";
import { CLI, ROOT } from "../helpers/sandbox.js";

type Options = Readonly<Record<string, { readonly type: string; readonly short?: string }>>;

// The README and the documents it links: a command's synopsis is in one of them.
const README = ["README.md", ...readdirSync(join(ROOT, "docs")).map((name) => join("docs", name))].map((file) => readFileSync(join(ROOT, file), "utf8")).join("\n");

// The README line that gives each command's synopsis (explain's says "same inputs and options").
const commands: ReadonlyArray<{ name: string; options: Options; synopsis?: RegExp }> = [
  { name: "replay", options: REPLAY_OPTIONS, synopsis: /^- `replay \[.*$/m },
  { name: "explain", options: REPLAY_OPTIONS },
  { name: "doctor", options: DOCTOR_OPTIONS, synopsis: /^## `sessionpin doctor .*$/m },
  { name: "pointer", options: POINTER_OPTIONS, synopsis: /^## `sessionpin pointer .*$/m },
  { name: "plugins", options: PLUGINS_OPTIONS, synopsis: /`sessionpin plugins \[[^`]*`/ },
  { name: "demo", options: DEMO_OPTIONS, synopsis: /`sessionpin demo \[[^`]*`/ },
  { name: "run", options: RUN_OPTIONS },
  { name: "plan", options: PLAN_OPTIONS },
  { name: "sessions", options: SESSIONS_OPTIONS },
  { name: "shim", options: SHIM_OPTIONS },
];

describe("no command", () => {
  it("is a usage error: the usage on stderr, nothing on stdout, exit 2; asked for, the usage is on stdout, exit 0", () => {
    const bare = spawnSync(process.execPath, [CLI], { encoding: "utf8" });
    expect([bare.status, bare.stdout]).toEqual([2, ""]);
    expect(bare.stderr).toMatch(/^sessionpin: no command given\nUsage: sessionpin /);
    const asked = spawnSync(process.execPath, [CLI, "--help"], { encoding: "utf8" });
    expect([asked.status, asked.stderr]).toEqual([0, ""]);
    expect(asked.stdout).toMatch(/^Usage: sessionpin /);
    // `help <command>`, as git and npm take it: that command's help.
    const about = spawnSync(process.execPath, [CLI, "help", "replay"], { encoding: "utf8" });
    expect([about.status, about.stderr, about.stdout.split("\n", 1)[0]]).toEqual([0, "", "Usage: sessionpin replay [options] FILE…|-"]);
  });
});

describe("--help", () => {
  for (const { name, options, synopsis } of commands) {
    it(`${name}: the help and README name every option the code accepts`, () => {
      const help = execFileSync(process.execPath, [CLI, name, "--help"], { encoding: "utf8" });
      expect(help).toMatch(new RegExp(`^Usage: sessionpin ${name} `));
      for (const [option, spec] of Object.entries(options)) {
        expect(help, `--${option} in ${name} --help`).toMatch(new RegExp(`(^|[\\s\\[(|])--${option}\\b`));
        if (spec.short !== undefined) expect(help, `-${spec.short} in ${name} --help`).toMatch(new RegExp(`\\s-${spec.short}\\b`));
        if (synopsis === undefined || option === "help") continue;
        expect(README.match(synopsis)?.[0], `--${option} in README's ${name} synopsis`).toContain(`--${option}`);
      }
      // Every flag may come from SESSIONPIN_<FLAG>: each help says so.
      expect(help).toMatch(/SESSIONPIN_[A-Z]+/);
    });
  }
});

describe("--json", () => {
  // run's output is the agent's own; every other command's is sessionpin's, and takes --json.
  const calls = [["plan", "--json", "--", "amp"], ["pointer", "show", "--agent", "amp", "--json"], ["sessions", "--json"], ["plugins", "--json"],
    ["doctor", "--json"], ["shim", "list", "--json"], ["replay", "--json", join(ROOT, "fixtures/amp/stream-basic/input.jsonl")]];
  it.each(calls)("%s takes --json and prints JSON: one document, or JSON lines for a stream of records", (...argv) => {
    const home = mkdtempSync(join(tmpdir(), "sessionpin-json-"));
    const result = spawnSync(process.execPath, [CLI, ...argv], { cwd: home, encoding: "utf8", input: "", env: { ...process.env, HOME: home, XDG_STATE_HOME: join(home, "state"), XDG_CACHE_HOME: join(home, "cache"), SESSIONPIN_SHIM_DIR: join(home, "shims") } });
    rmSync(home, { recursive: true, force: true });
    expect(result.stdout.length).toBeGreaterThan(0);
    for (const line of result.stdout.trimEnd().split("\n")) expect(() => JSON.parse(line) as unknown, line).not.toThrow();
  });
});
