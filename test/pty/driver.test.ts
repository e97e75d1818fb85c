/**
 * The PTY driver the demo and the tests drive programs with, as agentapi drives an agent: its
 * terminal size and TERM, its chat message bytes, and when waitFor gives up.
 */
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { PtyDriver } from "../../src/pty/driver.js";

const KEYS = join(import.meta.dirname, "keys.mjs");

describe("PtyDriver", () => {
  it("gives the program agentapi's terminal, and sends a chat message as agentapi does", async () => {
    const driver = new PtyDriver([process.execPath, KEYS]);
    await driver.waitFor(/terminal 67x1190 vt100/);
    driver.sendMessage("hi");
    const [, hex] = await driver.waitFor(/read ([0-9a-f]+)/);
    // x, backspace, a bracketed paste of the text, Enter.
    expect(Buffer.from(hex ?? "", "hex")).toEqual(Buffer.from("x\b\x1b[200~hi\x1b[201~\r"));
    expect((await driver.exited).exitCode).toBe(0);
    // Its text has the escapes stripped; its output keeps every byte.
    expect(driver.text).toContain("terminal 67x1190 vt100\n");
    expect(driver.output.toString()).toContain("\x1b[32mread ");
  }, 20_000);

  it("takes another size, and resizes", async () => {
    const driver = new PtyDriver(["sh", "-c", "stty size; read line; stty size"], { cols: 100, rows: 30 });
    await driver.waitFor(/^30 100$/m);
    driver.resize(120, 40);
    driver.write("\r");
    await driver.waitFor(/^40 120$/m);
    await driver.exited;
  }, 20_000);

  it("waitFor gives up when the program exits without printing it, or when the time is up", async () => {
    const quick = new PtyDriver(["sh", "-c", "echo bye"]);
    await expect(quick.waitFor(/never/)).rejects.toThrow(/exited before \/never\/ appeared; output:\n.*bye/s);
    const slow = new PtyDriver(["sh", "-c", "echo waiting; sleep 30"]);
    await slow.waitFor(/waiting/);
    await expect(slow.waitFor(/never/, 300)).rejects.toThrow(/timed out after 300 ms waiting for \/never\//);
    slow.kill("SIGKILL");
    expect((await slow.exited).signal).toBe(9);
  }, 20_000);
});
