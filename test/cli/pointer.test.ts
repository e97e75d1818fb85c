/** `sessionpin pointer show|clear` through the built CLI, in a sandbox. */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { Cleanup, cli, coldStart, readBeside } from "../e2e/support.js";

const cleanup = new Cleanup();
afterEach(() => cleanup.run());

describe("pointer show|clear", () => {
  it("shows the pointer as JSON, and clear moves it aside (never deletes it)", async () => {
    const sb = cleanup.sandbox();
    const id = await coldStart(cleanup, sb, "Tidy up.");
    const onDisk = sb.readPointer();

    const shown = cli(sb, ["pointer", "show", "--pointer", sb.pointer, "--json"]);
    expect(shown.status).toBe(0);
    expect(JSON.parse(shown.stdout)).toEqual({ pointer: sb.pointer, kind: "ok", content: onDisk, next: { mode: "warm", reason: `resuming confirmed ${id} from ${String(onDisk["capturedAt"])}` } });
    expect(onDisk["id"]).toBe(id);

    const human = cli(sb, ["pointer", "show", "--pointer", sb.pointer]);
    expect(human.status).toBe(0);
    expect(human.stdout).toContain(`amp ${id} (confirmed, rule threads-new)`);
    expect(human.stdout).toContain(`next start here: warm (resuming confirmed ${id}`);

    const before = readFileSync(sb.pointer, "utf8");
    const cleared = cli(sb, ["pointer", "clear", "--pointer", sb.pointer, "--json"]);
    expect(cleared.status).toBe(0);
    const { pointer, movedTo } = JSON.parse(cleared.stdout) as { pointer: string; movedTo: string };
    expect(pointer).toBe(sb.pointer);
    expect(existsSync(sb.pointer)).toBe(false);
    const aside = sb.asideFiles("cleared");
    expect(aside).toHaveLength(1);
    expect(movedTo).toBe(join(dirname(sb.pointer), aside[0] as string));
    expect(readBeside(sb, aside[0] as string)).toBe(before);

    const missing = cli(sb, ["pointer", "show", "--pointer", sb.pointer, "--json"]);
    expect(missing.status).toBe(1);
    expect(JSON.parse(missing.stdout)).toEqual({ pointer: sb.pointer, kind: "missing" });

    // The next start is cold again.
    const plan = cli(sb, ["plan", "--pointer", sb.pointer, "--", "amp"]);
    expect(JSON.parse(plan.stdout)).toMatchObject({ mode: "cold", id: null });
  });

  it("refuses a missing or unknown action, neither --agent nor --pointer, and an unknown agent: exit 2, one line, then the usage", () => {
    const sb = cleanup.sandbox();
    for (const [args, first] of [
      [["pointer"], 'sessionpin pointer: expected show or clear, got ""'],
      [["pointer", "drop", "--agent", "amp"], 'sessionpin pointer: expected show or clear, got "drop"'],
      [["pointer", "show"], "sessionpin pointer show: give --agent NAME or --pointer PATH"],
    ] as const) {
      const result = cli(sb, args);
      expect(result.status, args.join(" ")).toBe(2);
      expect(result.stderr.split("\n").slice(0, 2), args.join(" ")).toEqual([first, expect.stringMatching(/^Usage: sessionpin pointer show\|clear/)]);
    }
    const unknown = cli(sb, ["pointer", "clear", "--agent", "nosuch"]);
    expect(unknown.status).toBe(2);
    expect(unknown.stderr).toMatch(/^sessionpin: --agent nosuch: no such plugin \(known: .*amp.*\)\n$/);
    expect(existsSync(dirname(sb.pointer))).toBe(false);
  });

  it("says when there is no pointer to clear (exit 0), refuses a folder in its place, and shows an unreadable one (exit 1)", () => {
    const sb = cleanup.sandbox();
    expect(cli(sb, ["pointer", "clear", "--pointer", sb.pointer])).toEqual({ status: 0, stdout: `no pointer at ${sb.pointer}\n`, stderr: "" });
    mkdirSync(sb.pointer, { recursive: true });
    expect(cli(sb, ["pointer", "clear", "--pointer", sb.pointer])).toEqual({ status: 3, stdout: "", stderr: `sessionpin: ${sb.pointer} is a folder, not a pointer file; left untouched\n` });
    const broken = join(sb.dir, "broken.json");
    writeFileSync(broken, "{not json");
    const shown = cli(sb, ["pointer", "show", "--pointer", broken]);
    expect(shown.status).toBe(1);
    expect(shown.stdout).toMatch(new RegExp(`^${broken.replaceAll("/", "\\/")}: unreadable: `));
    expect(readFileSync(broken, "utf8")).toBe("{not json");
  });
});
