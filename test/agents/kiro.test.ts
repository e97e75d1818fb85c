import { describe, expect, it } from "vitest";
import { Extractor } from "../../src/engine/extract.js";
import { kiro } from "../../src/agents/kiro.js";
import { matchesAny } from "../../src/engine/match.js";
import { captureAll } from "../../src/engine/capture/pipeline.js";
import { itSaysKinds } from "./kinds.js";

const ID = "f2946a26-3735-4b08-8d05-c928010302d5";
const OTHER = "b7e4a1c9-2d6f-4e38-9a05-c3f8d1e62b74";

describe("kiro argv", () => {
  it("resumes with chat --resume-id <id>, keeping options and dropping INPUT and other session choices", () => {
    expect(kiro.warmArgs(["chat", "--agent", "dev", "--trust-all-tools", "fix the bug"], ID)).toEqual([
      "chat", "--agent", "dev", "--trust-all-tools", "--resume-id", ID,
    ]);
    expect(kiro.warmArgs([], ID)).toEqual(["chat", "--resume-id", ID]);
    expect(kiro.warmArgs(["--agent", "chat"], ID)).toEqual(["chat", "--agent", "chat", "--resume-id", ID]);
    for (const choice of [["--resume"], ["-r"], ["--resume-picker"], ["--resume-id", OTHER], [`--resume-id=${OTHER}`]]) {
      expect(kiro.warmArgs(["chat", ...choice, "--model", "m"], ID), choice.join(" ")).toEqual(["chat", "--model", "m", "--resume-id", ID]);
    }
    // Headless stays headless: the message to deliver is added by coldArgs.
    expect(kiro.warmArgs(["chat", "--no-interactive", "--trust-all-tools", "task"], ID)).toEqual(["chat", "--no-interactive", "--trust-all-tools", "--resume-id", ID]);
  });

  it("types a cold prompt into the TUI, gives it to a headless run as INPUT, and adds none to a command with one", () => {
    expect(kiro.coldArgs(["chat", "--agent", "dev"], "do it")).toEqual({ args: ["chat", "--agent", "dev"], promptVia: "pty" });
    expect(kiro.coldArgs(["chat", "--no-interactive"], "do it")).toEqual({ args: ["chat", "--no-interactive", "do it"], promptVia: "argv" });
    expect(kiro.coldArgs(["chat", "own task"], "do it")).toEqual({ args: ["chat", "own task"], promptVia: "none" });
  });

});

describe("kiro kinds of invocation", () => {
  itSaysKinds(kiro, {
    none: [
      ["--version"], ["-V"], ["--help"], ["-h"], ["chat", "--help-all"], ["login"], ["mcp", "list"], ["agent", "list"],
      ["chat", "--list-sessions"], ["chat", "--delete-session", ID],
    ],
    caller: [
      [["chat", "--resume-id", ID], { id: ID, via: `--resume-id ${ID}` }],
      [["chat", "--no-interactive", `--resume-id=${ID}`, "go on"], { id: ID, via: `--resume-id=${ID}` }],
      [["chat", "--resume-id", "last"], { via: "--resume-id last" }],
      [["chat", "--resume"], { via: "--resume" }], // this folder's latest
      [["-r"], { via: "-r" }],
      [["chat", "--resume-picker"], { via: "--resume-picker" }],
    ],
    pinned: [[], ["chat", "--agent", "login"], ["chat", "resume the work"], ["chat", "--model", "resume"], ["chat", "-v"]],
  });
});

describe("kiro rules", () => {
  const pinnedFrom = async (output: string) => {
    const extractor = new Extractor(kiro);
    for (const line of captureAll([output])) extractor.line(line);
    return extractor.tracker.current;
  };

  it("takes the ID from the documented resume command only", async () => {
    expect(await pinnedFrom(`Session ID: ${ID}\r\nResume it with: kiro-cli chat --resume-id ${ID}\r\n`)).toMatchObject({ id: ID, rule: "exit-hint" });
    expect(await pinnedFrom(`Session ID: ${ID}\r\n`)).toBeUndefined();
    expect(await pinnedFrom(`kiro-cli chat --delete-session ${ID}\r\nkiro-cli chat --resume-id ${ID.slice(0, 8)}\r\n`)).toBeUndefined();
  });

  it("treats the silent fallback to a new session as a refusal of the ID", () => {
    expect(matchesAny(kiro.rejected, "No saved sessions found for this directory. Starting new session.")).toBe(true);
    expect(matchesAny(kiro.rejected, "No saved chat sessions")).toBe(true);
    expect(matchesAny(kiro.rejected, "Kiro: noted (1 messages in this session)")).toBe(false);
  });

  it("watches ~/.kiro/sessions/cli/<uuid>.json and takes a new one only when its first line names this folder", () => {
    const store = kiro.store!;
    const context = { home: "/home/u", cwd: "/w/api", env: {} };
    expect(store.where(context, new Date())).toEqual([{ dir: "/home/u/.kiro/sessions/cli", depth: 0 }]);
    expect(store.name.exec(`${ID}.json`)?.groups?.["id"]).toBe(ID);
    expect(store.name.exec(`${ID}.jsonl`)).toBeNull();
    expect(store.name.exec(`${ID}.lock`)).toBeNull();
    expect(store.belongs?.(JSON.stringify({ session_id: ID, cwd: "/w/api" }), context)).toBe(true);
    expect(store.belongs?.(JSON.stringify({ session_id: ID, cwd: "/w/web" }), context)).toBe(false);
    expect(store.belongs?.("{", context)).toBe(false);
    expect(store.belongs?.("", context)).toBe(false);
  });
});
