import { describe, expect, it } from "vitest";
import { parsePlugin } from "../../../src/agents/user/parse.js";
import { DeclarativePluginSchema } from "../../../src/agents/user/schema.js";
import { ACME_PLUGIN as base } from "./acme.js";

/** Each issue of a declaration as `path: message`, or [] when the schema takes it. */
function issues(declaration: unknown): string[] {
  const parsed = DeclarativePluginSchema.safeParse(declaration);
  return parsed.success ? [] : parsed.error.issues.map((issue) => `${issue.path.join(".")}: ${issue.message}`);
}

describe("DeclarativePluginSchema", () => {
  it("takes the smallest plugin file as it is, and fills in nothing", () => {
    expect(DeclarativePluginSchema.parse(base)).toEqual(base);
    const full = {
      ...base,
      json: [{ name: "hello", field: "session.id", when: { event: ["hello"] }, state: "provisional" }],
      text: [{ name: "hint", pattern: "acme --resume (?<id>\\S+)", state: "confirmed" }],
      valueOptions: ["--model"],
      prompt: { via: "flag", flag: "-p", dropFlags: ["-p"], dropSwitches: ["--new"], dropPositionals: true, oneShot: ["-p"] },
      noConversation: { options: ["--version"], commands: ["login"] },
      rejected: ["no such session"],
      transient: ["rate limited"],
      saysRejected: true,
      turnFailed: ["^error"],
    };
    expect(issues(full)).toEqual([]);
  });

  it("refuses a name that is not a lower-case word, and a plugin with no executable name", () => {
    expect(issues({ ...base, name: "Acme" })).toEqual(["name: lowercase letters, digits, '.', '_' or '-'"]);
    expect(issues({ ...base, name: "-acme" })).toEqual(["name: lowercase letters, digits, '.', '_' or '-'"]);
    expect(issues({ ...base, names: [] })).toHaveLength(1);
    expect(issues({ ...base, names: [""] })).toHaveLength(1);
  });

  it("refuses a field it does not know, at the top and inside each rule", () => {
    expect(issues({ ...base, grammer: "x" })).toEqual([expect.stringMatching(/^: .*grammer/)]);
    expect(issues({ ...base, json: [{ name: "j", field: "id", state: "provisional", confirm: true }] })).toEqual([expect.stringMatching(/^json\.0: .*confirm/)]);
    expect(issues({ ...base, prompt: { via: "argv" } })).toEqual([expect.stringMatching(/^prompt\.via: /)]);
    expect(issues({ ...base, json: [{ name: "j", field: "id", state: "final" }] })).toEqual([expect.stringMatching(/^json\.0\.state: /)]);
  });

  it("refuses a pattern that is empty, no regex, or without its named group", () => {
    expect(issues({ ...base, grammar: "" })).toHaveLength(1);
    expect(issues({ ...base, grammar: "acme-(" })).toEqual([expect.stringMatching(/^grammar: not a regular expression: /)]);
    expect(issues({ ...base, rejected: ["ok", "[z-a]"] })).toEqual([expect.stringMatching(/^rejected\.1: not a regular expression: /)]);
    expect(issues({ ...base, text: [{ name: "t", pattern: "resume (\\S+)", state: "confirmed" }] })).toEqual(["text.0.pattern: needs a named group (?<id>…)"]);
  });

  it("refuses a resume with no {id} in it", () => {
    expect(issues({ ...base, resume: ["--resume", "id"] })).toEqual(["resume: must contain {id}"]);
    expect(issues({ ...base, resume: [] })).toContain("resume: must contain {id}");
    expect(issues({ ...base, resume: ["--resume={id}"] })).toEqual([]);
  });

  it("takes noConversation from a plugin file only as options and one-word commands", () => {
    expect(parsePlugin({ ...base, noConversation: { options: ["-V", "--help"], commands: ["login"] } })).toEqual({ plugin: expect.anything() });
    expect(parsePlugin({ ...base, noConversation: { options: ["version", "--x=1", "--"], commands: ["-l", "two words"], other: [] } })).toEqual({
      problems: [
        "field noConversation.options.0: an option: `-x` or `--name`, without a value",
        "field noConversation.options.1: an option: `-x` or `--name`, without a value",
        "field noConversation.options.2: an option: `-x` or `--name`, without a value",
        "field noConversation.commands.0: one word, not an option",
        "field noConversation.commands.1: one word, not an option",
        expect.stringMatching(/^field noConversation: .*other/),
      ],
    });
  });
});
