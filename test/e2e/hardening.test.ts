import { lstatSync, mkdirSync, readFileSync, readdirSync, statSync, symlinkSync, writeFileSync, existsSync } from "node:fs";
import { spawn } from "node:child_process";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { CLI } from "../helpers/sandbox.js";
import { Cleanup, eventsOf, exitOf, QUIET, runArgs, WAIT_MS, waitUntil, writePointerByHand } from "./support.js";

const cleanup = new Cleanup();
afterEach(() => cleanup.run());
const node = (script: string): string[] => [process.execPath, "-e", script];

describe("bad pointers", () => {
  it("moves a corrupt pointer aside as .corrupt-<time> and starts cold", async () => {
    const sb = cleanup.sandbox();
    mkdirSync(join(sb.dir, "state"), { recursive: true });
    writeFileSync(sb.pointer, '{"version":1,"agent":"amp","id":');
    const driver = cleanup.driver(sb.sessionpin(runArgs(sb, [], ["amp"])));
    await driver.waitFor(/new thread/, WAIT_MS);
    driver.write("\x03");
    expect((await exitOf(driver)).exitCode).toBe(0);
    const corrupt = sb.asideFiles("corrupt");
    expect(corrupt).toHaveLength(1);
    expect(readFileSync(join(sb.dir, "state", corrupt[0] as string), "utf8")).toBe('{"version":1,"agent":"amp","id":');
    expect(sb.readPointer()["id"]).toBe(eventsOf(sb, "thread-new")[0]?.["id"]);
    expect(sb.readLog()).toMatch(/pointer unreadable: not JSON/);
  });

  it("refuses a pointer written by a newer sessionpin, leaves it untouched, and exits 3", async () => {
    const sb = cleanup.sandbox();
    writePointerByHand(sb, { version: 2 });
    const before = readFileSync(sb.pointer);
    const driver = cleanup.driver(sb.sessionpin(runArgs(sb, [], ["amp"])));
    expect((await exitOf(driver)).exitCode).toBe(3);
    expect(driver.text.trim().split("\n")).toHaveLength(1);
    expect(driver.text).toMatch(/written by a newer sessionpin \(pointer version 2\); left untouched/);
    expect(readFileSync(sb.pointer)).toEqual(before);
    expect(eventsOf(sb, "start")).toEqual([]);
  });

  it("never takes an ID with a leading dash or shell metacharacters from a pointer into argv", async () => {
    const sb = cleanup.sandbox();
    const evil = "-T-019f5bde-8d0b-781f-8415-6f90b0c4bdbf; touch pwned";
    writePointerByHand(sb, { id: evil });
    const driver = cleanup.driver(sb.sessionpin(runArgs(sb, [], ["amp"])));
    await driver.waitFor(/new thread/, WAIT_MS);
    driver.write("\x03");
    expect((await exitOf(driver)).exitCode).toBe(0);
    expect(eventsOf(sb, "start").flatMap((e) => e.argv).some((word) => word.includes("touch"))).toBe(false);
    expect(existsSync(join(sb.dir, "pwned"))).toBe(false);
    expect(sb.readLog()).toContain("is not a amp ID");
  });

  it("does not follow a symlinked pointer: the link is moved aside, its target untouched", async () => {
    const sb = cleanup.sandbox();
    const decoy = join(sb.dir, "decoy.json");
    writeFileSync(decoy, "precious\n");
    mkdirSync(join(sb.dir, "state"), { recursive: true });
    symlinkSync(decoy, sb.pointer);
    const driver = cleanup.driver(sb.sessionpin(runArgs(sb, [], ["amp"])));
    await driver.waitFor(/new thread/, WAIT_MS);
    await waitUntil(() => !statSync(sb.pointer).isSymbolicLink() || undefined, "a real pointer file");
    driver.write("\x03");
    expect((await exitOf(driver)).exitCode).toBe(0);
    expect(readFileSync(decoy, "utf8")).toBe("precious\n");
    expect(sb.readPointer()["agent"]).toBe("amp");
  });

  it("does not follow a symlinked log: its target is untouched, and the agent still runs and pins", async () => {
    const sb = cleanup.sandbox();
    const decoy = join(sb.dir, "decoy");
    writeFileSync(decoy, "precious\n");
    mkdirSync(join(sb.dir, "state"), { recursive: true });
    symlinkSync(decoy, sb.log);
    const driver = cleanup.driver(sb.sessionpin(runArgs(sb, [], ["amp"])));
    await driver.waitFor(/new thread/, WAIT_MS);
    driver.write("\x03");
    expect((await exitOf(driver)).exitCode).toBe(0);
    expect(readFileSync(decoy, "utf8")).toBe("precious\n");
    expect(lstatSync(sb.log).isSymbolicLink()).toBe(true);
    expect(sb.readPointer()["agent"]).toBe("amp");
  });

  it("runs the agent unpinned when the lock path is a symlink or the pointer folder is unusable, exit code intact", async () => {
    const sb = cleanup.sandbox();
    const decoy = join(sb.dir, "decoy");
    writeFileSync(decoy, "precious\n");
    mkdirSync(join(sb.dir, "state"), { recursive: true });
    symlinkSync(decoy, `${sb.pointer}.lock`);
    const linked = cleanup.driver(sb.sessionpin(runArgs(sb, [], ["amp"])));
    await linked.waitFor(/new thread/, WAIT_MS);
    linked.sendMessage("/exit 4");
    expect((await exitOf(linked)).exitCode).toBe(4);
    // The reason in words, not the internal error code ("pointer-invalid") it once showed.
    expect(linked.text).toMatch(/^sessionpin: cannot use .*pointer\.json \(lock file .*pointer\.json\.lock is a symbolic link; .*\): running the agent without pinning its session/);
    expect(readFileSync(decoy, "utf8")).toBe("precious\n");

    const notAFolder = join(sb.dir, "a-file");
    writeFileSync(notAFolder, "");
    const blocked = cleanup.driver(sb.sessionpin(["run", "--pointer", join(notAFolder, "pointer.json"), "--prompt-quiet", QUIET, "--", "amp"]));
    await blocked.waitFor(/new thread/, WAIT_MS);
    blocked.sendMessage("/exit 5");
    expect((await exitOf(blocked)).exitCode).toBe(5);
    // A file where a folder should be: mkdir says EEXIST or ENOTDIR, depending on the depth; the
    // line names the file in the way.
    expect(blocked.text).toMatch(/cannot use .*a-file\/pointer\.json \(.*a-file is not a folder\)/);
  });

  it("refuses a folder named as the pointer (exit 3, one line) and leaves it and its files where they are", async () => {
    const sb = cleanup.sandbox();
    const folder = join(sb.dir, "project");
    mkdirSync(folder);
    writeFileSync(join(folder, "main.ts"), "precious\n");
    const refused = cleanup.driver(sb.sessionpin(["run", "--pointer", folder, "--prompt-quiet", QUIET, "--", "amp"]));
    expect((await exitOf(refused)).exitCode).toBe(3);
    expect(refused.text).toMatch(/^sessionpin: .*project is a folder, not a pointer file; left untouched/);
    expect(eventsOf(sb, "thread-new")).toEqual([]);
    expect(readdirSync(folder)).toEqual(["main.ts"]);
    // Nothing set aside, nothing moved: at most the run's log beside it.
    expect(readdirSync(sb.dir).filter((name) => name.startsWith("project.") && name !== "project.log")).toEqual([]);
  });
});

describe("bad output", () => {
  it("passes a 50 MB line with no newline through unchanged, caps it in capture, and stays small", async () => {
    const sb = cleanup.sandbox();
    // Amp's one-shot mode, so its plugin reads the output (a command without a plugin is only passed through).
    const amp = join(sb.dir, "amp");
    writeFileSync(amp, "#!/usr/bin/env node\nprocess.stdout.write('x'.repeat(50e6));\n", { mode: 0o755 });
    const driver = cleanup.driver(sb.sessionpin(["run", "--agent", "amp", "--pointer", sb.pointer, "--", amp, "-x"]));
    let peakKb = 0;
    const poll = setInterval(() => {
      const hwm = /VmHWM:\s+(\d+) kB/.exec(safeRead(`/proc/${driver.pid}/status`));
      if (hwm) peakKb = Math.max(peakKb, Number(hwm[1]));
    }, 20);
    const exit = await exitOf(driver, 60_000);
    clearInterval(poll);
    expect(exit.exitCode).toBe(0);
    expect(driver.output.length).toBe(50e6);
    expect(sb.readLog()).toMatch(/line 1 \(byte 0\) is longer than the capture limit: cut/);
    expect(peakKb / 1024).toBeLessThan(250);
  }, 90_000);

  it("passes invalid UTF-8, NUL bytes and binary garbage through byte for byte", async () => {
    const sb = cleanup.sandbox();
    // 64 KiB from a fixed generator, every byte value included; the same generator here gives
    // what must arrive: those bytes with the agent's own PTY turning each "\n" into "\r\n".
    const generator = "let x=7;const b=Buffer.alloc(65536);for(let i=0;i<b.length;i++){x=(x*1103515245+12345)>>>0;b[i]=(x>>>16)&255}";
    const bytes = new Function(`${generator};return b`)() as Buffer;
    const expected = Buffer.from(bytes.toString("latin1").replaceAll("\n", "\r\n"), "latin1");
    const through = cleanup.driver(sb.sessionpin(["run", "--pointer", sb.pointer, "--", ...node(`${generator};process.stdout.write(b)`)]));
    expect((await exitOf(through)).exitCode).toBe(0);
    expect(through.output.length).toBe(expected.length);
    expect(through.output.equals(expected)).toBe(true);
  });

  it("ends the agent as a reader going away ends it bare, and keeps the ID it printed before", async () => {
    const sb = cleanup.sandbox();
    const id = "T-019f5bde-8d0b-781f-8415-6f90b0c4bdbf";
    // An Amp stream: init, 8 MB more than any pipe holds, then the result that would confirm the thread.
    const amp = join(sb.dir, "amp");
    writeFileSync(amp, [
      "#!/usr/bin/env node",
      `const line = (o) => process.stdout.write(JSON.stringify({ ...o, session_id: ${JSON.stringify(id)} }) + "\\n");`,
      'line({ type: "system", subtype: "init" });',
      'const text = "x".repeat(1023) + "\\n";',
      "let left = 8192;",
      "const more = () => { while (left > 0) { left--; if (!process.stdout.write(text)) return void process.stdout.once(\"drain\", more); } line({ type: \"result\" }); process.exitCode = 7; };",
      "more();",
    ].join("\n"), { mode: 0o755 });
    // The reader takes the first bytes and leaves, as `| head -c 100` does; stdout a real pipe, as a shell's.
    const exitAfterReaderLeft = async (argv: readonly string[]): Promise<string> => {
      const script = `"$@" | head -c 100 >/dev/null; echo "\${PIPESTATUS[0]}"`;
      const child = spawn("bash", ["-c", script, "step", ...argv], { cwd: sb.dir, env: sb.env, stdio: ["ignore", "pipe", "ignore"], timeout: WAIT_MS });
      let out = "";
      child.stdout.on("data", (chunk: Buffer) => void (out += chunk.toString()));
      await new Promise((resolve) => child.on("close", resolve));
      return out.trim();
    };
    const bare = await exitAfterReaderLeft([amp, "-x", "--stream-json"]);
    // Node takes the EPIPE for an error it was not given a handler for: 1, not the 7 of a whole run.
    expect(bare).toBe("1");
    expect(await exitAfterReaderLeft([process.execPath, CLI, "run", "--agent", "amp", "--pointer", sb.pointer, "--", amp, "-x", "--stream-json"]), sb.readLog()).toBe(bare);
    expect(sb.readPointer()).toMatchObject({ id, state: "provisional" });
  });

  it("exits with the agent's code when the agent ends while its children keep the PTY open", async () => {
    const sb = cleanup.sandbox();
    const started = Date.now();
    const driver = cleanup.driver(sb.sessionpin(["run", "--pointer", sb.pointer, "--", "sh", "-c", "sleep 30 & echo bye; exit 3"]));
    expect((await exitOf(driver)).exitCode).toBe(3);
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(driver.text).toContain("bye");
  });
});

describe("secrets and files", () => {
  it("creates pointer, lock, log, trace and recording 0600 in 0700 folders, and logs no environment values", async () => {
    const sb = cleanup.sandbox({ SECRET_TOKEN: "s3cr3t-value-9f2c" });
    const rec = join(sb.dir, "rec");
    const driver = cleanup.driver(sb.sessionpin(runArgs(sb, ["--record", join(rec, "r.cast"), "--trace", join(rec, "t.jsonl"), "--record-input", "--prompt", "hello"], ["amp"])));
    await driver.waitFor(/noted \(1 messages/, WAIT_MS);
    const lock = `${sb.pointer}.lock`;
    expect(statSync(lock).mode & 0o777).toBe(0o600);
    driver.write("\x03");
    expect((await exitOf(driver)).exitCode).toBe(0);
    for (const file of [sb.pointer, sb.log, join(rec, "r.cast"), join(rec, "t.jsonl")]) expect(statSync(file).mode & 0o777, file).toBe(0o600);
    for (const dir of [join(sb.dir, "state"), rec]) expect(statSync(dir).mode & 0o777, dir).toBe(0o700);
    const everything = [sb.log, sb.pointer, join(rec, "t.jsonl")].map((f) => readFileSync(f, "utf8")).join("\n");
    expect(everything).not.toContain("s3cr3t-value-9f2c");
    expect(sb.readLog()).toMatch(/recording typed input to .*r\.cast: anything typed, secrets included, is in that file/);
    expect(readdirSync(join(sb.dir, "state")).filter((n) => n.endsWith(".tmp"))).toEqual([]);
  });
});

describe("one writer", () => {
  it("--wait-lock waits for the live holder, then starts", async () => {
    const sb = cleanup.sandbox();
    const first = cleanup.driver(sb.sessionpin(runArgs(sb, [], ["amp"])));
    await first.waitFor(/new thread/, WAIT_MS);
    const second = cleanup.driver(sb.sessionpin(runArgs(sb, ["--wait-lock", "20"], ["amp"])));
    await waitUntil(() => sb.readLog().includes("waiting up to 20000 ms"), "the second run waiting");
    expect(eventsOf(sb, "start").filter((e) => e.argv.includes("continue"))).toHaveLength(1);
    first.write("\x03");
    expect((await exitOf(first)).exitCode).toBe(0);
    const pinned = String(sb.readPointer()["id"]);
    await waitUntil(() => eventsOf(sb, "start").filter((e) => e.argv.join(" ").endsWith(`threads continue ${pinned}`)).length === 2 || undefined, "the second run resuming");
    await second.waitFor(/Type a message/, WAIT_MS);
    second.write("\x03");
    expect((await exitOf(second)).exitCode).toBe(0);
  });
});

function safeRead(path: string): string {
  try {
    return readFileSync(path, "utf8");
  } catch {
    return "";
  }
}
