import { appendFileSync, existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { agents } from "../../src/agents/registry.js";
import { CarryError } from "../../src/state/archive-rules.js";
import { CLAUDE_ID, claudeLines, TwoMachines } from "./carry-support.js";

let m: TwoMachines;
beforeEach(() => void (m = new TwoMachines()));
afterEach(() => m.cleanup());

const projects = (home: string, cwd: string): string => join(home, ".claude", "projects", cwd.replace(/[^A-Za-z0-9]/g, "-"));

describe("export then import of a Claude session", () => {
  it("files the session under the new folder with the folder's path rewritten, and writes the pointer where run looks for it", async () => {
    m.claudeTranscript(m.a);
    m.pin(m.a, "claude", CLAUDE_ID);
    await m.export();
    const result = await m.import();
    const transcript = join(projects(m.b.home, m.b.cwd), `${CLAUDE_ID}.jsonl`);
    expect(result).toMatchObject({ store: "new", files: [transcript], pointer: m.pointerPath(m.b, "claude"), pointerWritten: true });
    expect(readFileSync(transcript, "utf8")).toBe(claudeLines(m.b.cwd, 2));
    const pointer = JSON.parse(readFileSync(m.pointerPath(m.b, "claude"), "utf8")) as Record<string, unknown>;
    expect(pointer).toMatchObject({ agent: "claude", id: CLAUDE_ID, cwd: m.b.cwd, key: "thread-1", state: "confirmed" });
  });

  it("carried back, the files are the bytes they were", async () => {
    const original = readFileSync(m.claudeTranscript(m.a));
    m.pin(m.a, "claude", CLAUDE_ID);
    await m.export();
    await m.import();
    // B exports; A, whose copy is the same session, imports it back.
    const back = join(m.dir, "back.tgz");
    const { exportSession } = await import("../../src/state/carry-export.js");
    await exportSession({ pointerPath: m.pointerPath(m.b, "claude"), plugin: agents.claude, out: back, env: m.b.env, sessionpinVersion: "t", now: new Date() });
    const result = await m.import(back, m.a);
    expect(result.store).toBe("unchanged");
    expect(readFileSync(join(projects(m.a.home, m.a.cwd), `${CLAUDE_ID}.jsonl`))).toEqual(original);
  });
});

describe("a copy of the session already here", () => {
  beforeEach(async () => {
    m.claudeTranscript(m.a, CLAUDE_ID, 4);
    m.pin(m.a, "claude", CLAUDE_ID);
    await m.export();
  });
  const here = (): string => join(projects(m.b.home, m.b.cwd), `${CLAUDE_ID}.jsonl`);
  const place = (text: string): void => {
    mkdirSync(dirname(here()), { recursive: true });
    writeFileSync(here(), text);
  };

  it("with the same turns: nothing of the session is written", async () => {
    place(claudeLines(m.b.cwd, 4));
    await expect(m.import()).resolves.toMatchObject({ store: "unchanged" });
  });

  it("with the archive's first turns only (older): replaced", async () => {
    place(claudeLines(m.b.cwd, 2));
    await expect(m.import()).resolves.toMatchObject({ store: "replaced", turns: { here: 2, carried: 4 } });
    expect(readFileSync(here(), "utf8")).toBe(claudeLines(m.b.cwd, 4));
  });

  it("with more turns (newer): refused, nothing written", async () => {
    place(claudeLines(m.b.cwd, 6));
    const before = m.tree();
    await expect(m.import()).rejects.toThrow(/a newer copy of claude session .* is here \(it has 6 turns, the archive 4\): left as it is, nothing written/);
    expect(m.tree()).toEqual(before);
  });

  it("that went its own way: refused, nothing written", async () => {
    place(claudeLines(m.b.cwd, 2));
    appendFileSync(here(), `${JSON.stringify({ type: "user", cwd: m.b.cwd, text: "another question" })}\n`);
    const before = m.tree();
    await expect(m.import()).rejects.toThrow(/a copy of claude session .* is here that went its own way from turn 3 \(it has 3 turns, the archive 4\): left as it is, nothing written/);
    expect(m.tree()).toEqual(before);
  });
});

describe("the place here", () => {
  beforeEach(async () => {
    m.claudeTranscript(m.a);
    m.pin(m.a, "claude", CLAUDE_ID);
    await m.export();
  });

  it("a link on the way into the store is never followed: refused, nothing written there or behind it", async () => {
    const outside = join(m.dir, "outside");
    mkdirSync(outside);
    mkdirSync(join(m.b.home, ".claude", "projects"), { recursive: true });
    symlinkSync(outside, projects(m.b.home, m.b.cwd));
    const before = m.tree();
    await expect(m.import()).rejects.toThrow(/is a link or no folder where a folder of the session goes \(links are never followed\)/);
    expect(m.tree()).toEqual(before);
  });

  it("a link where the transcript goes: refused", async () => {
    mkdirSync(projects(m.b.home, m.b.cwd), { recursive: true });
    symlinkSync("/etc/passwd", join(projects(m.b.home, m.b.cwd), `${CLAUDE_ID}.jsonl`));
    await expect(m.import()).rejects.toThrow(/is a link or no regular file where a file of the session goes/);
  });

  it("a pointer of another session where the pointer goes: refused, nothing written", async () => {
    m.pin(m.b, "claude", "0b5e8d1c-2f3a-4b6c-8d9e-0f1a2b3c4d5e");
    const before = m.tree();
    await expect(m.import()).rejects.toThrow(/pins another claude session here \(0b5e8d1c-2f3a-4b6c-8d9e-0f1a2b3c4d5e\): clear it first/);
    expect(m.tree()).toEqual(before);
  });

  it("a pointer a live run holds: exit 75, nothing written", async () => {
    const pointer = m.pointerPath(m.b, "claude");
    mkdirSync(dirname(pointer), { recursive: true });
    const { hostname } = await import("node:os");
    writeFileSync(`${pointer}.lock`, JSON.stringify({ pid: process.pid, startedAt: new Date().toISOString(), host: hostname() }));
    const error = await m.import().then(() => undefined, (e: unknown) => e);
    expect(error).toBeInstanceOf(CarryError);
    expect((error as CarryError).exitCode).toBe(75);
    expect(existsSync(join(projects(m.b.home, m.b.cwd), `${CLAUDE_ID}.jsonl`))).toBe(false);
  });
});

describe("a pointer alone", () => {
  it("Amp's pointer travels alone, and resumes the thread on its server", async () => {
    m.pin(m.a, "amp", "T-019c479a-39cc-72af-a2d1-65a965c076ec");
    await m.export(agents.amp);
    const result = await m.import();
    expect(result).toMatchObject({ store: "none", files: [], pointerWritten: true });
    expect(JSON.parse(readFileSync(m.pointerPath(m.b, "amp"), "utf8"))).toMatchObject({ id: "T-019c479a-39cc-72af-a2d1-65a965c076ec", cwd: m.b.cwd });
  });
});
