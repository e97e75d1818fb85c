import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { defaultLogPath, resolvePointerPath } from "../../src/pointer/path.js";

const base = { agent: "claude", cwd: "/work/proj", home: "/home/u" };
const hash = (s: string) => createHash("sha256").update(s).digest("hex").slice(0, 16);

describe("resolvePointerPath", () => {
  const env = {
    SESSIONPIN_POINTER: "/env/pointer.json",
    AGENTAPI_STATE_FILE: "/agentapi/state.json",
    XDG_STATE_HOME: "/xdg",
  };

  it("prefers the --pointer flag over everything", () => {
    expect(resolvePointerPath({ ...base, env, explicit: "/flag/p.json" })).toBe("/flag/p.json");
  });

  it("then SESSIONPIN_POINTER", () => {
    expect(resolvePointerPath({ ...base, env })).toBe("/env/pointer.json");
  });

  it("then a file next to AGENTAPI_STATE_FILE", () => {
    const { SESSIONPIN_POINTER: _, ...rest } = env;
    expect(resolvePointerPath({ ...base, env: rest })).toBe("/agentapi/sessionpin-claude.json");
  });

  it("then XDG_STATE_HOME with a hash of the cwd", () => {
    const p = resolvePointerPath({ ...base, env: { XDG_STATE_HOME: "/xdg" } });
    expect(p).toBe(`/xdg/sessionpin/claude/${hash("/work/proj")}.json`);
    expect(p).toMatch(/\/[0-9a-f]{16}\.json$/);
  });

  it("falls back to ~/.local/state, also when XDG_STATE_HOME is empty or relative", () => {
    const expected = `/home/u/.local/state/sessionpin/claude/${hash("/work/proj")}.json`;
    expect(resolvePointerPath({ ...base, env: {} })).toBe(expected);
    expect(resolvePointerPath({ ...base, env: { XDG_STATE_HOME: "" } })).toBe(expected);
    expect(resolvePointerPath({ ...base, env: { XDG_STATE_HOME: "rel/state" } })).toBe(expected);
  });

  it("hashes are stable per cwd and differ between cwds", () => {
    const at = (cwd: string) => resolvePointerPath({ ...base, cwd, env: {} });
    expect(at("/a")).toBe(at("/a"));
    expect(at("/a/")).toBe(at("/a"));
    expect(at("/a")).not.toBe(at("/b"));
  });

  it("gives each --key its own file, also where the flag or SESSIONPIN_POINTER names one", () => {
    const key = "discord-1203";
    expect(resolvePointerPath({ ...base, env, explicit: "/flag/p.json", key })).toBe(`/flag/p-${hash(key)}.json`);
    expect(resolvePointerPath({ ...base, env, key })).toBe(`/env/pointer-${hash(key)}.json`);
    expect(resolvePointerPath({ ...base, env: {}, explicit: "/flag/pointer", key })).toBe(`/flag/pointer-${hash(key)}`);
    const { SESSIONPIN_POINTER: _, ...rest } = env;
    expect(resolvePointerPath({ ...base, env: rest, key })).toBe(`/agentapi/sessionpin-claude-${hash(key)}.json`);
    const threads = ["discord-1", "discord-2"].map((name) => resolvePointerPath({ ...base, env, key: name }));
    expect(new Set(threads).size).toBe(2);
  });

  it("resolves relative flag, env and agentapi paths against cwd", () => {
    expect(resolvePointerPath({ ...base, env: {}, explicit: "p.json" })).toBe("/work/proj/p.json");
    const env = { SESSIONPIN_POINTER: "../x.json" };
    expect(resolvePointerPath({ ...base, env })).toBe("/work/x.json");
    expect(resolvePointerPath({ ...base, env: { AGENTAPI_STATE_FILE: "st/state.json" } })).toBe(
      "/work/proj/st/sessionpin-claude.json",
    );
  });
});

describe("defaultLogPath", () => {
  it("swaps .json for .log", () => {
    expect(defaultLogPath("/s/abc.json")).toBe("/s/abc.log");
  });
  it("appends .log otherwise", () => {
    expect(defaultLogPath("/s/pointer")).toBe("/s/pointer.log");
    expect(defaultLogPath("/s/p.jsonx")).toBe("/s/p.jsonx.log");
  });
});
