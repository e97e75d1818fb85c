import { describe, expect, it } from "vitest";
import { familyArgv, familyCarry, familySessionDir, sessionHeaderOf, SESSION_ID, type FamilyArgv } from "../../src/agents/pi-family.js";

/**
 * What pi and omp share, on a member made up here: each switch of FamilyArgv turned both ways.
 * The members as they are (pi 0.73.1, omp 18.2.3) are pi.test.ts's and omp.test.ts's.
 */
const ID = "01a2145a-d031-74f3-8a5b-2c3d4e5f6071";
const SESSION_DIR = "/custom/sessions";

const member = (o: Partial<FamilyArgv> = {}) => familyArgv({
  name: "kin",
  dot: ".kin",
  spec: { values: ["--session", "--session-dir", "--mode", "--model"] },
  sessionPicks: { named: ["--session"], other: ["-r", "--resume", "-c", "--continue"] },
  noConversation: [{ names: ["--version"], why: "no conversation" }],
  unpinned: [{ names: ["--no-session"], why: "keeps nothing" }],
  protocolModes: ["rpc"],
  subcommands: new Set(["config"]),
  subcommandFirst: false,
  separator: true,
  ...o,
});

describe("familySessionDir", () => {
  it("is one folder per working folder under ~/<dot>/agent/sessionpin, its path made one name", () => {
    expect(familySessionDir(".kin", { home: "/h", cwd: "/work/my app" })).toBe("/h/.kin/agent/sessionpin/--work-my app--");
    expect(familySessionDir(".kin", { home: "/h", cwd: "C:\\work\\x" })).toBe("/h/.kin/agent/sessionpin/--C--work-x--");
    expect(familySessionDir(".kin", { home: "/h", cwd: "/" })).toBe("/h/.kin/agent/sessionpin/----");
  });
});

describe("sessionHeaderOf", () => {
  it("finds the header on the first line or after title lines only", () => {
    const header = { type: "session", version: 3, id: ID, cwd: "/w" };
    expect(sessionHeaderOf(`${JSON.stringify(header)}\n{"type":"message"}\n`)).toEqual(header);
    expect(sessionHeaderOf(`{"type":"title","v":1}\n{"type":"title","v":1}\n${JSON.stringify(header)}`)).toEqual(header);
    expect(sessionHeaderOf(`{"type":"message"}\n${JSON.stringify(header)}`)).toBeUndefined();
  });

  it("says nothing of a torn line, a line that is no object, or a header past the eighth line", () => {
    expect(sessionHeaderOf('{"type":"sess')).toBeUndefined();
    expect(sessionHeaderOf('["session"]\n')).toBeUndefined();
    expect(sessionHeaderOf("null\n")).toBeUndefined();
    expect(sessionHeaderOf(`${'{"type":"title"}\n'.repeat(8)}{"type":"session","id":"${ID}"}`)).toBeUndefined();
  });
});

describe("familyCarry", () => {
  it("owns only the session's own file name, its ID taken literally", () => {
    const carry = familyCarry(".kin");
    if (carry.kind !== "files") throw new Error("files expected");
    expect(carry.owns(`2026-11-22T22-10-31-056Z_${ID}.jsonl`, ID)).toBe(true);
    expect(carry.owns(`2026-11-22T22-10-31-056Z_${ID}.jsonl.tmp`, ID)).toBe(false);
    expect(carry.owns("2026-11-22T22-10-31-056Z_abcXdef.jsonl", "abc.def")).toBe(false);
    expect(carry.notTurn?.('{"type":"title","v":1}')).toBe(true);
    expect(carry.notTurn?.('{"type":"message"}')).toBe(false);
  });
});

describe("familyArgv", () => {
  it("reads a subcommand as the first word after options, or only as the very first argument", () => {
    expect(member().noConversation?.(["--model", "m", "config"])).toBe("`kin config` is a subcommand, not a conversation");
    expect(member({ subcommandFirst: true }).noConversation?.(["--model", "m", "config"])).toBeUndefined();
    expect(member({ subcommandFirst: true }).noConversation?.(["config"])).toBe("`kin config` is a subcommand, not a conversation");
    expect(member().noConversation?.(["--version"])).toBe("no conversation");
  });

  it("leaves unpinned a session no one can resume, one a client drives, or a foreign command's", () => {
    const kin = member({ foreignCommands: new Map([["join", "joins another's session"]]) });
    expect(kin.unpinned?.(["--no-session"])).toBe("keeps nothing");
    expect(kin.unpinned?.(["--mode", "rpc"])).toBe("`kin --mode rpc` is driven by its client, which owns the session");
    expect(kin.unpinned?.(["--mode", "json", "hi"])).toBeUndefined();
    expect(kin.unpinned?.(["join", "abc"])).toBe("`kin join` joins another's session");
  });

  it("takes -p and --mode json as one-shot, and neither @files nor a launch word as the message", () => {
    const kin = member({ launch: "launch" });
    expect(kin.invocation?.(["-p", "@a.ts", "fix", "it"])).toEqual({ message: "fix it", oneShot: true });
    expect(kin.invocation?.(["--mode", "json", "launch", "go"])).toEqual({ message: "go", oneShot: true });
    expect(kin.invocation?.(["launch"])).toEqual({ message: undefined, oneShot: false });
  });

  it("names the caller's session only by an ID the grammar takes whole", () => {
    const nanoid = "V1StGXR8_Z5jdHi6B-myT";
    expect(new RegExp(`^${SESSION_ID}$`).test(nanoid)).toBe(true);
    expect(member().callerSession?.(["--session", ID])).toEqual({ id: ID, via: `--session ${ID}` });
    expect(member().callerSession?.(["--session", nanoid])).toEqual({ id: nanoid, via: `--session ${nanoid}` });
    // A leading "-" would make `--session -…` a bare --session: never an ID.
    expect(member().callerSession?.(["--session=-1StGXR8_Z5jdHi6B-myT"])).toEqual({ via: "--session=-1StGXR8_Z5jdHi6B-myT" });
    expect(member().callerSession?.(["--session", "01a2145a"])).toEqual({ via: "--session 01a2145a" });
    expect(member().callerSession?.(["-c"])).toEqual({ via: "-c" });
  });

  it("starts cold in the caller's --session-dir, or its own first; drops -c; puts the prompt where the member reads it", () => {
    expect(member().coldArgs(["--session-dir", SESSION_DIR, "-c", "--model", "m"], "task")).toEqual({ args: ["--session-dir", SESSION_DIR, "--model", "m", "task"], promptVia: "argv" });
    const own = member().coldArgs(["--model", "m"], undefined);
    expect(own.args.slice(0, 1)).toEqual(["--session-dir"]);
    expect(own.args.slice(2)).toEqual(["--model", "m"]);
    expect(own.promptVia).toBe("pty");
    expect(member().coldArgs(["--session-dir", SESSION_DIR, "already"], "task")).toEqual({ args: ["--session-dir", SESSION_DIR, "already"], promptVia: "none" });
  });

  it("gives a prompt that looks like an option after --, or, with no --, typed, or with a space in front when one-shot", () => {
    const dir = ["--session-dir", SESSION_DIR];
    expect(member().coldArgs(dir, "-x please")).toEqual({ args: [...dir, "--", "-x please"], promptVia: "argv" });
    const bare = member({ separator: false });
    expect(bare.coldArgs(dir, "@file please")).toEqual({ args: dir, promptVia: "pty" });
    expect(bare.coldArgs([...dir, "-p"], "-x please")).toEqual({ args: [...dir, "-p", " -x please"], promptVia: "argv" });
  });

  it("resumes with the options kept, every other session pick and prompt dropped, and --session-dir then --session last", () => {
    expect(member().warmArgs(["--model", "m", "-c", "--resume", "--session", "old", "--session-dir", SESSION_DIR, "@f", "hello"], ID)).toEqual(["--model", "m", "--session-dir", SESSION_DIR, "--session", ID]);
  });
});
