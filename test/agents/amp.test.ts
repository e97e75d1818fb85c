import { describe, expect, it } from "vitest";
import { amp } from "../../src/agents/amp.js";
import { judgeLine } from "../../src/engine/match.js";
import { itSaysKinds } from "./kinds.js";

const ID = "T-019c479a-39cc-72af-a2d1-65a965c076ec";

describe("amp argv", () => {
  it("resumes with global flags kept, before or after, and the thread as a positional", () => {
    expect(amp.warmArgs(["--mode", "smart"], ID)).toEqual(["--mode", "smart", "threads", "continue", ID]);
    expect(amp.warmArgs(["-m", "smart", "--dangerously-allow-all", "--log-file=/tmp/a.log"], ID)).toEqual([
      "-m", "smart", "--dangerously-allow-all", "--log-file=/tmp/a.log", "threads", "continue", ID,
    ]);
  });

  it("drops the -x/--execute message on a warm start, in every spelling, and stays in execute mode", () => {
    expect(amp.warmArgs(["-x", "fix the bug", "--stream-json"], ID)).toEqual(["--stream-json", "threads", "continue", ID, "-x"]);
    expect(amp.warmArgs(["--execute=fix it", "-m", "rush"], ID)).toEqual(["-m", "rush", "threads", "continue", ID, "-x"]);
    expect(amp.warmArgs(["--stream-json", "-x"], ID)).toEqual(["--stream-json", "threads", "continue", ID, "-x"]);
  });

  it("keeps an option's value even when it looks like a command word", () => {
    expect(amp.warmArgs(["--title", "threads"], ID)).toEqual(["--title", "threads", "threads", "continue", ID]);
  });

  it("creates the thread up front only for interactive starts, with the same global flags", () => {
    const upfront = amp.upfront!;
    expect(upfront.applies(["--mode", "smart"])).toBe(true);
    expect(upfront.applies(["-x", "hi"])).toBe(false);
    expect(upfront.argv(["--mode", "smart", "--visibility", "private"])).toEqual([
      "--mode", "smart", "--visibility", "private", "threads", "new",
    ]);
  });

  it("reads the new thread from a URL or a bare ID, and nothing else", () => {
    const parse = amp.upfront!.parse;
    expect(parse(`https://ampcode.com/threads/${ID}\n`)).toBe(ID);
    expect(parse(`http://127.0.0.1:8080/threads/${ID}`)).toBe(ID);
    expect(parse(`${ID}\n`)).toBe(ID);
    expect(parse(`Created thread\n${ID}`)).toBe(ID);
    expect(parse(`see https://ampcode.com/threads/${ID}x`)).toBeUndefined();
    expect(parse(`Error: Cannot reach Amp servers. Are you offline?`)).toBeUndefined();
    expect(parse(`thread ${ID.toUpperCase()}`)).toBeUndefined();
  });

  it("delivers a cold prompt by PTY when interactive, as the -x message in execute mode", () => {
    expect(amp.coldArgs(["--mode", "smart"], "do it")).toEqual({ args: ["--mode", "smart"], promptVia: "pty" });
    expect(amp.coldArgs(["-x", "--stream-json"], "do it")).toEqual({ args: ["--stream-json", "-x", "do it"], promptVia: "argv" });
    // The command's own message wins; the prompt is not added a second time.
    expect(amp.coldArgs(["-x", "own message"], "do it")).toEqual({ args: ["-x", "own message"], promptVia: "none" });
  });
});

describe("amp kinds of invocation", () => {
  itSaysKinds(amp, {
    none: [
      ["--version"], ["-V"], ["-v"], ["--help"], ["-h"], ["version"], ["threads", "list"], ["threads"], ["threads", "new"],
      ["t", "n"], ["login"], ["review"], ["threads", "continue", ID, "--help"],
    ],
    unpinned: [["--no-tui"]],
    caller: [
      [["threads", "continue", ID], { id: ID, via: `threads continue ${ID}` }],
      [["-m", "smart", "threads", "continue", ID, "-x", "go on", "--stream-json"], { id: ID, via: `threads continue ${ID}` }],
      [["t", "c", ID], { id: ID, via: `t c ${ID}` }],
      [["thread", "continue", `https://ampcode.com/threads/${ID}`], { id: ID, via: `thread continue https://ampcode.com/threads/${ID}` }],
      [["threads", "continue"], { via: "threads continue" }], // a picker
      [["threads", "continue", "--last"], { via: "threads continue --last" }],
      [["threads", "continue", ID.toUpperCase()], { via: `threads continue ${ID.toUpperCase()}` }],
      [["threads", "continue", `${ID}x`], { via: `threads continue ${ID}x` }],
      [["last"], { via: "last" }],
      [["l", "-x", "go on"], { via: "l" }],
    ],
    pinned: [[], ["--mode", "smart"], ["-x", "threads continue please"], ["--title", "threads"], ["-x", "resume"], ["--stream-json", "-x"]],
  });
});

describe("amp rules", () => {
  const line = (json: Record<string, unknown>) => ({ n: 1, text: JSON.stringify(json), json });

  it("takes session_id by field from init (provisional) and result (confirmed)", () => {
    expect(judgeLine(amp, line({ type: "system", subtype: "init", session_id: ID }))).toEqual([
      { kind: "taken", rule: "system-init", id: ID, state: "provisional" },
    ]);
    expect(judgeLine(amp, line({ type: "result", subtype: "success", session_id: ID }))).toEqual([
      { kind: "taken", rule: "result", id: ID, state: "confirmed" },
    ]);
  });

  it("refuses ID-shaped values that break the grammar, and never reads text lines", () => {
    for (const bad of [`-${ID}`, `${ID}; rm -rf /`, ID.toUpperCase(), ID.slice(2), `M-${ID.slice(2)}`]) {
      expect(judgeLine(amp, line({ type: "result", session_id: bad }))).toEqual([
        { kind: "refused", rule: "result", reason: "grammar", value: bad },
      ]);
    }
    expect(judgeLine(amp, { n: 1, text: `thread ${ID} session_id ${ID}` })).toEqual([]);
    expect(judgeLine(amp, line({ type: "stream_event", session_id: ID }))).toEqual([]);
  });
});
