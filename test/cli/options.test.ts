import { chmodSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { agents } from "../../src/agents/registry.js";
import { agentName, checkedName, choosePlugin, fromEnvironment, parseOptions, parseWithCommand, parseWithPositionals, pointerPathFor, readPrompt, RUN_OPTIONS, seconds } from "../../src/cli/options.js";
import { SessionpinError } from "../../src/errors.js";
import { useTempDir } from "../pointer/tempdir.js";

const tmp = useTempDir();
const USAGE = "Usage: sessionpin run [options] [--] <agent> [args…]";

/** The SessionpinError `run` throws: its code and message. */
function usageError(run: () => unknown): { code: string; message: string } {
  try {
    run();
  } catch (error) {
    if (error instanceof SessionpinError) return { code: error.code, message: error.message };
    throw error;
  }
  throw new Error("no error");
}

describe("parseWithCommand", () => {
  it("stops sessionpin's options at -- or the first word, so the agent's own flags are its own", () => {
    expect(parseWithCommand(["--key", "pr-7", "--pty", "claude", "-p", "--key", "x"], RUN_OPTIONS, USAGE, {})).toEqual({ values: { key: "pr-7", pty: true }, command: ["claude", "-p", "--key", "x"] });
    expect(parseWithCommand(["--prompt=-starts-with-dash", "--", "--weird-agent", "a"], RUN_OPTIONS, USAGE, {})).toEqual({ values: { prompt: "-starts-with-dash" }, command: ["--weird-agent", "a"] });
    expect(parseWithCommand(["-h"], RUN_OPTIONS, USAGE, {})).toEqual({ values: { help: true }, command: [] });
    expect(parseWithCommand(["--key=a b", "amp", "-x"], RUN_OPTIONS, USAGE, {})).toEqual({ values: { key: "a b" }, command: ["amp", "-x"] });
  });

  it("refuses an unknown flag or a missing value in one line that points at --help", () => {
    expect(usageError(() => parseWithCommand(["--bogus", "amp"], RUN_OPTIONS, USAGE, {}))).toEqual({ code: "usage", message: expect.stringMatching(/^sessionpin: Unknown option '--bogus'.* \(`sessionpin run --help` lists the options\)$/) });
    expect(usageError(() => parseOptions(["--key"], RUN_OPTIONS, "no usage line", {})).message).toMatch(/\(`sessionpin --help` lists the options\)$/);
    expect(usageError(() => parseWithPositionals(["word"], RUN_OPTIONS, USAGE, {}, false)).message).toMatch(/^sessionpin: Unexpected argument 'word'/);
  });
});

describe("fromEnvironment", () => {
  it("fills each flag the command line left out from SESSIONPIN_<FLAG>, or the option's own variable", () => {
    const options = { ...RUN_OPTIONS, dir: { type: "string", env: "SESSIONPIN_SHIM_DIR" } } as const;
    const env = { SESSIONPIN_WAIT_LOCK: "5", SESSIONPIN_KEY: "from-env", SESSIONPIN_NOTIFY: " http://a  http://b ", SESSIONPIN_RECORD_INPUT: "Yes", SESSIONPIN_PTY: "0", SESSIONPIN_SHIM_DIR: "/s", SESSIONPIN_HELP: "1", SESSIONPIN_LOG: "" };
    expect(fromEnvironment({ key: "from-flag" }, options, env)).toEqual({ key: "from-flag", "wait-lock": "5", notify: ["http://a", "http://b"], "record-input": true, pty: false, dir: "/s" });
  });

  it("lets a flag on the command line silence its rival's variable", () => {
    expect(fromEnvironment({ prompt: "typed" }, RUN_OPTIONS, { SESSIONPIN_PROMPT_FILE: "/p" })).toEqual({ prompt: "typed" });
    expect(fromEnvironment({ "no-pty": true }, RUN_OPTIONS, { SESSIONPIN_PTY: "1" })).toEqual({ "no-pty": true });
    expect(fromEnvironment({}, RUN_OPTIONS, { SESSIONPIN_PTY: "1", SESSIONPIN_NO_PTY: "1" })).toEqual({ pty: true, "no-pty": true });
  });

  it("refuses a boolean it cannot read, and a key or message ID set but empty", () => {
    expect(usageError(() => fromEnvironment({}, RUN_OPTIONS, { SESSIONPIN_PTY: "maybe" })).message).toBe("sessionpin: SESSIONPIN_PTY=maybe: expected 1, true, yes, 0, false or no");
    expect(usageError(() => fromEnvironment({}, RUN_OPTIONS, { SESSIONPIN_KEY: "" })).message).toBe("sessionpin: SESSIONPIN_KEY is set but empty (an unset variable?): give it a value, or unset it");
    expect(usageError(() => fromEnvironment({}, RUN_OPTIONS, { SESSIONPIN_MESSAGE_ID: "" })).code).toBe("usage");
  });
});

describe("readPrompt", () => {
  it("reads --prompt-file whole, without its trailing newlines, or takes --prompt as it is", () => {
    const file = join(tmp.path, "task.txt");
    writeFileSync(file, "fix the bug\n  in main\n\n");
    expect(readPrompt({ "prompt-file": file })).toBe("fix the bug\n  in main");
    expect(readPrompt({ prompt: " as is \n" })).toBe(" as is \n");
    expect(readPrompt({})).toBeUndefined();
  });

  it("refuses both flags, and a prompt file it cannot or must not read, naming the file", () => {
    expect(usageError(() => readPrompt({ prompt: "a", "prompt-file": "b" })).message).toBe("sessionpin: give --prompt or --prompt-file, not both");
    const missing = join(tmp.path, "missing.txt");
    expect(usageError(() => readPrompt({ "prompt-file": missing }))).toMatchObject({ code: "prompt-file" });
    mkdirSync(join(tmp.path, "folder"));
    expect(usageError(() => readPrompt({ "prompt-file": join(tmp.path, "folder") })).message).toMatch(new RegExp(`^sessionpin: --prompt-file ${join(tmp.path, "folder")}: `));
    const big = join(tmp.path, "big.txt");
    writeFileSync(big, Buffer.alloc((1 << 20) + 1, 0x61));
    expect(usageError(() => readPrompt({ "prompt-file": big })).code).toBe("prompt-file");
    const unreadable = join(tmp.path, "locked.txt");
    writeFileSync(unreadable, "x");
    chmodSync(unreadable, 0);
    if (process.getuid?.() !== 0) expect(usageError(() => readPrompt({ "prompt-file": unreadable })).code).toBe("prompt-file");
  });
});

describe("names, pointers and numbers from flags", () => {
  it("checkedName takes a chat thread's or message's ID, and refuses blank, overlong or control characters", () => {
    expect(checkedName("key", "slack:C01/1700000000.000100")).toBe("slack:C01/1700000000.000100");
    expect(checkedName("key", undefined)).toBeUndefined();
    for (const bad of ["", "   ", "a".repeat(1025), "line\nbreak", "tab\there"]) {
      expect(usageError(() => checkedName("message-id", bad)).message, JSON.stringify(bad)).toMatch(/^sessionpin: --message-id ".*": expected 1 to 1024 characters, not only spaces, no control characters$/);
    }
  });

  it("pointerPathFor files a pointer by folder and key, takes a named file, and refuses an empty name", () => {
    const env = { HOME: join(tmp.path, "home"), XDG_STATE_HOME: join(tmp.path, "state") };
    const plain = pointerPathFor(undefined, "claude", env, "/w/app");
    const keyed = pointerPathFor(undefined, "claude", env, "/w/app", "pr-7");
    expect(plain.startsWith(join(tmp.path, "state", "sessionpin"))).toBe(true);
    expect(keyed).not.toBe(plain);
    expect(pointerPathFor(join(tmp.path, "mine.json"), "claude", env, "/w/app")).toBe(join(tmp.path, "mine.json"));
    expect(usageError(() => pointerPathFor("", "claude", env, "/w/app")).message).toMatch(/^sessionpin: --pointer: empty path/);
    expect(usageError(() => pointerPathFor(undefined, "claude", env, "/w/app", " ")).code).toBe("usage");
  });

  it("seconds reads a number of seconds 0 or more as milliseconds", () => {
    expect(seconds("wait-lock", undefined, 2)).toBe(2000);
    expect(seconds("wait-lock", "0.25", 2)).toBe(250);
    expect(seconds("wait-lock", "0", 2)).toBe(0);
    for (const bad of ["-1", "soon", "Infinity", "NaN"]) expect(usageError(() => seconds("wait-lock", bad, 2)).message).toBe(`sessionpin: --wait-lock ${bad}: expected a number of seconds (0 or more)`);
  });

  it("chooses the plugin --agent names, else the executable's, and files an unknown one under the executable's name", () => {
    expect(choosePlugin(undefined, "/usr/local/bin/claude", [])?.name).toBe("claude");
    expect(choosePlugin("amp", "/usr/local/bin/claude", [])?.name).toBe("amp");
    expect(choosePlugin(undefined, "/bin/unknown-tool", [])).toBeUndefined();
    expect(usageError(() => choosePlugin("nosuch", "claude", []))).toMatchObject({ code: "unknown-agent", message: expect.stringMatching(/^sessionpin: --agent nosuch: no such plugin \(known: .*claude.*\)$/) });
    expect(agentName(agents.claude, "/x/y")).toBe("claude");
    expect(agentName(undefined, "/opt/bin/tool")).toBe("tool");
  });
});
