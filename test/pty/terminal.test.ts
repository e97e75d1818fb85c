import { join } from "node:path";
import { PassThrough } from "node:stream";
import { afterEach, describe, expect, it } from "vitest";
import { PtyDriver } from "../../src/pty/driver.js";
import { OuterTerminal } from "../../src/pty/terminal.js";
import { ROOT } from "../helpers/sandbox.js";

const drivers: PtyDriver[] = [];
afterEach(() => {
  for (const driver of drivers.splice(0)) {
    try {
      driver.kill("SIGKILL");
    } catch {
      // Exited already.
    }
  }
});

/** stdin and stdout as a pipe and a file give them: no terminal, an fd, and an end. */
function piped(): { stdin: PassThrough & { fd: number }; stdout: PassThrough & { fd: number }; outer: OuterTerminal } {
  const stdin = Object.assign(new PassThrough(), { fd: -1 });
  const stdout = Object.assign(new PassThrough(), { fd: -1 });
  const outer = new OuterTerminal(stdin as unknown as NodeJS.ReadStream & { fd: number }, stdout as unknown as NodeJS.WriteStream & { fd: number });
  return { stdin, stdout, outer };
}

const turn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

describe("OuterTerminal on pipes", () => {
  it("holds input until an agent is attached, hands it over first, and holds it again once detached", async () => {
    const { stdin, outer } = piped();
    outer.open();
    expect(outer.isTTY).toBe(false);
    expect(outer.size()).toEqual({ cols: 80, rows: 24 });
    stdin.write("early ");
    await turn();
    const got: string[] = [];
    outer.attach((chunk) => void got.push(chunk.toString()));
    stdin.write("late");
    await turn();
    outer.detach();
    stdin.write("between");
    await turn();
    expect(got).toEqual(["early ", "late"]);
    expect(outer.discardHeld()).toBe(7);
    expect(outer.discardHeld()).toBe(0);
    outer.close();
  });

  it("tells the attached agent its input ended, whether it ended before or after the attach", async () => {
    const before = piped();
    before.outer.open();
    before.stdin.end("message");
    await turn();
    await turn();
    const ends: string[] = [];
    before.outer.attach(() => undefined, () => void ends.push("before"));
    const after = piped();
    after.outer.open();
    after.outer.attach(() => undefined, () => void ends.push("after"));
    after.stdin.end();
    await turn();
    await turn();
    expect(ends).toEqual(["before", "after"]);
  });

  it("drops output once its reader went away, and wakes whoever waits for a drain", async () => {
    const { stdout, outer } = piped();
    outer.open();
    let drained = 0;
    outer.onDrain(() => void drained++);
    const read: Buffer[] = [];
    stdout.on("data", (chunk: Buffer) => void read.push(chunk));
    expect(outer.write(Buffer.from("one"))).toBe(true);
    stdout.emit("error", Object.assign(new Error("write EPIPE"), { code: "EPIPE" }));
    expect(drained).toBe(1);
    expect(outer.write(Buffer.from("two"))).toBe(true);
    await outer.flush();
    expect(Buffer.concat(read).toString()).toBe("one");
  });
});

/**
 * In a real terminal: OuterTerminal from the build, in a child node whose stdin and stdout are a
 * PTY, printing what `stty` says of the terminal while open and after close.
 */
describe("OuterTerminal in a terminal", () => {
  const script = `
    import { spawnSync } from "node:child_process";
    const { OuterTerminal } = await import(${JSON.stringify(join(ROOT, "dist/pty/terminal.js"))});
    const modes = () => spawnSync("stty", ["-a"], { stdio: [0, "pipe", "ignore"], encoding: "utf8" }).stdout.match(/-?(opost|icanon|echo)\\b/g).join(",");
    const outer = new OuterTerminal();
    console.log("before", modes());
    outer.open();
    const { cols, rows } = outer.size();
    outer.write(Buffer.from("open " + modes() + " size " + cols + "x" + rows + "\\nnext line\\n"));
    outer.attach((chunk) => {
      outer.write(Buffer.from("got " + JSON.stringify(chunk.toString()) + "\\r\\n"));
      outer.close();
      console.log("after", modes());
    });
  `;

  it("is raw without output processing while open, has the terminal's size, and puts every mode back at close", async () => {
    const driver = new PtyDriver([process.execPath, "--input-type=module", "-e", script], { cols: 91, rows: 33 });
    drivers.push(driver);
    await driver.waitFor(/open .* size \d+x\d+/);
    driver.write("\x03");
    await driver.waitFor(/^after /m);
    await driver.exited;
    const text = driver.output.toString();
    expect(text).toMatch(/^before opost,icanon,echo\r\n/);
    // Output passes as it is: "\n" stays "\n", no "\r" added, while open.
    expect(text).toContain("open -opost,-icanon,-echo size 91x33\nnext line\n");
    // ^C is a byte read, not a signal, in raw mode.
    expect(text).toContain('got "\\u0003"\r\n');
    expect(text).toMatch(/after opost,icanon,echo\r\n$/);
  }, 20_000);
});
