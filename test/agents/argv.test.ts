import { describe, expect, it } from "vitest";
import { callerPick, hasOption, optionValue, positionals, render, tokenize, withoutOptions, withoutPositionals, type ArgvSpec } from "../../src/agents/argv.js";
import { UUID_ONLY } from "../../src/agents/grammar.js";
import { seeded } from "../helpers/random.js";

const ID = "5f0c2a9e-1b7d-4e21-9c4a-8d6f1e2b3a40";
// Claude Code's shape: `--model X`, `--resume [id]`, `--add-dir <dirs...>`.
const SPEC: ArgvSpec = { values: ["--model", "-m", "--add-dir"], optionalValues: ["--resume", "-r"], variadic: ["--add-dir"] };

describe("tokenize", () => {
  it("reads options with their values, and the words that are not options", () => {
    expect(tokenize(["--model", "opus", "-p", "--model=sonnet", "hello", "-"], SPEC)).toEqual([
      { kind: "option", name: "--model", value: "opus", words: ["--model", "opus"] },
      { kind: "option", name: "-p", value: undefined, words: ["-p"] },
      { kind: "option", name: "--model", value: "sonnet", words: ["--model=sonnet"] },
      { kind: "positional", value: "hello" },
      // A lone dash is stdin, a word.
      { kind: "positional", value: "-" },
    ]);
  });

  it("takes the next word as a value even when it looks like an option, but an optional value only when it does not", () => {
    expect(tokenize(["--model", "-x"], SPEC)).toEqual([{ kind: "option", name: "--model", value: "-x", words: ["--model", "-x"] }]);
    expect(tokenize(["--resume", ID, "hi"], SPEC)).toEqual([{ kind: "option", name: "--resume", value: ID, words: ["--resume", ID] }, { kind: "positional", value: "hi" }]);
    expect(tokenize(["--resume", "--model", "m"], SPEC)[0]).toEqual({ kind: "option", name: "--resume", value: undefined, words: ["--resume"] });
  });

  it("leaves a value option last in argv without a value, and an empty `--opt=` with an empty one", () => {
    expect(tokenize(["--model"], SPEC)).toEqual([{ kind: "option", name: "--model", value: undefined, words: ["--model"] }]);
    expect(tokenize(["--model=", "hi"], SPEC)).toEqual([{ kind: "option", name: "--model", value: "", words: ["--model="] }, { kind: "positional", value: "hi" }]);
  });

  it("gives a variadic option every word up to the next option, its value the first of them", () => {
    expect(tokenize(["--add-dir", "a", "b", "c", "-p", "d"], SPEC)).toEqual([
      { kind: "option", name: "--add-dir", value: "a", words: ["--add-dir", "a", "b", "c"] },
      { kind: "option", name: "-p", value: undefined, words: ["-p"] },
      { kind: "positional", value: "d" },
    ]);
  });

  it("reads every word after `--` as a word", () => {
    expect(tokenize(["-p", "--", "--model", "x", "--"], SPEC)).toEqual([
      { kind: "option", name: "-p", value: undefined, words: ["-p"] },
      { kind: "separator" },
      { kind: "positional", value: "--model" },
      { kind: "positional", value: "x" },
      { kind: "positional", value: "--" },
    ]);
  });

  it("renders back the very argv it read, whatever the words", () => {
    const random = seeded(44);
    const words = ["--model", "-m", "--add-dir", "--resume", "-r", "--", "-", "-p", "--x=1", "--model=", "hi", "", ID, "a b", "-=", "--add-dir=a"];
    for (let n = 0; n < 2_000; n++) {
      const argv = Array.from({ length: Math.floor(random() * 9) }, () => words[Math.floor(random() * words.length)] as string);
      expect(render(tokenize(argv, SPEC)), JSON.stringify(argv)).toEqual(argv);
    }
  });
});

describe("questions and edits on tokens", () => {
  const tokens = tokenize(["--model", "opus", "-p", "fix it", "--", "--not-an-option"], SPEC);

  it("finds an option by any of its names, and the value of the first one given", () => {
    expect(hasOption(tokens, ["-m", "--model"])).toBe(true);
    expect(hasOption(tokens, ["--not-an-option"])).toBe(false);
    expect(optionValue(tokens, ["-m", "--model"])).toBe("opus");
    expect(optionValue(tokenize(["-m", "a", "--model", "b"], SPEC), ["--model", "-m"])).toBe("a");
    expect(optionValue(tokens, ["-p"])).toBeUndefined();
  });

  it("drops options with their values, or the words, and keeps the rest in order", () => {
    expect(render(withoutOptions(tokens, ["--model"]))).toEqual(["-p", "fix it", "--", "--not-an-option"]);
    expect(positionals(tokens)).toEqual(["fix it", "--not-an-option"]);
    // The separator goes with the words: what is left is options only.
    expect(render(withoutPositionals(tokens))).toEqual(["--model", "opus", "-p"]);
  });
});

describe("callerPick", () => {
  const picks = { named: ["--resume", "-r"], other: ["--continue", "-c"], fork: ["--fork-session"] };
  const pick = (args: readonly string[]) => callerPick(tokenize(args, SPEC), picks, UUID_ONLY);

  it("names the ID a named pick gives when the grammar takes it whole", () => {
    expect(pick(["-p", "--resume", ID, "go on"])).toEqual({ id: ID, via: `--resume ${ID}` });
    expect(pick([`--resume=${ID}`])).toEqual({ id: ID, via: `--resume=${ID}` });
  });

  it("names no ID for a name, a prefix, a pick without a value, or a pick that does not name one", () => {
    expect(pick(["--resume", "latest"])).toEqual({ via: "--resume latest" });
    expect(pick(["-r", ID.slice(0, 8)])).toEqual({ via: `-r ${ID.slice(0, 8)}` });
    expect(pick(["--resume"])).toEqual({ via: "--resume" });
    expect(pick(["-c", "hi"])).toEqual({ via: "-c" });
  });

  it("names no ID with a fork, which copies the session to a new one", () => {
    expect(pick(["--resume", ID, "--fork-session"])).toEqual({ via: `--resume ${ID} --fork-session` });
  });

  it("prefers a named pick to another, wherever it stands, and is nothing without a pick or after `--`", () => {
    expect(pick(["--continue", "--resume", ID])).toEqual({ id: ID, via: `--resume ${ID}` });
    expect(pick(["-p", "hi"])).toBeUndefined();
    expect(pick(["--", "--resume", ID])).toBeUndefined();
  });
});
