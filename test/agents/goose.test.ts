import { describe, expect, it } from "vitest";
import { goose } from "../../src/agents/goose.js";
import { judgeLine, matchesAny } from "../../src/engine/match.js";
import { itSaysKinds } from "./kinds.js";

const ID = "20260222_9";
const FRESH = "6f1d2a3b-4c5d-4e6f-8a7b-9c0d1e2f3a4b";
const NAME = `sessionpin-${FRESH}`;

describe("goose argv", () => {
  it("names a new session up front with -n sessionpin-<uuid>, unless the command names or resumes one", () => {
    expect(goose.chooseId?.([], FRESH)).toEqual({ id: NAME, args: ["session", "-n", NAME] });
    expect(goose.chooseId?.(["session", "--with-builtin", "developer"], FRESH)).toEqual({
      id: NAME, args: ["session", "--with-builtin", "developer", "-n", NAME],
    });
    expect(goose.chooseId?.(["run", "-s", "-i", "task.md"], FRESH)?.args).toEqual(["run", "-s", "-i", "task.md", "-n", NAME]);
    for (const own of [["session", "-n", "mine"], ["session", "--name=mine"], ["session", "-r"], ["run", "--resume", "-t", "x"],
      ["session", "-r", "--session-id", ID], ["session", "--path", "/tmp/s.jsonl"]]) {
      expect(goose.chooseId?.(own, FRESH)).toBeUndefined();
    }
  });

  it("the chosen name fits the grammar; goose's own IDs do; other names and words do not", () => {
    for (const id of [NAME, ID, "20250305_113223", "20251108_1"]) expect(goose.grammar.test(id)).toBe(true);
    for (const id of ["my-project", "CLI Session", "sessionpin-123", `sessionpin-${FRESH.toUpperCase()}`, "2026022_9", `${ID} `, "found"]) {
      expect(goose.grammar.test(id)).toBe(false);
    }
  });

  it("resumes a session of goose <= 1.0 by its file's name with -n: a random name (1.0) or a timestamp stem", () => {
    for (const name of ["k3x9a1qz", "20250320_014129"]) {
      expect(goose.grammar.test(name)).toBe(true);
      expect(goose.warmArgs(["session", "--debug"], name)).toEqual(["session", "-r", "-n", name, "--debug"]);
      expect(goose.warmArgs(["run", "-t", "go on"], name)).toEqual(["run", "-r", "-n", name]);
    }
    for (const word of ["k3x9a1q", "k3x9a1qzz", "K3X9A1QZ", "my-notes", "k3x9_1qz"]) expect(goose.grammar.test(word)).toBe(false);
  });

  it("gives `goose run` the prompt with -t when it has no input of its own; `goose session` gets it typed", () => {
    expect(goose.coldArgs(["run", "-s"], "fix it")).toEqual({ args: ["run", "-s", "-t", "fix it"], promptVia: "argv" });
    expect(goose.coldArgs(["run", "-s", "--instructions", "task.md"], "fix it")).toEqual({
      args: ["run", "-s", "--instructions", "task.md"], promptVia: "none",
    });
    expect(goose.coldArgs(["run", "--recipe", "r.yaml"], "fix it").promptVia).toBe("none");
    expect(goose.coldArgs(["session"], "fix it")).toEqual({ args: ["session"], promptVia: "pty" });
    expect(goose.coldArgs([], "fix it")).toEqual({ args: [], promptVia: "pty" });
  });

  it("resumes with `goose session -r`: by --session-id for an ID, by -n for a chosen name", () => {
    expect(goose.warmArgs([], ID)).toEqual(["session", "-r", "--session-id", ID]);
    expect(goose.warmArgs(["session", "-n", NAME, "--with-builtin", "developer", "--debug"], ID)).toEqual([
      "session", "-r", "--session-id", ID, "--with-builtin", "developer", "--debug",
    ]);
    expect(goose.warmArgs(["session", "--max-turns", "25"], NAME)).toEqual(["session", "-r", "-n", NAME, "--max-turns", "25"]);
    // An earlier -r/--fork/--session-id is replaced, not doubled.
    expect(goose.warmArgs(["session", "-r", "--fork", "--session-id", "20250101_1", "--history"], ID)).toEqual([
      "session", "-r", "--session-id", ID, "--history",
    ]);
  });

  it("never sends a `goose run` task again: --instructions, -t and recipes stay behind; a one-shot run stays one", () => {
    // `run -s` stays open after its input: resumed as an interactive session, without run-only options.
    expect(goose.warmArgs(["run", "-s", "--instructions", "/tmp/prompt.txt", "--with-builtin", "developer", "-n", NAME], ID)).toEqual([
      "session", "-r", "--session-id", ID, "--with-builtin", "developer",
    ]);
    expect(goose.warmArgs(["run", "-t", "fix it", "--provider", "openai", "--model", "gpt-4o", "-q", "--output-format", "json",
      "--with-extension", "npx -y server", "--max-tool-repetitions", "3"], ID)).toEqual([
      "run", "--provider", "openai", "--model", "gpt-4o", "-q", "--output-format", "json", "--with-extension", "npx -y server",
      "--max-tool-repetitions", "3", "-r", "--session-id", ID,
    ]);
    expect(goose.warmArgs(["run", "--recipe", "r.yaml", "--params", "a=b", "--system", "be terse"], ID)).toEqual([
      "run", "--system", "be terse", "-r", "--session-id", ID,
    ]);
  });

});

describe("goose kinds of invocation", () => {
  itSaysKinds(goose, {
    none: [
      ["--version"], ["-V"], ["--help"], ["-h"], ["session", "--help"], ["configure"], ["session", "list", "--format", "json"],
      ["s", "list"], ["run", "--recipe", "r.yaml", "--explain"], ["run", "--recipe", "r.yaml", "--render-recipe"],
    ],
    unpinned: [["run", "--no-session", "-t", "x"]],
    caller: [
      [["session", "-r", "--session-id", ID], { id: ID, via: `-r --session-id ${ID}` }],
      [["session", "--session-id", ID], { id: ID, via: `--session-id ${ID}` }],
      [["run", "--resume", "-n", NAME, "-t", "go on"], { id: NAME, via: `--resume -n ${NAME}` }],
      [["session", "-r", "-n", "project-x"], { via: "-r -n project-x" }], // a name of the user's own
      [["session", "-r"], { via: "-r" }], // the last session
      [["s", "--resume", "--path", "./playground.jsonl"], { via: "--resume --path ./playground.jsonl" }],
      [["session", "-r", "--session-id", ID, "--fork"], { via: `-r --session-id ${ID} --fork` }], // a new session
    ],
    pinned: [[], ["session"], ["session", "-n", "x"], ["run", "-t", "session list"], ["run", "-t", "resume the work"], ["--model", "resume"]],
  });
});

describe("goose rules", () => {
  const text = (value: string) => ({ n: 1, text: value });
  const row = (value: string) => ({ text: value, fullRow: false });
  const taken = (verdicts: ReturnType<typeof judgeLine>) => verdicts.filter((v) => v.kind === "taken");

  it("takes the banner's session id: provisional when starting, confirmed when goose resumed it", () => {
    expect(taken(judgeLine(goose, text(`    session id: ${ID}`), row("starting session | provider: openai model: gpt-4o")))).toEqual([
      { kind: "taken", rule: "banner", id: ID, state: "provisional" },
    ]);
    expect(taken(judgeLine(goose, text(`    session id: ${ID}`), row("resuming session | provider: openai model: gpt-4o")))).toEqual([
      { kind: "taken", rule: "banner-resumed", id: ID, state: "confirmed" },
      { kind: "taken", rule: "banner", id: ID, state: "provisional" },
    ]);
  });

  it("reads the newer two-row status banner", () => {
    expect(taken(judgeLine(goose, text(`     ${ID} · /home/coder/project`), row("  ● new session · openai gpt-4o")))).toEqual([
      { kind: "taken", rule: "status", id: ID, state: "provisional" },
    ]);
    expect(taken(judgeLine(goose, text(`     ${ID} · /home/coder/project`), row("  ● resuming · openai gpt-4o")))).toEqual([
      { kind: "taken", rule: "status-resumed", id: ID, state: "confirmed" },
    ]);
    // The ID row alone, without its status row above, is nothing.
    expect(judgeLine(goose, text(`     ${ID} · /home/coder/project`), row("( O)> hello"))).toEqual([]);
  });

  it("ignores IDs in chat text, names that are not IDs, and JSON lines", () => {
    for (const line of [`- the old session id: ${ID}`, `run goose session -r --session-id ${ID}`, `Session ${ID} had the same bug`]) {
      expect(taken(judgeLine(goose, text(line)))).toEqual([]);
    }
    expect(judgeLine(goose, text("    session id: my-project"))).toEqual([]);
    const json = { type: "message", message: { content: [{ type: "text", text: `    session id: ${ID}` }] } };
    expect(judgeLine(goose, { n: 1, text: JSON.stringify(json), json })).toEqual([]);
  });

  it("knows goose's refusals, including a resume that silently starts a new session", () => {
    for (const line of [
      `  error: Cannot resume session ${ID} - no such session exists`,
      "  error: Cannot resume session /home/u/.local/share/goose/sessions/x.jsonl - no such session exists",
      "  error: Cannot resume - no previous sessions found",
      `Error: No session found with name '${NAME}'`,
      "Error: No session found to resume",
      `Warning: session '${NAME}' not found, starting a new session`,
      `Warning: session ${NAME} does not exist; creating a new session`,
    ]) {
      expect(matchesAny(goose.rejected, line), line).toBe(true);
    }
    for (const line of ["starting session | provider: openai model: gpt-4o", "Warning: Failed to start extension 'memory', continuing without it",
      "goose: noted (1 messages in this session)", "Creating a new session file for the report"]) {
      expect(matchesAny(goose.rejected, line), line).toBe(false);
    }
    expect(matchesAny(goose.transient, "No provider configured. Run 'goose configure' first")).toBe(true);
  });
});
