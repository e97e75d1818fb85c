import { execFile } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { Capture, captureAll } from "../../../src/engine/capture/pipeline.js";
import { SLACK } from "../../../src/engine/capture/rejoin.js";
import type { Line } from "../../../src/engine/capture/line.js";
import { CLI, ROOT } from "../../helpers/sandbox.js";

const FIXTURES = join(ROOT, "fixtures");
const exec = promisify(execFile);

/** `text` cut into rows of `width` characters, as a screen snapshot holds a long line. */
const rows = (text: string, width = 67): string[] => text.match(new RegExp(`.{1,${width}}`, "gsu")) ?? [];

const INIT = JSON.stringify({
  type: "system", subtype: "init", cwd: "/home/coder/project", session_id: "3e7b1c94-0a5d-4f28-b6e3-9d41c7a2f805",
  tools: ["Task", "Bash", "Edit", "Read"], model: "claude-sonnet-4-6", uuid: "f02b7d63-9e1c-4a85-b3f7-5c6d08e2a1b4",
});

describe("wrapped JSON rows of a screen snapshot", () => {
  it("are joined into the one object they were, numbered by their first row", () => {
    const lines = captureAll([["$ claude -p", ...rows(INIT), "$ "].join("\n") + "\n"]);
    expect(lines.map((line) => line.text)).toEqual(["$ claude -p", INIT, "$"]);
    expect(lines[1]).toMatchObject({ n: 2, offset: "$ claude -p\n".length, json: JSON.parse(INIT) });
  });

  it("are joined at any width, when the object ends at the edge, and in CRLF or chunked input", () => {
    for (const width of [40, 67, 80, 132]) {
      const lines = captureAll([rows(INIT, width).join("\r\n") + "\r\n"]);
      expect(lines.map((line) => line.json)).toEqual([JSON.parse(INIT)]);
    }
    const exact = INIT.slice(0, -1) + " ".repeat(67 - (INIT.length % 67)) + "}";
    expect(exact.length % 67).toBe(0);
    expect(captureAll([rows(exact).join("\n")]).map((line) => line.json)).toEqual([JSON.parse(exact)]);
    const bytes = rows(INIT).join("\n") + "\n";
    const chunked: Line[] = [];
    const capture = new Capture();
    for (const char of bytes) capture.push(char, (line) => chunked.push(line));
    capture.end((line) => chunked.push(line));
    expect(chunked).toEqual(captureAll([bytes]));
  });

  it("get back the spaces a snapshot trimmed off the end of a row", () => {
    for (const spaces of [1, 3, SLACK]) {
      // `{"type":"result","subtype":"success","result":"` is 47 characters: row 1 ends in spaces and
      // row 2 fills the screen (a snapshot whose every full row ended in spaces is not joined).
      const text = `${"x".repeat(67 - 47 - spaces)}${" ".repeat(spaces)}${"y".repeat(67)}end`;
      const line = JSON.stringify({ type: "result", subtype: "success", result: text, session_id: "3e7b1c94-0a5d-4f28-b6e3-9d41c7a2f805" });
      const screen = rows(line).map((row) => row.trimEnd());
      expect(screen.slice(0, 2).map((row) => row.length)).toEqual([67 - spaces, 67]);
      const lines = captureAll([screen.join("\n") + "\n"]);
      expect(lines.map((l) => l.text)).toEqual([line]);
    }
  });

  it("get every trimmed space back when the screen's width is known", () => {
    const text = `${"x".repeat(67 - 47 - 2)}  ${"y".repeat(67 - 2)}  end`;
    const line = JSON.stringify({ type: "result", subtype: "success", result: text, session_id: "3e7b1c94-0a5d-4f28-b6e3-9d41c7a2f805" });
    const screen = rows(line).map((row) => row.trimEnd()).join("\n") + "\n";
    const read = (width?: number): string[] => {
      const capture = new Capture(width === undefined ? {} : { width });
      const lines: Line[] = [];
      capture.push(screen, (l) => lines.push(l));
      capture.end((l) => lines.push(l));
      return lines.map((l) => l.text);
    };
    // Without it the rows are as wide as each other, so they join, but the spaces stay lost.
    const lost = line.replace(/ {2}/g, "");
    expect(read()).toEqual([lost]);
    expect(read(67)).toEqual([line]);
    // A width the rows do not fit is no hint.
    expect(read(40)).toEqual([lost]);
  });

  it("are left row by row when a terminal could not have cut them so", () => {
    const pretty = JSON.stringify(JSON.parse(INIT), null, 2).split("\n");
    const indented = rows(INIT, 65).map((row) => `  ${row}`);
    const uneven = rows(INIT);
    uneven[1] = (uneven[1] ?? "").slice(0, -(SLACK + 1));
    const wide = rows(INIT);
    wide[2] = `${wide[2] ?? ""}${"x".repeat(SLACK + 1)}`;
    for (const screen of [pretty, indented, uneven, wide, rows(INIT, 30)]) {
      const lines = captureAll([screen.join("\n") + "\n"]);
      expect(lines.map((line) => line.text)).toEqual(screen.map((row) => row.trimEnd()));
      expect(lines.filter((line) => line.json !== undefined && "session_id" in line.json)).toEqual([]);
    }
  });

  it("let every line through in order when the rows are no object (a cut stream line, a row at the end)", () => {
    const cut = INIT.slice(0, 90);
    const stream = [cut, '{"type":"result","subtype":"success","session_id":"x"}', "plain", cut.slice(0, 67)];
    const lines = captureAll([stream.join("\n")]);
    expect(lines.map((line) => [line.n, line.text])).toEqual(stream.map((text, i) => [i + 1, text]));
    expect(lines.map((line) => line.json !== undefined)).toEqual([false, true, false, false]);
  });

  it("pin the session when `sessionpin replay` reads agentapi's state file, and no look-alike", async () => {
    const replay = async (name: string): Promise<Record<string, unknown>> => {
      const { stdout } = await exec(process.execPath, [CLI, "replay", "--json", "--agent", "claude", join(FIXTURES, "agentapi-state", name, "state.json")]);
      return JSON.parse(stdout) as Record<string, unknown>;
    };
    const expected = (name: string): unknown => JSON.parse(readFileSync(join(FIXTURES, "claude", name, "expected.json"), "utf8"));
    const { id, state, rule } = expected("stream-wrapped-67") as Record<string, unknown>;
    expect(await replay("claude-stream-wrapped-67")).toMatchObject({ format: "agentapi-state", id, state, rule });
    const lookalikes = expected("stream-wrapped-67-lookalikes") as Record<string, unknown>;
    expect(await replay("claude-stream-wrapped-67-lookalikes")).toMatchObject({ id: lookalikes["id"], state: lookalikes["state"], rule: lookalikes["rule"] });
  });
});
