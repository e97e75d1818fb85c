import { describe, expect, it } from "vitest";
import { cleanText } from "../../../src/engine/capture/clean.js";

describe("cleanText", () => {
  it("leaves plain text as it is, but for the blanks at its end", () => {
    expect(cleanText("  Session ID: 5f0c2a9e ✓ é  \t ")).toBe("  Session ID: 5f0c2a9e ✓ é");
    expect(cleanText("")).toBe("");
  });

  it("strips colours, titles and cursor moves, 8-bit CSI too", () => {
    expect(cleanText("\x1b[1m\x1b[32mtaken\x1b[0m \x1b]0;a title\x07done")).toBe("taken done");
    expect(cleanText("\x9b31mred\x9b0m")).toBe("red");
    expect(cleanText("\x1b[?25l\x1b[2J\x1b[1;1Hhome")).toBe("home");
  });

  it("keeps words a TUI placed apart with a cursor move apart", () => {
    expect(cleanText("Session ID:\x1b[3Cabc")).toBe("Session ID: abc");
    expect(cleanText("Session ID:\x1b[40Gabc")).toBe("Session ID: abc");
    expect(cleanText("Session\x1b[Cid")).toBe("Session id");
  });

  it("applies backspaces as a terminal shows them: agentapi's `x\\b`, a shell's `\\b \\b`", () => {
    expect(cleanText("x\bhello")).toBe("hello");
    expect(cleanText("abc\b \b\b \bd")).toBe("ad");
    expect(cleanText("\b\bstart")).toBe("start");
    // A backspace takes a whole character, not half of an emoji.
    expect(cleanText("a😀\bb")).toBe("ab");
  });

  it("drops the other control characters, keeping tabs", () => {
    expect(cleanText("a\x00b\x07c\x1fd\x7fe\tf")).toBe("abcde\tf");
    expect(cleanText("line\r")).toBe("line");
  });
});
