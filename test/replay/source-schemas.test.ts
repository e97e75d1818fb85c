import { describe, expect, it } from "vitest";
import { CastEvent, CastHeader, UntimedEvent } from "../../src/replay/source-schemas.js";

describe("the recording headers replay reads", () => {
  it("takes v2 as sessionpin and asciinema 2 write it, and v3 with its size under term", () => {
    const v2 = CastHeader.parse({ version: 2, width: 67, height: 1190, timestamp: 1_764_000_000, command: "amp", env: { TERM: "vt100" } });
    expect(v2).toMatchObject({ version: 2, width: 67, command: "amp" });
    const v3 = CastHeader.parse({ version: 3, term: { cols: 120, rows: 40, type: "xterm-256color" }, command: "claude" });
    expect(v3).toMatchObject({ version: 3, term: { cols: 120, rows: 40 } });
  });

  it("refuses version 1, and a size that is no whole positive number in either version", () => {
    for (const header of [
      { version: 1, width: 80, height: 24 },
      { version: 2, width: 0, height: 24 },
      { version: 3, term: { cols: 80 } },
      { version: 3, term: { cols: 80, rows: 2.5 } },
    ]) expect(CastHeader.safeParse(header).success, JSON.stringify(header)).toBe(false);
  });

  it("reads an event's time only when it is a number; the untimed form keeps its output", () => {
    expect(CastEvent.safeParse([0.25, "o", "hi"]).success).toBe(true);
    expect(CastEvent.safeParse(["0.25", "o", "hi"]).success).toBe(false);
    expect(UntimedEvent.parse(["0.25", "o", "hi"])).toEqual(["0.25", "o", "hi"]);
    expect(UntimedEvent.safeParse([0.25, "o"]).success).toBe(false);
  });
});
