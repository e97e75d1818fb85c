import { describe, expect, it } from "vitest";
import { Extractor } from "../../src/engine/extract.js";
import { judgeLine, matchesAny, type Verdict } from "../../src/engine/match.js";
import { opencode, opencodeLogPath, sessionCreatedIn } from "../../src/agents/opencode.js";
import { itSaysKinds } from "./kinds.js";

const ID = "ses_494719016ffe85dkDMj0FPRbHK";
const OTHER = "ses_dfab83f79ffeEgcpiX9CN4mzV7";
const text = (t: string) => ({ n: 1, text: t });
const json = (o: Record<string, unknown>) => ({ n: 1, text: JSON.stringify(o), json: o });
const taken = (verdicts: Verdict[]) => verdicts.flatMap((v) => (v.kind === "taken" ? [[v.rule, v.id, v.state]] : []));

describe("opencode argv", () => {
  it("resumes the TUI with -s <id>, keeping the project folder and dropping --prompt and other session picks", () => {
    expect(opencode.warmArgs(["--prompt", "fix the bug", "-m", "anthropic/claude"], ID)).toEqual(["-m", "anthropic/claude", "-s", ID]);
    expect(opencode.warmArgs(["../app", "--prompt=fix it", "-c", "--fork"], ID)).toEqual(["../app", "-s", ID]);
    expect(opencode.warmArgs(["--agent", "plan", "--session", OTHER], ID)).toEqual(["--agent", "plan", "-s", ID]);
  });

  it("resumes run mode with `run [opts] -s <id>`, the message and its attachments dropped", () => {
    expect(opencode.warmArgs(["run", "--format", "json", "fix", "the", "bug"], ID)).toEqual(["run", "--format", "json", "-s", ID]);
    expect(opencode.warmArgs(["run", "-f", "a.ts", "--command", "review", "--title", "x", "--", "-v flag"], ID)).toEqual(["run", "--title", "x", "-s", ID]);
    // An option's value is never taken for the message.
    expect(opencode.warmArgs(["run", "--agent", "run", "-m", "p/m", "go"], ID)).toEqual(["run", "--agent", "run", "-m", "p/m", "-s", ID]);
  });

  it("passes the cold prompt as the TUI's --prompt or run's message, unless the command has one", () => {
    expect(opencode.coldArgs(["-m", "p/m"], "do it")).toEqual({ args: ["-m", "p/m", "--prompt", "do it"], promptVia: "argv" });
    expect(opencode.coldArgs([], "-v is broken")).toEqual({ args: ["--prompt=-v is broken"], promptVia: "argv" });
    expect(opencode.coldArgs(["run", "--format", "json"], "do it")).toEqual({ args: ["run", "--format", "json", "do it"], promptVia: "argv" });
    expect(opencode.coldArgs(["run", "own"], "do it")).toEqual({ args: ["run", "own"], promptVia: "none" });
    expect(opencode.coldArgs(["--prompt", "own"], "do it")).toEqual({ args: ["--prompt", "own"], promptVia: "none" });
    // A warm start's message (--resume-prompt): run takes it after `-s <id>`; the TUI ignores --prompt there.
    expect(opencode.coldArgs(["run", "--format", "json", "-s", ID], "next")).toEqual({ args: ["run", "--format", "json", "-s", ID, "next"], promptVia: "argv" });
    expect(opencode.coldArgs(["-m", "p/m", "-s", ID], "next")).toEqual({ args: ["-m", "p/m", "-s", ID], promptVia: "pty" });
  });

});

describe("opencode kinds of invocation", () => {
  itSaysKinds(opencode, {
    none: [["--version"], ["-v"], ["--help"], ["-h"], ["run", "-h"], ["session", "list"], ["export", ID], ["auth", "login"], ["models"]],
    unpinned: [["serve"], ["web"], ["acp"], ["attach", "http://localhost:4096"], ["pr", "42"]],
    caller: [
      [["-s", ID], { id: ID, via: `-s ${ID}` }],
      [["run", "--session", ID, "go on"], { id: ID, via: `--session ${ID}` }],
      [[`--session=${ID}`], { id: ID, via: `--session=${ID}` }],
      [["-s", "ses_short"], { via: "-s ses_short" }],
      [["-c"], { via: "-c" }],
      [["run", "--continue", "go on"], { via: "--continue" }],
      [["-s", ID, "--fork"], { via: `-s ${ID} --fork` }], // a new session
    ],
    pinned: [[], ["run", "hi"], ["../app"], ["--agent", "serve"], ["run", "resume the work"], ["--model", "resume"], ["--prompt", "-s"]],
  });
});

describe("opencode rules", () => {
  it("takes the top-level sessionID of run's events: provisional until a step finished", () => {
    const part = { sessionID: OTHER, type: "step-start" };
    expect(taken(judgeLine(opencode, json({ type: "step_start", sessionID: ID, part })))).toEqual([["step-start", ID, "provisional"]]);
    expect(taken(judgeLine(opencode, json({ type: "tool_use", sessionID: ID, part })))).toEqual([["event", ID, "provisional"]]);
    expect(taken(judgeLine(opencode, json({ type: "step_finish", sessionID: ID, part: { reason: "stop" } })))).toEqual([["step-finish", ID, "confirmed"]]);
    expect(judgeLine(opencode, json({ type: "session.updated", sessionID: OTHER }))).toEqual([]);
  });

  it("reads the exit screen's Continue row, not the title or message text", () => {
    expect(taken(judgeLine(opencode, text(`  Continue  opencode -s ${ID}`)))).toEqual([["exit-hint", ID, "confirmed"]]);
    expect(judgeLine(opencode, text(`  Session   Compare ${OTHER} with opencode -s ${OTHER}`))).toEqual([]);
    expect(judgeLine(opencode, text(`try opencode -s ${OTHER}`))).toEqual([]);
  });

  it("matches the grammar exactly, and words are never IDs", () => {
    const extractor = new Extractor(opencode);
    for (const bad of ["found", "management", ID.toUpperCase(), ID.slice(0, -1), "msg_20546b992001QYKfDalsFfMFyO", "ses_1C7E2A9B4F0DQk3Rm8TzVx2LpN"]) {
      expect(opencode.grammar.test(bad), bad).toBe(false);
      expect(taken(extractor.line(text(`  Continue  opencode -s ${bad}`)).verdicts), bad).toEqual([]);
    }
    expect(extractor.tracker.current).toBeUndefined();
    expect(opencode.grammar.test(ID)).toBe(true);
    expect(opencode.grammar.test(`${ID}x`)).toBe(false);
    // No delimiter is required after the ID (screen text can be glued on): it is matched by length.
    expect(taken(judgeLine(opencode, text(`  Continue  opencode -s ${ID}Ctrl+C`)))).toEqual([["exit-hint", ID, "confirmed"]]);
  });

  it("knows the rejection texts, and that a missing message says nothing about the ID", () => {
    expect(matchesAny(opencode.rejected, "Error: Session not found")).toBe(true);
    expect(matchesAny(opencode.rejected, `Error: Session not found: ${ID}`)).toBe(true);
    expect(matchesAny(opencode.transient, "Error: You must provide a message or a command")).toBe(true);
    expect(matchesAny(opencode.rejected, "Error: You must provide a message or a command")).toBe(false);
  });

  it("calls 1.18.33's provider failures transient: closed port, a refused model request, a failure after run's header", () => {
    const closed = "Error: Cannot connect to API: Unable to connect. Is the computer able to access the url?";
    const tuiRetry = "\u25a0Cannot\u2b1dconnect to API: Unable to connect. Is the computer able  the url\u2026 [retrying attempt #1]";
    const refused = `{"type":"error","timestamp":1795638040945,"sessionID":"${ID}","error":{"name":"APIError","data":{"message":"refused","statusCode":401,"isRetryable":false}}}`;
    for (const line of [closed, JSON.parse(`"${tuiRetry}"`) as string, refused, "> build · fake-model", "> plan · gpt-4.1"]) {
      expect(matchesAny(opencode.transient, line), line).toBe(true);
      expect(matchesAny(opencode.rejected, line), line).toBe(false);
    }
    // The refusal of an unknown ID is not transient, nor is a title or a message that quotes the header.
    for (const line of ["Error: Session not found", `Error: Session not found: ${ID}`, "  > build · fake-model", "Error: refused"]) {
      expect(matchesAny(opencode.transient, line), line).toBe(false);
    }
  });
});

describe("opencode log (1.18.33's ~/.local/share/opencode/log/opencode.log)", () => {
  // Real lines of 1.18.33 (a TUI run and a run in a folder with a space), cut after `title`.
  const created = (dir: string, parent = "undefined", id = "ses_deba424cfffexLzwia0wxH1kRO") =>
    `timestamp=2026-11-25T20:18:13.936Z level=INFO run=fa060889 message=created id=${id} slug=brave-lagoon version=1.18.33 projectID=global directory=${dir} path=${dir.replace(/^"?\//, "")} workspaceID=undefined parentID=${parent} title="New session - 2026-11-25T20:18:13.936Z" agent=undefined model=undefined metadata=undefined permission="[{\\"permission\\":\\"question\\",\\"pattern\\":\\"*\\",\\"action\\":\\"deny\\"}]" cost=0`;
  const context = (cwd: string, env: NodeJS.ProcessEnv = {}) => ({ home: "/h", cwd, env });

  it("takes the ID of a new top-level session of this folder", () => {
    expect(sessionCreatedIn(created("/tmp/oc-exp/t1/cwd"), context("/tmp/oc-exp/t1/cwd"))).toBe("ses_deba424cfffexLzwia0wxH1kRO");
    expect(sessionCreatedIn(created('"/tmp/oc-exp/s p/cwd"'), context("/tmp/oc-exp/s p/cwd"))).toBe("ses_deba424cfffexLzwia0wxH1kRO");
  });

  it("leaves other folders, sub-agent sessions, other messages, look-alikes and cut lines alone", () => {
    expect(sessionCreatedIn(created("/tmp/other"), context("/tmp/oc-exp/t1/cwd"))).toBeUndefined();
    expect(sessionCreatedIn(created("/tmp/oc-exp/t1/cwd/sub"), context("/tmp/oc-exp/t1/cwd"))).toBeUndefined();
    expect(sessionCreatedIn(created("/w", OTHER), context("/w"))).toBeUndefined();
    expect(sessionCreatedIn(created("/w", "undefined", "ses_1C7E2A9B4F0DQk3Rm8TzVx2LpN"), context("/w"))).toBeUndefined();
    expect(sessionCreatedIn(`timestamp=2026-11-25T20:18:14.257Z level=INFO run=fa060889 message=loop session.id=${ID} step=0`, context("/w"))).toBeUndefined();
    const quoted = `timestamp=x level=INFO run=1 message=stream title="see message=created id=${ID} directory=/w parentID=undefined" id=x`;
    expect(sessionCreatedIn(quoted, context("/w"))).toBeUndefined();
    expect(sessionCreatedIn(created('"/w x/cwd').slice(0, 200), context("/w x/cwd"))).toBeUndefined();
    expect(sessionCreatedIn("", context("/w"))).toBeUndefined();
  });

  it("lives under $XDG_DATA_HOME/opencode/log, else ~/.local/share/opencode/log", () => {
    expect(opencodeLogPath(context("/w"))).toBe("/h/.local/share/opencode/log/opencode.log");
    expect(opencodeLogPath(context("/w", { XDG_DATA_HOME: "/d" }))).toBe("/d/opencode/log/opencode.log");
  });
});
