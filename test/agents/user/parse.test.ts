import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parsePlugin } from "../../../src/agents/user/parse.js";
import { judgeLine } from "../../../src/engine/match.js";
import { ROOT } from "../../helpers/sandbox.js";
import { ACME_PLUGIN as base } from "./acme.js";

const file = (name: string): unknown => JSON.parse(readFileSync(join(ROOT, "fixtures/plugins", name), "utf8"));

describe("parsePlugin", () => {
  it("makes a working plugin of a plugin file", () => {
    const parsed = parsePlugin(file("acme.json"));
    if (!("plugin" in parsed)) throw new Error(parsed.problems.join("\n"));
    const { plugin } = parsed;
    const hello = { event: "hello", session: { id: "acme-0123abcd" } };
    expect(judgeLine(plugin, { n: 1, text: JSON.stringify(hello), json: hello })).toEqual([{ kind: "taken", rule: "hello", id: "acme-0123abcd", state: "provisional" }]);
    expect(judgeLine(plugin, { n: 2, text: "Bye. Resume with: acme --resume acme-0123abcd" })).toEqual([{ kind: "taken", rule: "exit-hint", id: "acme-0123abcd", state: "confirmed" }]);
    expect(plugin.warmArgs(["-p", "hi", "--model", "m"], "acme-0123abcd")).toEqual(["--model", "m", "--resume", "acme-0123abcd"]);
  });

  it("says every mistake of a file, each by its field", () => {
    expect(parsePlugin(file("broken.json"))).toEqual({
      problems: [
        expect.stringMatching(/^field grammar: not a regular expression: /),
        "field text.0.pattern: needs a named group (?<id>…)",
        "field resume: must contain {id}",
      ],
    });
  });

  it("says a file that holds no object is wrong at its top level", () => {
    for (const json of [null, [], "acme", 42]) expect(parsePlugin(json), JSON.stringify(json)).toEqual({ problems: [expect.stringMatching(/^field \(top level\): /)] });
  });

  it("says what fits each field but not the plugin as a whole, by field", () => {
    expect(parsePlugin({ ...base, prompt: { via: "flag" } })).toEqual({ problems: ['field prompt.flag: required when prompt.via is "flag"'] });
    expect(parsePlugin({ ...base, valueOptions: ["--new"], prompt: { dropSwitches: ["--new"] } })).toEqual({
      problems: ["field prompt.dropSwitches: --new takes a value (valueOptions, dropFlags or prompt.flag): a switch takes none"],
    });
  });
});
