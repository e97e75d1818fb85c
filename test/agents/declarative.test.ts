import { describe, expect, it } from "vitest";
import { definePlugin, PluginError } from "../../src/agents/declarative.js";
import { judgeLine } from "../../src/engine/match.js";
import { ACME_PLUGIN as base } from "./user/acme.js";

describe("definePlugin", () => {
  it("anchors the grammar so an ID inside a longer word is refused", () => {
    const plugin = definePlugin(base);
    expect(plugin.grammar.test("acme-0123abcd")).toBe(true);
    expect(plugin.grammar.test("xacme-0123abcd")).toBe(false);
    expect(plugin.grammar.test("acme-0123abcd; rm -rf /")).toBe(false);
    // An alternation is anchored as a whole, not at its two ends.
    const either = definePlugin({ ...base, grammar: "acme-[0-9a-f]{8}|ses_[0-9a-z]{6}" });
    expect(["acme-0123abcd", "ses_abc123"].map((id) => either.grammar.test(id))).toEqual([true, true]);
    expect(["acme-0123abcd; rm -rf ~", "/etc/passwd ses_abcdef"].map((id) => either.grammar.test(id))).toEqual([false, false]);
  });

  it("drops the prompt flag with its value on a warm start and fills the template", () => {
    const plugin = definePlugin({ ...base, valueOptions: ["--model"], prompt: { via: "flag", flag: "-p", dropFlags: ["-p"] } });
    expect(plugin.warmArgs(["--model", "big", "-p", "do it"], "acme-0123abcd")).toEqual(["--model", "big", "--resume", "acme-0123abcd"]);
    expect(plugin.coldArgs(["--model", "big"], "do it")).toEqual({ args: ["--model", "big", "-p", "do it"], promptVia: "argv" });
    expect(plugin.coldArgs(["-p", "own"], "do it")).toEqual({ args: ["-p", "own"], promptVia: "none" });
  });

  it("drops a switch on a warm start and keeps the word after it", () => {
    const plugin = definePlugin({ ...base, prompt: { via: "positional", dropSwitches: ["--new"], dropPositionals: false } });
    expect(plugin.warmArgs(["--new", "src", "--verbose"], "acme-0123abcd")).toEqual(["src", "--verbose", "--resume", "acme-0123abcd"]);
    // A dropFlags entry takes its value with it, as documented.
    const flags = definePlugin({ ...base, prompt: { via: "positional", dropFlags: ["--new"] } });
    expect(flags.warmArgs(["--new", "src", "--verbose"], "acme-0123abcd")).toEqual(["--verbose", "--resume", "acme-0123abcd"]);
    expect(() => definePlugin({ ...base, valueOptions: ["--new"], prompt: { dropSwitches: ["--new"] } })).toThrow(
      new PluginError("prompt.dropSwitches", "--new takes a value (valueOptions, dropFlags or prompt.flag): a switch takes none"),
    );
  });

  it("treats positionals as the prompt when told to, and keeps option values apart from them", () => {
    const plugin = definePlugin({ ...base, valueOptions: ["--model"], prompt: { via: "positional", dropPositionals: true } });
    expect(plugin.warmArgs(["--model", "big", "fix the bug"], "acme-0123abcd")).toEqual(["--model", "big", "--resume", "acme-0123abcd"]);
    expect(plugin.coldArgs(["--model", "big"], "do it")).toEqual({ args: ["--model", "big", "do it"], promptVia: "argv" });
  });

  it("judges JSON rules by field with conditions and text rules by the id group", () => {
    const plugin = definePlugin({
      ...base,
      json: [{ name: "hello", field: "session.id", when: { event: ["hello"] }, state: "provisional" }],
      text: [{ name: "hint", pattern: "acme --resume (?<id>\\S+)", state: "confirmed" }],
    });
    const json = { event: "hello", session: { id: "acme-0123abcd" } };
    expect(judgeLine(plugin, { n: 1, text: JSON.stringify(json), json })).toEqual([
      { kind: "taken", rule: "hello", id: "acme-0123abcd", state: "provisional" },
    ]);
    const other = { event: "log", session: { id: "acme-0123abcd" } };
    expect(judgeLine(plugin, { n: 2, text: JSON.stringify(other), json: other })).toEqual([]);
    expect(judgeLine(plugin, { n: 3, text: "run acme --resume acme-deadbeefREPL" })).toEqual([
      { kind: "refused", rule: "hint", reason: "grammar", value: "acme-deadbeefREPL" },
    ]);
  });

  it("opens no conversation for --version and --help by default, or for the options and commands it is told", () => {
    const plugin = definePlugin({ ...base, valueOptions: ["--model"], prompt: { via: "positional" } });
    for (const args of [["--version"], ["--help"], ["-p", "hi", "--help"]]) expect(plugin.noConversation?.(args), args.join(" ")).toBe(`\`acme ${args.at(-1)}\` opens no conversation`);
    for (const args of [[], ["-h"], ["login"], ["--", "--version"]]) expect(plugin.noConversation?.(args), args.join(" ")).toBeUndefined();
    const told = definePlugin({ ...base, valueOptions: ["--model"], noConversation: { options: ["-V"], commands: ["login", "mcp"] } });
    expect(told.noConversation?.(["-V"])).toBe("`acme -V` opens no conversation");
    expect(told.noConversation?.(["--model", "big", "mcp", "list"])).toBe("`acme mcp` is a subcommand, not a conversation");
    // The list replaces the default; a command counts only as the first word, and never after `--`
    // or as an option's value.
    for (const args of [["--version"], ["fix", "login"], ["--", "login"], ["--model", "login"]]) expect(told.noConversation?.(args), args.join(" ")).toBeUndefined();
    expect(definePlugin({ ...base, noConversation: { options: [] } }).noConversation?.(["--help"])).toBeUndefined();
  });

  it("rejects a flag prompt without the flag, naming the field", () => {
    expect(() => definePlugin({ ...base, prompt: { via: "flag" } })).toThrow(new PluginError("prompt.flag", 'required when prompt.via is "flag"'));
  });
});
