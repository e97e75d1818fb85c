/**
 * `plan` and `run` decide with the same code from the same inputs: for every state a pointer can
 * be in, what `plan` prints (refused, or the steps and the argv it launches) is what `run` then
 * does. Driven with the fake Amp on PATH, whose up-front `threads new` makes the steps visible.
 */
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { Sandbox } from "../helpers/sandbox.js";
import { Cleanup, cli, cwdOf, exitOf, newThreadId, PROMPT, QUIET, waitUntil, writePointerByHand } from "./support.js";

const cleanup = new Cleanup();
afterEach(() => cleanup.run());

interface Planned {
  mode: string;
  id: string | null;
  pointer: string;
  argv: string[];
  steps: Array<{ step: string; argv: string[] }>;
  setsAside?: string;
}

const COMMAND = ["amp", "--mode", "smart"];

/** A pointer state, prepared in `sb`; `named`: the run names the pointer with --pointer. */
interface Case {
  readonly name: string;
  readonly named: boolean;
  prepare(sb: Sandbox, path: string): void;
  readonly mode: string;
}

function write(path: string, text: string): void {
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  writeFileSync(path, text, { mode: 0o600 });
}

/** A pointer to a thread the fake Amp knows, so a warm start resumes it. */
function knownThread(sb: Sandbox, path: string, fields: Record<string, unknown> = {}): void {
  const id = newThreadId();
  mkdirSync(join(sb.ampHome, "threads"), { recursive: true });
  writeFileSync(join(sb.ampHome, "threads", `${id}.json`), JSON.stringify({ id, messages: [PROMPT] }));
  const pointer = writePointerByHand(sb, { id, ...fields });
  write(path, `${JSON.stringify(pointer)}\n`);
}

const CASES: Case[] = [
  { name: "missing", named: true, prepare: () => undefined, mode: "cold" },
  { name: "ok", named: true, prepare: (sb, path) => knownThread(sb, path), mode: "warm" },
  { name: "foreign, at the default path", named: false, prepare: (sb, path) => knownThread(sb, path, { cwd: "/elsewhere" }), mode: "cold" },
  { name: "foreign, at a named path", named: true, prepare: (sb, path) => knownThread(sb, path, { agent: "claude" }), mode: "refused" },
  { name: "newer", named: true, prepare: (_sb, path) => write(path, '{"version": 99}\n'), mode: "refused" },
  { name: "corrupt", named: true, prepare: (_sb, path) => write(path, "{ not json"), mode: "cold" },
  { name: "an ID outside the grammar", named: true, prepare: (sb, path) => knownThread(sb, path, { id: "--help" }), mode: "cold" },
];

describe("plan and run agree", () => {
  it.each(CASES)("pointer $name: plan says $mode, and run does what plan printed", async ({ named, prepare, mode }) => {
    const sb = cleanup.sandbox();
    const pointerArgs = named ? ["--pointer", sb.pointer] : [];
    const path = named ? sb.pointer : (JSON.parse(cli(sb, ["plan", "--", ...COMMAND]).stdout) as Planned).pointer;
    const log = `${path.replace(/\.json$/, "")}.log`;
    prepare(sb, path);

    const plan = cli(sb, ["plan", ...pointerArgs, "--prompt", PROMPT, "--", ...COMMAND]);
    const planned = JSON.parse(plan.stdout) as Planned;
    expect(planned.mode).toBe(mode);

    const driver = cleanup.driver(sb.sessionpin(["run", ...pointerArgs, "--prompt-quiet", QUIET, "--prompt", PROMPT, "--", ...COMMAND]));
    if (mode === "refused") {
      expect(plan.status).toBe(3);
      expect((await exitOf(driver)).exitCode).toBe(3);
      return;
    }
    expect(plan.status).toBe(0);
    // Every run of the fake Amp logs its start, the up-front `threads new` included.
    const upfront = planned.steps.find((step) => step.step === "upfront");
    const expected = upfront === undefined ? 1 : 2;
    const starts = await waitUntil(() => {
      const found = sb.events().filter((e) => e.event === "start").map((e) => e.argv);
      return found.length >= expected && found;
    }, "the agent's launch");
    // SIGTERM, which sessionpin forwards and the fake obeys at once (a Ctrl-C typed before its TUI
    // takes raw mode would be a SIGINT, which it ignores).
    driver.kill("SIGTERM");
    await exitOf(driver);
    const made = sb.events().find((e) => e.event === "thread-new")?.["id"];
    expect(starts).toEqual([
      ...(upfront === undefined ? [] : [upfront.argv.slice(1)]),
      planned.argv.slice(1).map((word) => (word === "{id}" ? String(made) : word)),
    ]);
    if (planned.setsAside !== undefined) expect(readFileSync(log, "utf8")).toContain(`moved the pointer aside to ${path.replace(/\.json$/, "")}.${planned.setsAside}-`);
  });
});

describe("plan and run agree on a session gone from the agent's store", () => {
  it("plan says cold and sets it aside as gone; run launches what plan printed, once (the chosen ID aside)", async () => {
    const sb = cleanup.sandbox();
    const gone = "0b5e8d1c-2f3a-4b6c-8d9e-0f1a2b3c4d5e";
    // Claude's transcripts of this folder exist, but not the pinned session's.
    const projects = join(sb.home, ".claude", "projects", cwdOf(sb).replace(/[^A-Za-z0-9]/g, "-"));
    mkdirSync(projects, { recursive: true });
    writeFileSync(join(projects, "7a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d.jsonl"), "{}\n");
    writePointerByHand(sb, { agent: "claude", id: gone, source: { rule: "transcript" } });
    const command = ["claude", "-p", "--output-format", "stream-json", "--verbose", "Now the docs."];

    const planned = JSON.parse(cli(sb, ["plan", "--pointer", sb.pointer, "--", ...command]).stdout) as Planned & { chosen: string; reason: string };
    expect(planned).toMatchObject({ mode: "cold", setsAside: "gone" });
    expect(planned.reason).toContain(`session ${gone} is gone from claude's own store`);

    const driver = cleanup.driver(sb.sessionpin(["run", "--pointer", sb.pointer, "--", ...command]));
    expect((await exitOf(driver)).exitCode).toBe(0);
    const starts = sb.fakeStarts("claude");
    expect(starts).toHaveLength(1);
    const chosen = String(starts[0]?.[1]);
    expect(starts[0]).toEqual(planned.argv.slice(1).map((word) => (word === planned.chosen ? chosen : word)));
    expect(sb.asideFiles("gone")).toHaveLength(1);
  });
});

describe("plan and run agree on agents they do not pin", () => {
  it("an executable no plugin knows: plan says unpinned (exit 0) and run launches what plan printed", async () => {
    const sb = cleanup.sandbox();
    const plan = cli(sb, ["plan", "--", "echo", "from", "echo"]);
    expect(plan.status).toBe(0);
    const planned = JSON.parse(plan.stdout) as Planned;
    expect(planned).toMatchObject({ mode: "unpinned", agent: "echo", argv: ["echo", "from", "echo"] });
    const driver = cleanup.driver(sb.sessionpin(["run", "--", ...planned.argv]));
    expect((await exitOf(driver)).exitCode).toBe(0);
    expect(driver.text).toContain("from echo");
  });

  it("Aider with its history to restore, asked for by SESSIONPIN_AIDER_RESTORE_HISTORY: plan prints the flag run adds", async () => {
    const sb = cleanup.sandbox({ SESSIONPIN_AIDER_RESTORE_HISTORY: "1" });
    writeFileSync(join(sb.dir, ".aider.chat.history.md"), "# aider chat started\n");
    const planned = JSON.parse(cli(sb, ["plan", "--", "aider", "--model", "x"]).stdout) as Planned;
    expect(planned).toMatchObject({ mode: "unpinned", argv: ["aider", "--model", "x", "--restore-chat-history"] });
    const driver = cleanup.driver(sb.sessionpin(["run", "--", "aider", "--model", "x"]));
    expect((await exitOf(driver)).exitCode).toBe(0);
    expect(sb.fakeStarts("aider")).toEqual([planned.argv.slice(1)]);
  });
});
