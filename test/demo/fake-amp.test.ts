/**
 * The fake Amp the demo runs and the PTY tests put on PATH keeps Amp's contract where sessionpin
 * meets it: `threads new` prints a thread URL, `threads continue` takes the ID or the URL and
 * refuses one it does not know, `-x --stream-json` names the thread in `session_id`, and its TUI
 * reads a message the way agentapi sends one. Runs the built file, as the demo does.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { PtyDriver } from "../../src/pty/driver.js";
import { ROOT } from "../helpers/sandbox.js";

const FAKE_AMP = join(ROOT, "dist/demo/fake-amp.js");
const ID = "T-9d2c4f6a-0b1e-4c73-8a5d-3e7f1b2a6c90";

let home: string;
let env: NodeJS.ProcessEnv;
beforeEach(() => {
  home = mkdtempSync(join(tmpdir(), "sessionpin-fake-amp-"));
  env = { ...process.env, FAKE_AMP_HOME: home, FAKE_AMP_NEXT_ID: ID, AMP_URL: "https://amp.example/" };
});
afterEach(() => rmSync(home, { recursive: true, force: true }));

function amp(args: readonly string[], extra: NodeJS.ProcessEnv = {}): { code: number | null; stdout: string; stderr: string } {
  const run = spawnSync(process.execPath, [FAKE_AMP, ...args], { env: { ...env, ...extra }, encoding: "utf8", input: "", timeout: 20_000 });
  return { code: run.status, stdout: run.stdout, stderr: run.stderr };
}

const events = (): Array<{ event: string }> =>
  readFileSync(join(home, "events.jsonl"), "utf8").split("\n").filter(Boolean).map((line) => JSON.parse(line) as { event: string });

describe("fake Amp", () => {
  it("threads new prints the thread's URL, and continue takes it back by URL and says the thread in every stream line", () => {
    // A global option's value is not read as the command.
    expect(amp(["-m", "threads", "threads", "new"])).toEqual({ code: 0, stdout: `https://amp.example/threads/${ID}\n`, stderr: "" });
    for (const turn of [1, 2]) {
      const run = amp(["threads", "continue", `https://amp.example/threads/${ID}?tab=1`, "-x", `turn ${turn}`, "--stream-json"]);
      expect(run.code).toBe(0);
      const lines = run.stdout.trimEnd().split("\n").map((line) => JSON.parse(line) as { type: string; session_id: string; num_turns?: number });
      expect(lines.map((l) => l.type)).toEqual(["system", "user", "assistant", "result"]);
      expect(lines.every((l) => l.session_id === ID)).toBe(true);
      expect(lines.at(-1)?.num_turns).toBe(turn);
    }
    expect(readdirSync(join(home, "threads"))).toEqual([`${ID}.json`]);
  });

  it("refuses an unknown thread, a missing one, and every thread operation offline, as Amp does", () => {
    expect(amp(["threads", "continue", "T-0"])).toMatchObject({ code: 1, stderr: "Error: Thread T-0 does not exist.\n" });
    expect(amp(["threads", "continue"]).code).toBe(2);
    expect(amp(["threads", "new"], { FAKE_AMP_OFFLINE: "1" })).toMatchObject({ code: 1, stderr: "Error: Cannot reach Amp servers. Are you offline?\n" });
    expect(readdirSync(join(home, "threads"))).toEqual([]);
  });

  it("--version answers before anything else: no thread, and the run logged from start to exit", () => {
    const run = amp(["threads", "new", "--version"]);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^0\.0\.1790142911-g7618fb \(released 2026-09-23T05:55:11\.000Z, \d+(s|m|h|d|mo|y) ago\)\n$/);
    expect(readdirSync(join(home, "threads"))).toEqual([]);
    expect(events().map((e) => e.event)).toEqual(["start", "exit"]);
  });

  it("its TUI takes a message as agentapi types it, and exits with the code /exit gives", async () => {
    const tui = new PtyDriver([process.execPath, FAKE_AMP], { env });
    await tui.waitFor(/new thread/);
    tui.sendMessage("hello");
    await tui.waitFor(/Amp: noted \(1 messages in this thread\)/);
    tui.sendMessage("/size");
    await tui.waitFor(/size 67x1190/);
    tui.sendMessage("/exit 3");
    expect((await tui.exited).exitCode).toBe(3);
    // Like real Amp's TUI, it never shows the thread's ID.
    expect(tui.text).not.toContain(ID);
    expect(JSON.parse(readFileSync(join(home, "threads", `${ID}.json`), "utf8"))).toEqual({ id: ID, messages: ["hello"] });
  }, 20_000);
});
