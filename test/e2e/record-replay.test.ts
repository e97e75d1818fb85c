import { execFile, spawn, spawnSync, type SpawnSyncReturns } from "node:child_process";
import { chmodSync, chownSync, closeSync, existsSync, openSync, readFileSync, statSync, writeFileSync, writeSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterEach, describe, expect, it } from "vitest";
import type { PtyDriver } from "../../src/pty/driver.js";
import { CLI, type Sandbox } from "../helpers/sandbox.js";
import { Cleanup, cli, exitOf, WAIT_MS } from "./support.js";

const cleanup = new Cleanup();
afterEach(() => cleanup.run());
const exec = promisify(execFile);

describe("run --record / --trace, then replay", () => {
  it("replays a live recording to the same ID, state and rule the live run pinned", async () => {
    const sb = cleanup.sandbox({ FAKE_AMP_NEXT_ID: "T-019f3c4d-5e6f-7a8b-9c0d-1e2f3a4b5c6d" });
    const cast = join(sb.dir, "rec", "run.cast");
    const trace = join(sb.dir, "rec", "trace.jsonl");
    const driver = cleanup.driver(sb.sessionpin([
      "run", "--pointer", sb.pointer, "--record", cast, "--trace", trace, "--prompt", "list the files", "--",
      "amp", "-x", "--stream-json",
    ]));
    expect((await exitOf(driver)).exitCode).toBe(0);
    const live = sb.readPointer();
    expect(live).toMatchObject({ id: "T-019f3c4d-5e6f-7a8b-9c0d-1e2f3a4b5c6d", state: "confirmed" });

    const { stdout } = await exec(process.execPath, [CLI, "replay", "--json", cast]);
    const replayed = JSON.parse(stdout) as Record<string, unknown>;
    expect(replayed).toMatchObject({ format: "cast", agent: "amp", id: live["id"], state: live["state"], rule: (live["source"] as { rule: string }).rule });

    // The recording is private, and holds exactly what reached the screen.
    expect(statSync(cast).mode & 0o777).toBe(0o600);
    expect(statSync(join(sb.dir, "rec")).mode & 0o777).toBe(0o700);
    const events = readFileSync(cast, "utf8").trimEnd().split("\n").slice(1).map((l) => JSON.parse(l) as [number, string, string]);
    expect(events.filter((e) => e[1] === "o").map((e) => e[2]).join("")).toBe(driver.output.toString("utf8"));
    expect(events.some((e) => e[1] === "i")).toBe(false);

    const traced = readFileSync(trace, "utf8").trimEnd().split("\n").map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(traced).toContainEqual(expect.objectContaining({ plugin: "amp", rule: "result", outcome: "taken", state: "confirmed", value: live["id"] }));
  });

  it("interactive Amp prints no thread ID: the recording and the trace name the one pinned up front, and replay finds it", async () => {
    const id = "T-019f3c4d-5e6f-7a8b-9c0d-1e2f3a4b5c6e";
    const sb = cleanup.sandbox({ FAKE_AMP_NEXT_ID: id });
    const cast = join(sb.dir, "rec", "tui.cast");
    const trace = join(sb.dir, "rec", "tui.jsonl");
    const driver = cleanup.driver(sb.sessionpin(["run", "--pointer", sb.pointer, "--record", cast, "--trace", trace, "--", "amp"]));
    await driver.waitFor(/new thread/, WAIT_MS);
    driver.write("\x03");
    expect((await exitOf(driver)).exitCode).toBe(0);
    expect(sb.readPointer()).toMatchObject({ id, source: { rule: "threads-new" } });
    expect(driver.text).not.toContain(id);

    const events = readFileSync(cast, "utf8").trimEnd().split("\n").slice(1).map((l) => JSON.parse(l) as [number, string, string]);
    expect(events.filter((e) => e[1] === "m").map((e) => e[2])).toEqual([`sessionpin: threads-new ${id}`]);
    const { stdout } = await exec(process.execPath, [CLI, "replay", "--json", cast]);
    expect(JSON.parse(stdout)).toMatchObject({ format: "cast", agent: "amp", id, state: "confirmed", rule: "threads-new" });
    const explained = await exec(process.execPath, [CLI, "explain", "--json", cast]);
    expect(explained.stdout).toContain(`"value":"${id}"`);
    const traced = readFileSync(trace, "utf8").trimEnd().split("\n").map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(traced).toContainEqual(expect.objectContaining({ plugin: "amp", rule: "threads-new", outcome: "taken", value: id }));
  });
});

describe("--record across restarts", () => {
  const castEvents = (file: string): Array<[number, string, string]> =>
    readFileSync(file, "utf8").trimEnd().split("\n").slice(1).map((l) => JSON.parse(l) as [number, string, string]);
  // Each start is a cold one-shot run (a pointer of its own): what is tested is the recording.
  let starts = 0;
  async function start(sb: Sandbox, cast: string, mode: string[]): Promise<PtyDriver> {
    starts += 1;
    const pointer = join(sb.dir, "state", `run-${starts}.json`);
    const driver = cleanup.driver(sb.sessionpin(["run", "--pointer", pointer, "--log", sb.log, "--record", cast, ...mode, "--prompt", "list the files", "--", "amp", "-x", "--stream-json"]));
    expect((await exitOf(driver)).exitCode).toBe(0);
    return driver;
  }

  it("appends by default: one header, a marker where the restart begins, times running on, and replay still finds the ID", async () => {
    const sb = cleanup.sandbox({ FAKE_AMP_NEXT_ID: "T-019f3c4d-5e6f-7a8b-9c0d-1e2f3a4b5c6d" });
    const cast = join(sb.dir, "run.cast");
    const first = await start(sb, cast, []);
    const second = await start(sb, cast, []);
    const lines = readFileSync(cast, "utf8").trimEnd().split("\n");
    expect(lines.filter((l) => l.includes('"version":2'))).toHaveLength(1);
    const events = castEvents(cast);
    const marker = events.findIndex((e) => e[1] === "m");
    expect(marker).toBeGreaterThan(0);
    expect(events.filter((e) => e[1] === "m")).toHaveLength(1);
    expect(events[marker]?.[2]).toContain("amp");
    // Both runs' screens, in order, and time never goes back.
    expect(events.filter((e) => e[1] === "o").map((e) => e[2]).join("")).toBe(first.output.toString("utf8") + second.output.toString("utf8"));
    expect(events.map((e) => e[0])).toEqual([...events.map((e) => e[0])].sort((a, b) => a - b));
    const { stdout } = await exec(process.execPath, [CLI, "replay", "--json", cast]);
    expect(JSON.parse(stdout)).toMatchObject({ format: "cast", id: "T-019f3c4d-5e6f-7a8b-9c0d-1e2f3a4b5c6d" });
  });

  it("overwrite replaces the recording; refuse leaves it alone, records nothing and the agent still runs", async () => {
    const sb = cleanup.sandbox();
    const cast = join(sb.dir, "run.cast");
    await start(sb, cast, []);
    const second = await start(sb, cast, ["--record-mode", "overwrite"]);
    expect(castEvents(cast).filter((e) => e[1] === "o").map((e) => e[2]).join("")).toBe(second.output.toString("utf8"));
    const before = readFileSync(cast, "utf8");
    await start(sb, cast, ["--record-mode", "refuse"]);
    expect(readFileSync(cast, "utf8")).toBe(before);
    expect(sb.readLog()).toContain(`${cast} exists: not recording`);
  });

  it("never records over a file that is not a recording, and rejects an unknown mode before starting", async () => {
    const sb = cleanup.sandbox();
    const notes = join(sb.dir, "notes.cast");
    writeFileSync(notes, "my notes\n");
    await start(sb, notes, []);
    expect(readFileSync(notes, "utf8")).toBe("my notes\n");
    expect(sb.readLog()).toContain("is not an asciicast v2 recording: not recording over it");
    const bad = await exec(process.execPath, [CLI, "run", "--record-mode", "sometimes", "--", "amp"], { cwd: sb.dir, env: sb.env }).catch((error: { code: number; stderr: string }) => error);
    expect(bad).toMatchObject({ code: 2, stderr: expect.stringContaining("--record-mode sometimes: expected append, overwrite, refuse") as unknown });
  });

  it("appends after the last whole line of a recording a run left cut mid-event, so every line stays whole", () => {
    const sb = cleanup.sandbox();
    const whole = [JSON.stringify({ version: 2, width: 80, height: 24, command: "amp", timestamp: 1 }), JSON.stringify([0.5, "o", "before\r\n"])];
    // Cut short, and cut longer than the 64 KiB read from the end at a time.
    for (const cut of [16, 100_000]) {
      const cast = join(sb.dir, `cut-${cut}.cast`);
      writeFileSync(cast, `${whole.join("\n")}\n${JSON.stringify([0.75, "o", "x".repeat(cut)]).slice(0, cut)}`);
      const run = cli(sb, ["run", "--pointer", sb.pointer, "--log", sb.log, "--record", cast, "--agent", "amp", "--", "sh", "-c", "echo hi"]);
      expect([run.status, run.stderr]).toEqual([0, ""]);
      const lines = readFileSync(cast, "utf8").split("\n");
      expect(lines.pop()).toBe("");
      expect(lines.slice(0, 2)).toEqual(whole);
      const events = lines.slice(1).map((line) => JSON.parse(line) as [number, string, string]);
      expect(events.filter((e) => e[1] === "o").map((e) => e[2])).toEqual(["before\r\n", "hi\n"]);
      expect(sb.readLog()).toContain(`${cast} ended in a cut line (${cut} bytes`);
    }
  });

  it("keeps a header that only lacks its newline, and appends after it", () => {
    const sb = cleanup.sandbox();
    const cast = join(sb.dir, "header.cast");
    const header = JSON.stringify({ version: 2, width: 80, height: 24, command: "amp", timestamp: 1 });
    writeFileSync(cast, header);
    expect(cli(sb, ["run", "--pointer", sb.pointer, "--log", sb.log, "--record", cast, "--agent", "amp", "--", "sh", "-c", "echo hi"]).status).toBe(0);
    const [first, ...events] = readFileSync(cast, "utf8").trimEnd().split("\n");
    expect(first).toBe(header);
    expect(events.map((line) => JSON.parse(line) as [number, string, string]).filter((e) => e[1] === "o").map((e) => e[2])).toEqual(["hi\n"]);
  });

  it("appends to a recording whose header is longer than 64 KiB (a long command line)", () => {
    const sb = cleanup.sandbox();
    const cast = join(sb.dir, "long.cast");
    const header = JSON.stringify({ version: 2, width: 80, height: 24, command: `amp ${"x".repeat(70_000)}`, timestamp: 1 });
    writeFileSync(cast, `${header}\n${JSON.stringify([0.5, "o", "before\r\n"])}\n`);
    expect(cli(sb, ["run", "--pointer", sb.pointer, "--log", sb.log, "--record", cast, "--agent", "amp", "--", "sh", "-c", "echo hi"]).status).toBe(0);
    const [first, ...events] = readFileSync(cast, "utf8").trimEnd().split("\n");
    expect(first).toBe(header);
    expect(events.map((line) => JSON.parse(line) as [number, string, string]).filter((e) => e[1] === "o").map((e) => e[2])).toEqual(["before\r\n", "hi\n"]);
  });

  it("times an appended run on from the last event even when that event's line is longer than 64 KiB, and after a cut one", () => {
    const sb = cleanup.sandbox();
    const header = JSON.stringify({ version: 2, width: 80, height: 24, command: "amp", timestamp: 1 });
    for (const cut of ["", `\n${JSON.stringify([7.5, "o", "y".repeat(300_000)]).slice(0, 200_000)}`]) {
      const cast = join(sb.dir, `long-event-${cut.length}.cast`);
      writeFileSync(cast, `${header}\n${JSON.stringify([0.5, "o", "before\r\n"])}\n${JSON.stringify([5.25, "o", "x".repeat(100_000)])}${cut === "" ? "\n" : cut}`);
      expect(cli(sb, ["run", "--pointer", sb.pointer, "--log", sb.log, "--record", cast, "--agent", "amp", "--", "sh", "-c", "echo hi"]).status).toBe(0);
      const events = castEvents(cast);
      expect(events.map((e) => e[1]).filter((kind) => kind !== "r")).toEqual(["o", "o", "m", "o"]);
      expect(events.map((e) => e[0]).every((at, i) => i < 2 || at >= 5.25), JSON.stringify(events.map((e) => e[0]))).toBe(true);
    }
  });

  it("records the start of a character the agent never finished as U+FFFD, not nothing", () => {
    const sb = cleanup.sandbox();
    const cast = join(sb.dir, "cut.cast");
    expect(cli(sb, ["run", "--pointer", sb.pointer, "--log", sb.log, "--record", cast, "--agent", "amp", "--", "sh", "-c", String.raw`printf 'ab\342\202'`]).status).toBe(0);
    const events = readFileSync(cast, "utf8").trimEnd().split("\n").slice(1).map((line) => JSON.parse(line) as [number, string, string]);
    expect(events.filter((e) => e[1] === "o").map((e) => e[2]).join("")).toBe("ab\uFFFD");
  });

  it("records into an empty file, as mktemp leaves one, from its header on", async () => {
    const sb = cleanup.sandbox();
    const cast = join(sb.dir, "tmp.cast");
    writeFileSync(cast, "");
    const run = await start(sb, cast, []);
    expect(JSON.parse(readFileSync(cast, "utf8").split("\n", 1)[0] ?? "")).toMatchObject({ version: 2, command: "amp -x --stream-json" });
    expect(castEvents(cast).filter((e) => e[1] === "o").map((e) => e[2]).join("")).toBe(run.output.toString("utf8"));
  });

  it("never records over a file it cannot read, and the log says why", () => {
    const sb = cleanup.sandbox();
    const cast = join(sb.dir, "theirs.cast");
    writeFileSync(cast, "not yours to read\n");
    chmodSync(cast, 0o000);
    // Root reads any file: as root, the run is another user's, in a folder that user may write to.
    const user = process.getuid?.() === 0 ? { uid: 54_321, gid: 54_321 } : {};
    if (user.uid !== undefined) chownSync(sb.dir, user.uid, user.gid);
    const run = spawnSync(process.execPath, [CLI, "run", "--pointer", sb.pointer, "--log", sb.log, "--record", cast, "--agent", "amp", "--", "sh", "-c", "echo hi"], {
      cwd: sb.dir, env: sb.env, ...user, encoding: "utf8", timeout: WAIT_MS,
    });
    expect([run.status, run.stderr]).toEqual([0, ""]);
    chmodSync(cast, 0o600);
    expect(readFileSync(cast, "utf8")).toBe("not yours to read\n");
    expect(sb.readLog()).toContain(`${cast} cannot be read (permission denied): not recording over it (--record-mode overwrite replaces it)`);
  });
});

describe("a recording or trace that cannot be written", () => {
  it("into a folder that is a file: the agent still runs and pins, one line each on stderr and in the log", () => {
    const sb = cleanup.sandbox({ FAKE_AMP_NEXT_ID: "T-019f3c4d-5e6f-7a8b-9c0d-1e2f3a4b5c6d" });
    const blocker = join(sb.dir, "a-file");
    writeFileSync(blocker, "");
    const cast = join(blocker, "run.cast");
    const trace = join(blocker, "trace.jsonl");
    const result = cli(sb, ["run", "--pointer", sb.pointer, "--log", sb.log, "--record", cast, "--trace", trace, "--prompt", "list the files", "--", "amp", "-x", "--stream-json"]);
    expect(result.status).toBe(0);
    expect(result.stdout).toContain("T-019f3c4d-5e6f-7a8b-9c0d-1e2f3a4b5c6d");
    expect(sb.readPointer()).toMatchObject({ id: "T-019f3c4d-5e6f-7a8b-9c0d-1e2f3a4b5c6d", state: "confirmed" });
    expect(result.stderr).toBe([
      `sessionpin: cannot write ${cast} (${blocker} is not a folder): running the agent without it`,
      `sessionpin: cannot write ${trace} (${blocker} is not a folder): running the agent without it`,
      "",
    ].join("\n"));
    expect(sb.readLog()).toContain(`cannot write ${cast}: ${blocker} is not a folder; running the agent without it`);
    expect(readFileSync(blocker, "utf8")).toBe("");
  });
});

describe("a recording the disk takes part of", () => {
  // A file size limit (ulimit -f, in 512-byte blocks) takes the part of a write that fits, as a
  // disk filling up does, and fails the next write.
  const limited = (sb: Sandbox, blocks: number, cast: string, agent: string): SpawnSyncReturns<string> =>
    spawnSync("sh", ["-c", `ulimit -f ${blocks}; exec "$0" "$@"`, process.execPath, CLI, "run", "--pointer", sb.pointer, "--log", sb.log, "--record", cast, "--agent", "amp", "--", "sh", "-c", agent], {
      cwd: sb.dir, env: sb.env, encoding: "utf8", timeout: WAIT_MS,
    });

  it("cuts off the part of an event written before the limit, so the recording ends with a whole line", () => {
    const sb = cleanup.sandbox();
    const cast = join(sb.dir, "run.cast");
    expect(limited(sb, 2, cast, "head -c 3000 /dev/zero | tr '\\0' x").status).toBe(0);
    const text = readFileSync(cast, "utf8");
    expect(text.trimEnd().split("\n").map((line) => JSON.parse(line) as unknown)[0]).toMatchObject({ version: 2 });
    expect(text.endsWith("\n")).toBe(true);
    expect(sb.readLog()).toContain(`writing ${cast} stopped: file too large`);
  });

  it("leaves no recording with a cut header", () => {
    // The header holds SHELL: this one makes it longer than the limit's 512 bytes.
    const sb = cleanup.sandbox({ SHELL: `/bin/${"s".repeat(600)}h` });
    const cast = join(sb.dir, "run.cast");
    const run = limited(sb, 1, cast, "echo hi");
    expect([run.status, run.stderr]).toEqual([0, `sessionpin: cannot write ${cast} (file too large): running the agent without it\n`]);
    expect(existsSync(cast)).toBe(false);
  });
});

describe("replay of a transcript larger than its memory cap", () => {
  it("streams: finds the ID at the end with the heap capped at 64 MB and RSS bounded", async () => {
    const sb = cleanup.sandbox();
    const big = join(sb.dir, "big.txt");
    const id = "T-019f4d5e-6f70-7a8b-9c0d-1e2f3a4b5c6d";
    const block = Buffer.from(
      Array.from({ length: 100 }, (_, i) => [
        JSON.stringify({ type: "assistant", message: { content: [{ type: "text", text: `step ${i} `.repeat(20) }] }, session_id: id }),
        `\x1b[1;32m  building\x1b[0m module ${i}\x1b[2K\r progress ${i}%`,
      ].join("\n")).join("\n") + "\n",
    );
    const fd = openSync(big, "w");
    for (let written = 0; written < 160e6; written += block.length) writeSync(fd, block);
    writeSync(fd, `${JSON.stringify({ type: "result", subtype: "success", session_id: id })}\n`);
    closeSync(fd);

    const child = spawn(process.execPath, ["--max-old-space-size=64", CLI, "replay", "--json", "--agent", "amp", big]);
    let stdout = "";
    child.stdout.on("data", (chunk: Buffer) => void (stdout += chunk.toString()));
    // Peak resident memory, read while the replay runs (VmHWM is gone once it exits).
    let peakKb = 0;
    const poll = setInterval(() => {
      const hwm = /VmHWM:\s+(\d+) kB/.exec(safeRead(`/proc/${child.pid}/status`));
      if (hwm) peakKb = Math.max(peakKb, Number(hwm[1]));
    }, 20);
    const code = await new Promise<number | null>((resolve) => child.on("close", resolve));
    clearInterval(poll);
    expect(code).toBe(0);
    expect(JSON.parse(stdout)).toMatchObject({ id, state: "confirmed", rule: "result" });
    expect(peakKb).toBeGreaterThan(0);
    expect(peakKb / 1024).toBeLessThan(150);
  }, 120_000);
});

function safeRead(path: string): string {
  try {
    return readFileSync(path, "utf8");
  } catch {
    return "";
  }
}
